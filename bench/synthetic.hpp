#pragma once

#include <cstdint>
#include <string>

#include "model/run.hpp"

namespace benchwatch::bench {

// A Google Benchmark JSON document with `benchmarks` benchmarks × `repetitions` iteration rows,
// deterministic for a given seed, each repetition ±2% around the benchmark's value; every 20th
// benchmark (BM_Synthetic/0, /20, /40 …: 5% of them) is `slowdown` times slower in every
// repetition.
std::string google_benchmark_json(std::size_t benchmarks, int repetitions, std::uint64_t seed,
                                  double slowdown = 1.0);

// A default-branch run of `benchmarks` benchmarks named "group<i/50>/bench<i>", values around
// 1 µs … 1 s with ±2% noise, deterministic in (run_index, seed).
model::Run synthetic_run(std::string project, std::size_t run_index, std::size_t benchmarks,
                         std::uint64_t seed);

}  // namespace benchwatch::bench
