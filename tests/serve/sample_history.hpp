#pragma once

// A small history in a real store (SQLite, or PostgreSQL when BENCHWATCH_TEST_STORE=postgres)
// whose dashboard every serve test knows by heart.
//
// Project "p", machine "m1", branch main, commits c01…c10 recorded in that order:
// - "a" (time, ns): 100 ×5 then 120 ×5; "a" throughput (B/s, bigger is better): the same values.
// - "latency/x" (time): 50 in c01…c09, absent from c10 (retired).
// - environment {julia: 1.10} for c01…c05, {julia: 1.11} from c06.
// - c01 carries commit information: message "Fix it\n\nbody", author "Ann", no URL; c02 a
//   subject that JSON must escape ("quotes", a backslash, a tab, a byte that is not UTF-8).
// - c04 is recorded with an earlier clock than c03, so its time is clamped to c03's.
// Machine "m2" has c01 and c02 only. Branch "feature" has commit f1 (pull request 7) on m1.

#include <string>

#include "model/run.hpp"
#include "store/store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::serve::testing {

inline constexpr std::int64_t start_ms = 1'700'000'000'000;
inline constexpr std::int64_t hour_ms = 3'600'000;

inline std::string commit_name(int number) {
    return (number < 10 ? "c0" : "c") + std::to_string(number);
}

inline model::Result result(const std::string& name, double value,
                            const std::string& metric = "time") {
    model::Result r;
    r.benchmark = name;
    r.metric = metric;
    r.value = value;
    if (metric != "time") {
        r.unit = "B/s";
        r.direction = model::Direction::BiggerIsBetter;
    }
    return r;
}

inline model::Run sample_run(const std::string& machine, const std::string& commit, int number) {
    model::Run run;
    run.project = "p";
    run.machine = machine;
    run.commit = commit;
    run.branch = "main";
    run.recorded_at_ms = start_ms + number * hour_ms;
    run.format = "googlebenchmark";
    run.content_hash = machine + commit;
    return run;
}

// Records the history above into `store`.
inline void record_sample_history(store::Store& store) {
    for (int number = 1; number <= 10; ++number) {
        model::Run run = sample_run("m1", commit_name(number), number);
        if (number == 4) run.recorded_at_ms = start_ms + 2 * hour_ms;
        const double a = number <= 5 ? 100 : 120;
        run.results = {result("a", a), result("a", a, "throughput")};
        if (number <= 9) run.results.push_back(result("latency/x", 50));
        run.environment = {{"julia", number <= 5 ? "1.10" : "1.11"}};
        if (number == 1) run.commit_info = model::CommitInfo{"Fix it\n\nbody", "Ann", "", ""};
        if (number == 2)
            run.commit_info = model::CommitInfo{"Say \"hi\" \\ <b>\t\xff", "Bob", "", ""};
        store.record(run);
    }
    for (int number = 1; number <= 2; ++number) {
        model::Run run = sample_run("m2", commit_name(number), number);
        run.results = {result("a", 7)};
        store.record(run);
    }
    model::Run pull = sample_run("m1", "f1", 11);
    pull.branch = "feature";
    pull.pull_request = 7;
    pull.results = {result("a", 150)};
    store.record(pull);
}

}  // namespace benchwatch::serve::testing
