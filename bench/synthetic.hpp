#pragma once

#include <cstdint>
#include <string>

#include "model/run.hpp"

namespace benchwatch::bench {

// A Google Benchmark JSON document with `benchmarks` benchmarks × `repetitions` iteration rows,
// deterministic for a given seed.
std::string google_benchmark_json(std::size_t benchmarks, int repetitions, std::uint64_t seed);

// A default-branch run of `benchmarks` benchmarks named "group<i/50>/bench<i>", values around
// 1 µs … 1 s with ±2% noise, deterministic in (run_index, seed).
model::Run synthetic_run(std::string project, std::size_t run_index, std::size_t benchmarks,
                         std::uint64_t seed);

}  // namespace benchwatch::bench
