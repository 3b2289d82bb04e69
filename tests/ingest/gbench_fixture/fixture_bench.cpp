// A small Google Benchmark suite whose JSON output is the ingest tests' fixture: benchmarks in
// nanoseconds, microseconds and milliseconds, one that allocates, and one that fails. See
// tests/data/googlebenchmark/README.md for the commands that run it.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <numeric>
#include <thread>
#include <vector>

namespace {

std::atomic<std::int64_t> allocation_count{0};
std::atomic<std::int64_t> allocated_bytes{0};

// Reports what the global operator new counted between Start and Stop. The peak is approximated
// by the bytes allocated, which is exact for the benchmarks here that never free mid-run. The
// default operator delete releases with std::free, so only operator new is replaced.
class CountingMemoryManager : public benchmark::MemoryManager {
  public:
    void Start() override {
        allocation_count = 0;
        allocated_bytes = 0;
    }
    void Stop(Result& result) override {
        result.num_allocs = allocation_count;
        result.max_bytes_used = allocated_bytes;
    }
    void Stop(Result* result) override { Stop(*result); }
};

void BM_Accumulate(benchmark::State& state) {
    std::vector<int> numbers(64, 1);
    for (auto _ : state)
        benchmark::DoNotOptimize(std::accumulate(numbers.begin(), numbers.end(), 0));
}
BENCHMARK(BM_Accumulate);

void BM_FillVector(benchmark::State& state) {
    for (auto _ : state) {
        std::vector<double> filled(static_cast<std::size_t>(state.range(0)), 1.5);
        benchmark::DoNotOptimize(filled.data());
    }
}
BENCHMARK(BM_FillVector)->Arg(4096)->Unit(benchmark::kMicrosecond);

void BM_Sleep(benchmark::State& state) {
    for (auto _ : state) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
BENCHMARK(BM_Sleep)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_NeedsDevice(benchmark::State& state) {
    state.SkipWithError("no device available");
    for (auto _ : state) {
    }
}
BENCHMARK(BM_NeedsDevice);

}  // namespace

void* operator new(std::size_t size) {
    ++allocation_count;
    allocated_bytes += static_cast<std::int64_t>(size);
    if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}

// Memory from the counting operator new above comes from malloc, so it goes back with free
// (sanitizers insist that both sides agree). Not inlined, so that the compiler does not see
// free() meet a pointer from operator new at the call sites.
[[gnu::noinline]] void operator delete(void* memory) noexcept { std::free(memory); }
[[gnu::noinline]] void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

int main(int argc, char** argv) {
    CountingMemoryManager memory_manager;
    benchmark::RegisterMemoryManager(&memory_manager);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
