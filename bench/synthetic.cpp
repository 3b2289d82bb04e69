#include "synthetic.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <random>

namespace benchwatch::bench {

namespace {

double base_value(std::size_t benchmark) {
    // Spreads benchmarks over six decades: 1 µs to 1 s.
    return 1e3 * std::pow(10.0, static_cast<double>(benchmark % 61) / 10.0);
}

}  // namespace

std::string google_benchmark_json(std::size_t benchmarks, int repetitions, std::uint64_t seed,
                                  double slowdown) {
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> noise(0.98, 1.02);
    std::string out =
        "{\n  \"context\": {\"date\": \"2026-11-30T00:00:00+00:00\", \"host_name\": \"bench\", "
        "\"num_cpus\": 2, \"library_build_type\": \"release\"},\n  \"benchmarks\": [\n";
    for (std::size_t i = 0; i < benchmarks; ++i) {
        for (int repetition = 0; repetition < repetitions; ++repetition) {
            const double time = base_value(i) * noise(random) * (i % 20 == 0 ? slowdown : 1.0);
            out += fmt::format(
                "    {{\"name\": \"BM_Synthetic/{0}\", \"family_index\": {0}, "
                "\"per_family_instance_index\": 0, \"run_name\": \"BM_Synthetic/{0}\", "
                "\"run_type\": \"iteration\", \"repetitions\": {1}, \"repetition_index\": {2}, "
                "\"threads\": 1, \"iterations\": 1000, \"real_time\": {3:.6f}, "
                "\"cpu_time\": {3:.6f}, \"time_unit\": \"ns\"}}{4}\n",
                i, repetitions, repetition, time,
                i + 1 == benchmarks && repetition + 1 == repetitions ? "" : ",");
        }
    }
    out += "  ]\n}\n";
    return out;
}

model::Run synthetic_run(std::string project, std::size_t run_index, std::size_t benchmarks,
                         std::uint64_t seed) {
    std::mt19937_64 random(seed * 1000003 + run_index);
    std::uniform_real_distribution<double> noise(0.98, 1.02);
    model::Run run;
    run.project = std::move(project);
    run.machine = "bench";
    run.commit = fmt::format("{:040x}", run_index + 1);
    run.branch = "main";
    run.recorded_at_ms = 1'700'000'000'000 + static_cast<std::int64_t>(run_index) * 3'600'000;
    run.format = "googlebenchmark";
    run.content_hash = fmt::format("{:016x}", run_index);
    run.environment = {{"compiler", "g++ 12.2.0"}, {"cpu", "synthetic"}};
    run.results.reserve(benchmarks);
    for (std::size_t i = 0; i < benchmarks; ++i) {
        model::Result result;
        result.benchmark = fmt::format("group{}/bench{}", i / 50, i);
        result.value = base_value(i) * noise(random);
        result.samples = model::SampleSummary{
            5, result.value * 1.01, result.value * 1.01, result.value * 0.005, {}};
        run.results.push_back(std::move(result));
    }
    return run;
}

model::Run stepped_run(std::string project, std::size_t run_index, std::size_t runs,
                       std::size_t benchmarks, std::uint64_t seed) {
    constexpr std::array<double, 4> factors{1.12, 0.9, 1.2, 0.95};
    auto run = synthetic_run(std::move(project), run_index, benchmarks, seed);
    for (std::size_t i = 0; i < run.results.size(); ++i) {
        double level = 1;
        for (std::size_t k = 0; k < factors.size(); ++k)
            if (run_index >= (k + 1) * runs / 5 + i % 7) level *= factors[k];
        if ((run_index * 31 + i * 17) % 50 == 0) level *= 1.3;
        auto& result = run.results[i];
        result.value *= level;
        result.samples->mean *= level;
        result.samples->median *= level;
        result.samples->stddev *= level;
    }
    return run;
}

}  // namespace benchwatch::bench
