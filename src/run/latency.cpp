#include "run/latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "stats/stats.hpp"

namespace benchwatch::run {

namespace {

// Runs `command`; throws LatencyError naming `role` of benchmark `name` unless it succeeds.
TimedResult run_checked(const std::string& name, const char* role, const Command& command) {
    auto result = run_timed(command);
    if (!result.succeeded()) {
        throw LatencyError(fmt::format("latency benchmark '{}': {}'{}' failed: {}", name, role,
                                       command_text(command.argv),
                                       describe_failure(result, command)));
    }
    return result;
}

}  // namespace

model::Result latency_result(const std::string& name, const std::vector<TimedResult>& samples) {
    assert(!samples.empty());
    std::vector<double> wall_ns;
    wall_ns.reserve(samples.size());
    std::int64_t peak_rss = 0;
    double user_ns = samples.front().user_seconds * 1e9;
    double system_ns = samples.front().system_seconds * 1e9;
    for (const auto& sample : samples) {
        wall_ns.push_back(sample.wall_seconds * 1e9);
        peak_rss = std::max(peak_rss, sample.max_rss_bytes);
        user_ns = std::min(user_ns, sample.user_seconds * 1e9);
        system_ns = std::min(system_ns, sample.system_seconds * 1e9);
    }
    model::Result result;
    result.benchmark = "latency/" + name;
    result.value = stats::minimum(wall_ns);
    result.memory = static_cast<double>(peak_rss);
    result.user_time = user_ns;
    result.system_time = system_ns;
    result.samples = model::SampleSummary{
        .count = static_cast<std::int64_t>(wall_ns.size()),
        .median = stats::median(wall_ns),
        .mean = stats::mean(wall_ns),
        .stddev = stats::sample_stddev(wall_ns),
        .values = stats::kept_order_statistics(wall_ns, model::kKeptSampleValues)};
    return result;
}

LatencyMeasurement measure_latency(const LatencySpec& spec) {
    assert(spec.timed_runs > 0);
    for (int run = 0; run < spec.warmup_runs; ++run) {
        run_checked(spec.name, "warm-up command ", spec.command);
    }
    LatencyMeasurement measurement;
    measurement.samples.reserve(static_cast<std::size_t>(spec.timed_runs));
    for (int run = 0; run < spec.timed_runs; ++run) {
        if (spec.prepare) run_checked(spec.name, "prepare command ", *spec.prepare);
        measurement.samples.push_back(run_checked(spec.name, "command ", spec.command));
    }
    measurement.result = latency_result(spec.name, measurement.samples);
    return measurement;
}

}  // namespace benchwatch::run
