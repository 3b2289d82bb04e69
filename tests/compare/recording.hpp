#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compare/compare.hpp"
#include "compare/method.hpp"
#include "memory_store.hpp"

namespace benchwatch::testing {

// A time result in nanoseconds.
inline model::Result timed(std::string benchmark, double nanoseconds) {
    model::Result result;
    result.benchmark = std::move(benchmark);
    result.value = nanoseconds;
    return result;
}

// A throughput result, which is better when bigger.
inline model::Result throughput(std::string benchmark, double items_per_second) {
    model::Result result;
    result.benchmark = std::move(benchmark);
    result.metric = "throughput";
    result.unit = "items/s";
    result.direction = model::Direction::BiggerIsBetter;
    result.value = items_per_second;
    return result;
}

// Records runs of project "p" on machine "m" into a MemoryStore, each with its own content so
// that a second run of one commit is a new attempt.
class Recorder {
  public:
    MemoryStore store;

    void record(const std::string& commit, const std::string& branch,
                std::vector<model::Result> results, model::Environment environment = {},
                std::vector<model::Warning> warnings = {}) {
        model::Run run;
        run.project = "p";
        run.machine = "m";
        run.commit = commit;
        run.branch = branch;
        run.recorded_at_ms = ++recorded_;
        run.content_hash = std::to_string(recorded_);
        run.environment = std::move(environment);
        run.results = std::move(results);
        run.warnings = std::move(warnings);
        store.record(run);
    }

    // One time benchmark "a" at `commit`.
    void record_a(const std::string& commit, const std::string& branch, double nanoseconds) {
        record(commit, branch, {timed("a", nanoseconds)});
    }

    // Options for comparing `head` with the seed rule, whose arithmetic these tests pin down
    // (the level method has tests of its own).
    compare::CompareOptions options(std::string head) const {
        compare::CompareOptions options;
        options.method = compare::default_choice("seed");
        options.source.project = "p";
        options.source.machine = "m";
        options.head = std::move(head);
        return options;
    }

  private:
    int recorded_ = 0;
};

}  // namespace benchwatch::testing
