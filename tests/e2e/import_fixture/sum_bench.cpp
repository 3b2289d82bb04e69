// A Google Benchmark suite of twelve benchmarks, as many as a suite needs for a step of all of
// them to be a suite event, each a few nanoseconds to a microsecond: what the import's test
// makes a github-action-benchmark history from and then records with `benchwatch run`.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

void BM_Sum(benchmark::State& state) {
    std::vector<std::int64_t> numbers(static_cast<std::size_t>(state.range(0)) * 16, 1);
    for (auto _ : state)
        benchmark::DoNotOptimize(std::accumulate(numbers.begin(), numbers.end(), std::int64_t{0}));
}
BENCHMARK(BM_Sum)->DenseRange(1, 12);

}  // namespace

BENCHMARK_MAIN();
