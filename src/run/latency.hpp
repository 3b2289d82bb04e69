#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "model/result.hpp"
#include "run/timed_process.hpp"

namespace benchwatch::run {

// A latency benchmark: a whole process timed several times.
struct LatencySpec {
    std::string name{};                // stored as "latency/<name>"
    Command command{};                 // what is timed
    std::optional<Command> prepare{};  // run, untimed, before every timed run (e.g. drop caches)
    int warmup_runs = 1;               // untimed runs of `command` first
    int timed_runs = 10;
};

// A latency command (or its prepare command) that failed. what() is one line naming the
// command and what happened: "latency benchmark 'ttfp': command 'julia -e 1' failed: exit 3".
class LatencyError : public model::Error {
  public:
    explicit LatencyError(const std::string& message)
        : Error(model::ErrorKind::MeasurementAborted, message) {}
};

// Every timed run of a latency benchmark and the result they make.
struct LatencyMeasurement {
    std::vector<TimedResult> samples;  // the timed runs, in order
    // "latency/<name>", value = minimum wall time in ns, samples = count, median, mean and
    // standard deviation of the wall times in ns, memory = the largest peak RSS in bytes,
    // user_time and system_time = the smallest CPU times in ns.
    model::Result result;
};

// Runs `spec`'s warm-up runs, then its timed runs (each after `prepare` when given). Throws
// LatencyError at the first run that does not succeed, StartError when a command cannot start.
LatencyMeasurement measure_latency(const LatencySpec& spec);

// The result for `name` made from already timed runs (at least one).
model::Result latency_result(const std::string& name, const std::vector<TimedResult>& samples);

}  // namespace benchwatch::run
