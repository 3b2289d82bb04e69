// A Google Benchmark suite whose instruction counts are known by hand, for the instrument's
// end-to-end tests. BM_Spin/n runs a loop of two instructions (decrement, jump while not zero)
// n times per iteration, after a set-up outside the timed loop that costs about 100 times as
// much, so that 2n + a few instructions per iteration says the set-up was left out. BM_Pair
// runs on two threads, and BM_Skipped skips itself. BM_SortStrings is sensitive to where the
// heap and the stack start. A file `spin-extra` in the working
// directory holding a number e adds e turns to BM_Spin/1000's loop: e = 10 makes it about 1%
// slower.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "spin.hpp"

namespace {

std::int64_t extra_turns() {
    std::int64_t extra = 0;
    std::ifstream file("spin-extra");
    file >> extra;
    return extra;
}

void BM_Spin(benchmark::State& state) {
    const auto n = state.range(0) + (state.range(0) == 1000 ? extra_turns() : 0);
    std::vector<std::int64_t> setup(static_cast<std::size_t>(n) * 50);
    std::iota(setup.begin(), setup.end(), 0);
    benchmark::DoNotOptimize(setup.data());
    for (auto _ : state) spin(n);
}
BENCHMARK(BM_Spin)->Arg(1000)->Arg(2000);

// Sorts a fresh copy of 64 records by their short keys, by insertion: the keys' copies and
// comparisons take paths that follow where the heap's blocks start (the library's compare
// checks whether a load would cross a page), which the harness's arguments, environment and
// working directory move unless the instrument keeps their total the same.
struct Record {
    std::string key;
    std::int64_t row;
};

void BM_SortStrings(benchmark::State& state) {
    std::vector<Record> records;
    for (std::int64_t i = 0; i < 64; ++i)
        records.push_back({"key-" + std::to_string((i * 7919) % 1000), i});
    for (auto _ : state) {
        std::vector<Record> sorted = records;
        for (std::size_t i = 1; i < sorted.size(); ++i) {
            Record moving = std::move(sorted[i]);
            std::size_t hole = i;
            while (hole > 0 && moving.key < sorted[hole - 1].key) {
                sorted[hole] = std::move(sorted[hole - 1]);
                --hole;
            }
            sorted[hole] = std::move(moving);
        }
        benchmark::DoNotOptimize(sorted.data());
    }
}
BENCHMARK(BM_SortStrings);

void BM_Pair(benchmark::State& state) {
    for (auto _ : state) spin(100);
}
BENCHMARK(BM_Pair)->Threads(2);

void BM_Skipped(benchmark::State& state) {
    state.SkipWithError("no device");
    for (auto _ : state) spin(1);
}
BENCHMARK(BM_Skipped);

}  // namespace

BENCHMARK_MAIN();
