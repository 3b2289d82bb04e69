// Generates the large inputs that bench/cli_timing.sh times benchwatch on:
//   make_bench_data gbench FILE BENCHMARKS REPETITIONS [SEED SLOWDOWN]
//       SLOWDOWN (e.g. 1.1) makes every 20th benchmark that much slower in every repetition
//   make_bench_data history STORE RUNS BENCHMARKS   (default-branch runs, then one "pr" run)
//   make_bench_data steps STORE RUNS BENCHMARKS
//       default-branch runs only, each benchmark stepping four times (bench::stepped_run), for
//       timing `history --changes`
//   make_bench_data record STORE FIRST COUNT BENCHMARKS
//       default-branch runs FIRST … FIRST+COUNT-1, one record() each, timed, for
//       bench/store_timing.sh (several processes record disjoint ranges at once)
// Both store modes print how long the records took (generating the runs is not counted).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "store/store.hpp"
#include "synthetic.hpp"

namespace {

int usage() {
    std::cerr << "usage: make_bench_data gbench FILE BENCHMARKS REPETITIONS [SEED SLOWDOWN]\n"
                 "       make_bench_data history STORE RUNS BENCHMARKS\n"
                 "       make_bench_data steps STORE RUNS BENCHMARKS\n"
                 "       make_bench_data record STORE FIRST COUNT BENCHMARKS\n";
    return 2;
}

// Records `run` into `store`; returns the seconds record() took.
double timed_record(benchwatch::store::Store& store, const benchwatch::model::Run& run) {
    const auto start = std::chrono::steady_clock::now();
    store.record(run);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// "recorded 1000 runs (1000000 results) in 20.5 s: 48.8 runs/s, 48780 results/s"
void print_throughput(std::size_t runs, std::size_t results, double seconds) {
    std::cout << fmt::format(
        "recorded {} runs ({} results) in {:.2f} s: {:.1f} runs/s, {:.0f} "
        "results/s\n",
        runs, results, seconds, static_cast<double>(runs) / seconds,
        static_cast<double>(results) / seconds);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace benchwatch;
    if (argc == 6 && std::string(argv[1]) == "record") {
        auto store = store::open_store(argv[2]);
        const auto first = std::stoul(argv[3]);
        const auto count = std::stoul(argv[4]);
        const auto benchmarks = std::stoul(argv[5]);
        double seconds = 0;
        for (std::size_t run = first; run < first + count; ++run)
            seconds += timed_record(*store, bench::synthetic_run("synthetic", run, benchmarks, 1));
        print_throughput(count, count * benchmarks, seconds);
        return 0;
    }
    if (argc == 7 && std::string(argv[1]) == "gbench") {
        std::ofstream(argv[2]) << bench::google_benchmark_json(
            std::stoul(argv[3]), std::stoi(argv[4]), std::stoul(argv[5]), std::stod(argv[6]));
        return 0;
    }
    if (argc != 5) return usage();
    const std::string mode = argv[1];
    const std::string target = argv[2];
    const auto count = std::stoul(argv[3]);
    const auto second = std::stoul(argv[4]);
    if (mode == "gbench") {
        std::ofstream(target) << bench::google_benchmark_json(count, static_cast<int>(second), 1);
        return 0;
    }
    if (mode == "steps") {
        auto store = store::open_store(target);
        double seconds = 0;
        for (std::size_t run = 0; run < count; ++run)
            seconds += timed_record(*store, bench::stepped_run("synthetic", run, count, second, 1));
        print_throughput(count, count * second, seconds);
        return 0;
    }
    if (mode != "history") return usage();
    auto store = store::open_store(target);
    double seconds = 0;
    for (std::size_t run = 0; run < count; ++run)
        seconds += timed_record(*store, bench::synthetic_run("synthetic", run, second, 1));
    print_throughput(count, count * second, seconds);
    auto head = bench::synthetic_run("synthetic", count, second, 1);
    head.branch = "pr";
    store->record(head);
    std::cout << fmt::format(
        "{}: {} default-branch runs and one pull-request run ({}), {} "
        "benchmarks each\n",
        target, count, head.commit, second);
    return 0;
}
