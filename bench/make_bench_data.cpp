// Generates the large inputs that bench/cli_timing.sh times benchwatch on:
//   make_bench_data gbench FILE BENCHMARKS REPETITIONS
//   make_bench_data history STORE RUNS BENCHMARKS   (default-branch runs, then one "pr" run)
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "store/store.hpp"
#include "synthetic.hpp"

namespace {

int usage() {
    std::cerr << "usage: make_bench_data gbench FILE BENCHMARKS REPETITIONS\n"
                 "       make_bench_data history STORE RUNS BENCHMARKS\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace benchwatch;
    if (argc != 5) return usage();
    const std::string mode = argv[1];
    const std::string target = argv[2];
    const auto count = std::stoul(argv[3]);
    const auto second = std::stoul(argv[4]);
    if (mode == "gbench") {
        std::ofstream(target) << bench::google_benchmark_json(count, static_cast<int>(second), 1);
        return 0;
    }
    if (mode != "history") return usage();
    auto store = store::open_store(target);
    for (std::size_t run = 0; run < count; ++run)
        store->record(bench::synthetic_run("synthetic", run, second, 1));
    auto head = bench::synthetic_run("synthetic", count, second, 1);
    head.branch = "pr";
    store->record(head);
    std::cout << fmt::format(
        "{}: {} default-branch runs and one pull-request run ({}), {} "
        "benchmarks each\n",
        target, count, head.commit, second);
    return 0;
}
