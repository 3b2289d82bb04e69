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

// synthetic_run() of a history `runs` long whose benchmarks step: benchmark i's level moves at
// runs/5, 2·runs/5, 3·runs/5 and 4·runs/5 (shifted by i % 7 runs) by ×1.12, ×0.9, ×1.2, ×0.95,
// and one run in 50 of it is a spike 1.3 times slower; the ±2% noise stays.
model::Run stepped_run(std::string project, std::size_t run_index, std::size_t runs,
                       std::size_t benchmarks, std::uint64_t seed);

}  // namespace benchwatch::bench
