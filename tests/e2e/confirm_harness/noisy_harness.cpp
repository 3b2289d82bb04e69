// A benchmark harness for confirm's tests whose timings come from a seeded noise model instead of
// a clock, so that the tests know which changes are real and get the same numbers on every run.
//
// Usage: noisy_harness STATE_DIR base|head NAME:NANOSECONDS:HEAD_CHANGE...
// Prints Google Benchmark JSON with one iteration row per NAME. The value is NANOSECONDS, times
// 1 + HEAD_CHANGE in head mode, times the noise: a log-normal factor (σ = 1%, or
// BENCHWATCH_NOISE_SIGMA) and, in 5% of draws, a slowdown of 5% to 50% (heavy-tailed, as a
// preempted run is). The seed is
// BENCHWATCH_NOISE_SEED (default 1) and the number of earlier invocations, counted in
// STATE_DIR/invocations, so that every invocation draws differently.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

// Uniform in (0, 1) from 53 random bits, the same with every standard library.
double uniform(std::mt19937_64& engine) {
    return (static_cast<double>(engine() >> 11) + 0.5) * 0x1p-53;
}

double standard_normal(std::mt19937_64& engine) {
    const double radius = std::sqrt(-2 * std::log(uniform(engine)));
    return radius * std::cos(2 * M_PI * uniform(engine));
}

// The multiplicative noise of one measurement.
double noise_factor(std::mt19937_64& engine, double sigma) {
    double factor = std::exp(sigma * standard_normal(engine));
    if (uniform(engine) < 0.05) factor *= 1.05 + 0.45 * uniform(engine);
    return factor;
}

int next_invocation(const std::string& state_directory) {
    const auto path = state_directory + "/invocations";
    int count = 0;
    std::ifstream(path) >> count;
    std::ofstream(path) << count + 1;
    return count;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4 || (std::string(argv[2]) != "base" && std::string(argv[2]) != "head")) {
        std::fprintf(stderr, "usage: noisy_harness STATE_DIR base|head NAME:NS:HEAD_CHANGE...\n");
        return 64;
    }
    const bool head = std::string(argv[2]) == "head";
    const char* seed_text = std::getenv("BENCHWATCH_NOISE_SEED");
    const std::uint64_t seed = seed_text != nullptr ? std::strtoull(seed_text, nullptr, 10) : 1;
    const char* sigma_text = std::getenv("BENCHWATCH_NOISE_SIGMA");
    const double sigma = sigma_text != nullptr ? std::strtod(sigma_text, nullptr) : 0.01;
    const int invocation = next_invocation(argv[1]);
    std::mt19937_64 engine(seed * 1000003u + static_cast<std::uint64_t>(invocation));

    std::printf("{\n  \"context\": {\"library_build_type\": \"release\"},\n  \"benchmarks\": [");
    for (int i = 3; i < argc; ++i) {
        const std::string spec = argv[i];
        const auto first = spec.find(':');
        const auto second = spec.find(':', first + 1);
        const std::string name = spec.substr(0, first);
        const double nanoseconds = std::stod(spec.substr(first + 1, second - first - 1));
        const double head_change = std::stod(spec.substr(second + 1));
        const double value =
            nanoseconds * (head ? 1 + head_change : 1) * noise_factor(engine, sigma);
        std::printf(
            "%s\n    {\"name\": \"%s\", \"run_name\": \"%s\", \"run_type\": \"iteration\", "
            "\"repetitions\": 1, \"threads\": 1, \"iterations\": 1000, \"real_time\": %.17g, "
            "\"cpu_time\": %.17g, \"time_unit\": \"ns\"}",
            i == 3 ? "" : ",", name.c_str(), name.c_str(), value, value);
    }
    std::printf("\n  ]\n}\n");
    return 0;
}
