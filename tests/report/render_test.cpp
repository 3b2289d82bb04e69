// What could break: the pull-request report drifting from docs/report.md (line order, blank lines,
// tables, sentences, escaping) or the text and JSON outputs disagreeing with it. Each scenario
// is rendered three ways and compared with approved files in tests/data/report/.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/method.hpp"
#include "compare/seed_method.hpp"
#include "golden.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "report/report.hpp"

namespace benchwatch::report {
namespace {

using model::Verdict;

constexpr std::size_t kPerformance = 0, kLatency = 1, kApplications = 2;

model::BenchmarkComparison benchmark(std::string name, std::size_t category, double base,
                                     double head, Verdict verdict = Verdict::Unchanged) {
    const auto categories = model::default_categories();
    model::BenchmarkComparison row;
    row.display_name = std::string(model::display_name(name, categories[category]));
    row.name = std::move(name);
    row.category = category;
    row.base = base;
    row.head = head;
    row.typical_change = 0.01;
    row.history_pairs = 29;
    row.threshold = std::log1p(categories[category].minimum_change);
    row.detectable_change = categories[category].minimum_change;
    row.verdict = verdict;
    return row;
}

model::Comparison comparison_with(std::vector<model::BenchmarkComparison> benchmarks,
                                  std::vector<model::CategorySummary> summaries) {
    model::Comparison comparison;
    comparison.method = compare::default_choice("seed");
    comparison.project = "cuda";
    comparison.machine = "ci-gpu-1";
    comparison.head_commit = "8a12729f00c0ffee8a12729f00c0ffee8a12729f";
    comparison.baseline = {model::BaselineKind::MergeBase,
                           "4eb6468cd5e1c0a3b2f1e0d9c8b7a6f5e4d3c2b1",
                           "4eb6468cd5e1c0a3b2f1e0d9c8b7a6f5e4d3c2b1", 0};
    comparison.history_order = model::HistoryOrder::Git;
    comparison.history_runs = 30;
    comparison.categories = model::default_categories();
    summaries.resize(comparison.categories.size());
    comparison.summaries = std::move(summaries);
    comparison.benchmarks = std::move(benchmarks);
    return comparison;
}

// Unusual rows in two categories (Performance and Latency), one category (Other) without
// benchmarks, and a noisy −15.6% that is not unusual.
model::Comparison unusual_in_two_categories() {
    auto comparison = comparison_with(
        {
            benchmark("array/copy", kPerformance, 33'300, 38'100, Verdict::Slower),
            benchmark("array/permutedims/4d", kPerformance, 50'240, 41'060, Verdict::Faster),
            benchmark("array/reverse/1d_inplace", kPerformance, 27'600, 23'300),
            benchmark("cuda/synchronization/context/nonblocking", kPerformance, 4'862, 7'354,
                      Verdict::Slower),
            benchmark("kernel/occupancy", kPerformance, 30, 30),
            benchmark("latency/import", kLatency, 1.27e9, 1.31e9),
            benchmark("latency/ttfp", kLatency, 1.69e9, 2.03e9, Verdict::Slower),
            benchmark("applications/bitonic_sort", kApplications, 1.05e6, 1.0499e6),
        },
        {
            // ratios 1.144144, 0.817277, 0.844203, 1.512546, 1: product 1.193999, ^(1/5) 1.0361
            {0.0361, 2, 1, 5},
            // ratios 1.031496, 1.201183: sqrt(1.239016) = 1.113111
            {0.1131, 1, 0, 2},
            // 1.0499 / 1.05 − 1 = −0.0000952
            {-0.0000952, 0, 0, 1},
        });
    comparison.history_url = "https://juliagpu.org/perf/?pkg=cuda";
    return comparison;
}

model::Comparison nothing_unusual() {
    return comparison_with(
        {
            benchmark("array/broadcast", kPerformance, 9'240, 9'340),
            benchmark("array/copyto!/gpu_to_cpu", kPerformance, 240'000, 239'990),
            benchmark("latency/precompile", kLatency, 5.43e9, 5.44e9),
        },
        {
            // sqrt(9340/9240 × 239990/240000) = sqrt(1.010823 × 0.999958) = 1.005390
            {0.00539, 0, 0, 2},
            // 5.44 / 5.43
            {0.001842, 0, 0, 1},
        });
}

model::Comparison with_environment_changes() {
    auto comparison = nothing_unusual();
    comparison.environment_changes = {
        {"BFloat16sExt", "10.4.2", "10.4.3"},
        {"CUDA_Runtime", std::nullopt, "12.6"},
        {"GPU", "A100", std::nullopt},
        {"LLVM", "10.4.2", "10.4.3"},
    };
    return comparison;
}

model::Comparison nearest_ancestor() {
    auto comparison = nothing_unusual();
    comparison.baseline = {model::BaselineKind::NearestAncestor,
                           "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c",
                           "6ecd201bb0a1b2c3d4e5f60718293a4b5c6d7e8f", 3};
    comparison.history_runs = 12;
    return comparison;
}

model::Comparison no_baseline() {
    model::Comparison comparison;
    comparison.method = compare::default_choice("seed");
    comparison.project = "amdgpu";
    comparison.machine = "ci-gpu-2";
    comparison.head_commit = "5ef8d18c74688836aaaabbbbccccddddeeeeffff";
    comparison.history_order = model::HistoryOrder::Recorded;
    comparison.categories = model::default_categories();
    comparison.summaries.resize(comparison.categories.size());
    auto result = [](std::string name, double value) {
        model::Result head;
        head.benchmark = std::move(name);
        head.value = value;
        return head;
    };
    // Deliberately unsorted: the report orders them by category, then by name.
    comparison.head_only_results = {
        result("latency/ttfp", 1.71e9),
        result("kernel/launch", 793),
        result("applications/histogram", 740'000),
        result("array/Broadcast", 21'600),
        result("array/accumulate/Float32/1d", 78'700),
        result("other/misc", 12),
    };
    comparison.history_url = "https://example.org/history";
    return comparison;
}

model::Comparison allocation_changes() {
    auto starts = benchmark("array/construct", kPerformance, 2'060, 2'068);
    starts.allocation_change = model::AllocationChange::Starts;
    starts.base_allocations = 0;
    starts.head_allocations = 3;
    auto stops = benchmark("array/sorting/1d", kPerformance, 294'000, 220'500, Verdict::Faster);
    stops.allocation_change = model::AllocationChange::Stops;
    stops.base_allocations = 12;
    stops.head_allocations = 0;
    return comparison_with({starts, stops, benchmark("kernel/rand", kPerformance, 28'400, 27'800)},
                           {
                               // 2068/2060 × 220500/294000 × 27800/28400 = 1.003883 × 0.75 ×
                               // 0.978873 = 0.737015, cube root 0.903550
                               {-0.09645, 0, 1, 3},
                           });
}

model::Comparison added_and_removed() {
    auto comparison = nothing_unusual();
    model::Result added_one, added_two, removed;
    added_one.benchmark = "kernel/shuffle";
    added_two.benchmark = "array/Zeros";
    removed.benchmark = "latency/old_ttfp";
    comparison.added = {added_one, added_two};
    comparison.removed = {removed};
    return comparison;
}

// Names and environment values from an untrusted pull request.
model::Comparison hostile_names() {
    auto comparison = comparison_with(
        {
            benchmark("@someone", kPerformance, 100, 200, Verdict::Slower),
            benchmark("`rm -rf`", kPerformance, 100, 101),
            benchmark("<img src=x onerror=alert(1)>", kPerformance, 100, 99),
            benchmark("a|b", kPerformance, 100, 100),
            benchmark("line\nbreak", kPerformance, 100, 100),
        },
        {{0.1487, 1, 0, 5}});  // (2 × 1.01 × 0.99)^(1/5) = 1.99980^(1/5) = 1.148658
    comparison.environment_changes = {{"driver|x", "<b>1</b>", "@dependabot"}};
    model::Result added;
    added.benchmark = "new|<script>";
    comparison.added = {added};
    return comparison;
}

// Throughput improves as it grows: the compare layer set Slower for the drop; the report shows
// the row's change as it is (−20.0%) with that verdict, and the summary's mean as a slowdown.
model::Comparison bigger_is_better() {
    auto throughput = benchmark("io/read", kPerformance, 1.25e9, 1e9, Verdict::Slower);
    throughput.metric = "throughput";
    throughput.display_name = "io/read (throughput)";
    throughput.unit = "B/s";
    throughput.direction = model::Direction::BiggerIsBetter;
    // The category's mean counts the drop as a slowdown: 1.25 / 1.00 − 1 = +25%.
    auto comparison = comparison_with({throughput}, {{0.25, 1, 0, 1}});
    comparison.baseline.kind = model::BaselineKind::Explicit;
    comparison.method.settings<compare::SeedSettings>().factor = 2.5;
    comparison.categories[kLatency].minimum_change = 0.025;
    return comparison;
}

const model::Environment kMachine = {
    {"os", "Debian GNU/Linux 12 (bookworm)"},
    {"kernel", "6.1.0-18-amd64"},
    {"arch", "x86_64"},
    {"cpu", "AMD EPYC 7B13"},
    {"cores", "2"},
    {"memory", "23.4 GiB"},
    {"gpu", "NVIDIA A100-SXM4-40GB"},
    {"gpu.driver", "535.104.05"},
};

const model::Warning kGovernorWarning{
    "cpu-governor",
    "2 of 2 CPUs use the 'powersave' frequency governor, which lets the clock speed change "
    "during a run; switch to 'performance' with `sudo cpupower frequency-set -g performance`."};

// A run measured by `benchwatch run`: every machine key, and warnings for both sides, one of
// them naming untrusted benchmarks.
model::Comparison machine_and_warnings() {
    auto comparison = nothing_unusual();
    comparison.machine_environment = kMachine;
    comparison.head_warnings = {
        kGovernorWarning,
        {"few-samples",
         "2 benchmarks have fewer than 5 samples (a|b, @someone); give them more time or "
         "repetitions so that the minimum is meaningful."},
    };
    comparison.baseline_warnings = {
        {"high-load",
         "The load average was 3.10 at start on 2 cores; stop other work on the machine so that "
         "it does not compete with the benchmarks."},
    };
    return comparison;
}

// The baseline was measured on another machine, and a toolchain key changed too.
model::Comparison machine_changed() {
    auto comparison = nothing_unusual();
    comparison.environment_changes = {{"compiler.gcc", "gcc 12.2.0", "gcc 13.1.0"}};
    comparison.machine_environment = {
        {"os", "Debian GNU/Linux 12 (bookworm)"},
        {"cpu", "AMD EPYC 7B13"},
        {"cores", "1"},
        {"memory", "7.8 GiB"},
    };
    comparison.machine_changes = {
        {"cores", "2", "1"},
        {"cpu", "AMD EPYC 7402", "AMD EPYC 7B13"},
        {"gpu", "NVIDIA A100", std::nullopt},
    };
    return comparison;
}

// Nothing to compare with, but the head's machine and warnings are still worth reading.
model::Comparison warnings_without_baseline() {
    auto comparison = no_baseline();
    comparison.machine_environment = {{"cpu", "AMD EPYC 7B13"}, {"cores", "2"}};
    comparison.head_warnings = {{"debug-harness",
                                 "Google Benchmark is a debug build; build it and the benchmarks "
                                 "with -DCMAKE_BUILD_TYPE=Release so that the times are "
                                 "representative."}};
    return comparison;
}

// A calibration to a budget of 1 with the fields the report shows set by name.
model::Calibration calibration_of(model::CalibrationSource source, double sensitivity,
                                  int pull_requests, double flukes_per_pr) {
    model::Calibration calibration;
    calibration.source = source;
    calibration.budget = 1;
    calibration.sensitivity = sensitivity;
    calibration.pull_requests = pull_requests;
    calibration.flukes_per_pr = flukes_per_pr;
    return calibration;
}

// The level method: its own paragraph, the whole suite 40% faster in this run, one benchmark
// slower than both its level and the suite, one with too short a history (inconclusive), and
// detectable changes; its sensitivity was calibrated to one false alarm per pull request, and
// the paragraph rounds it to three digits.
model::Comparison level_with_suite_move() {
    auto kernel = benchmark("kernel/launch", kPerformance, 10'000, 9'000);
    kernel.detectable_change = 0.25;
    auto copy = benchmark("array/copy", kPerformance, 40'000, 46'000, Verdict::Slower);
    copy.detectable_change = 0.08;
    auto fresh = benchmark("array/fill", kPerformance, 1'000, 700, Verdict::Inconclusive);
    auto comparison = comparison_with(
        {copy, fresh, kernel},
        {
            // 46000/40000 × 700/1000 × 9000/10000 = 1.15 × 0.7 × 0.9 = 0.7245, ^(1/3) = 0.8982
            {-0.1018, 1, 0, 3},
        });
    comparison.method = compare::default_choice("level");
    // The price of a fluke a budget shared by noise was calibrated to.
    comparison.method.settings<compare::LevelSettings>().sensitivity = 2.4;
    comparison.calibration = calibration_of(model::CalibrationSource::Calibrated, 2.4, 75, 0.62);
    comparison.calibration.expected_flukes_per_pr = 0.84;
    comparison.calibration.prior_weight = 10.0 / 85.0;
    comparison.calibration.replay_weight = 0.91;
    comparison.suite_move = -0.4;
    return comparison;
}

// The level method with one calibrated factor for every benchmark instead of a budget shared by
// noise, and no move of the suite.
model::Comparison level_one_factor() {
    auto comparison = level_with_suite_move();
    comparison.method.settings<compare::LevelSettings>().allocation =
        compare::BudgetAllocation::OneFactor;
    comparison.method.settings<compare::LevelSettings>().sensitivity = 1.73421;
    comparison.calibration =
        calibration_of(model::CalibrationSource::Calibrated, 1.73421, 75, 0.66);
    comparison.suite_move = 0;
    return comparison;
}

// level_one_factor(), its calibration read from the store's cache.
model::Comparison level_from_cache() {
    auto comparison = level_one_factor();
    comparison.calibration.from_cache = true;
    return comparison;
}

// level_one_factor(), calibrated again because the cached calibration was out of range.
model::Comparison level_cache_refused() {
    auto comparison = level_one_factor();
    comparison.calibration.cache_refusal =
        "its sensitivity 1e+06 is outside 0.5 to 20, the range calibration chooses from";
    return comparison;
}

// Two result files judged by the samples method: a slowdown beyond its noise, a speed-up within
// it, a benchmark without samples (inconclusive) and one too noisy to judge, with the run-to-run
// spread the suite showed and the whole suite 8% slower, which each benchmark was judged against.
model::Comparison two_files() {
    auto parse = benchmark("BM_Parse/1000", kPerformance, 20'000, 26'000, Verdict::Slower);
    parse.typical_change = 0.04;
    parse.threshold = 0.15;
    parse.detectable_change = 0.1618;
    auto sort = benchmark("BM_Sort/64", kPerformance, 11'000, 10'500);
    sort.typical_change = 0.04;
    sort.threshold = 0.15;
    sort.detectable_change = 0.1618;
    auto join = benchmark("BM_Join/64", kPerformance, 620, 700, Verdict::Inconclusive);
    join.typical_change = 0;
    join.threshold = 0;
    join.detectable_change = 0;
    auto words = benchmark("BM_Words/4096", kPerformance, 4'300, 6'100, Verdict::TooNoisy);
    words.typical_change = 0.2;
    words.threshold = 0.75;
    words.detectable_change = 1.117;
    auto comparison = comparison_with(
        {join, parse, sort, words},
        {
            // 700/620 × 26000/20000 × 10500/11000 × 6100/4300 = 1.9873, ^(1/4) = 1.1873
            {0.1873, 1, 0, 4, 1},
        });
    comparison.project.clear();
    comparison.machine.clear();
    comparison.head_commit = "results/head.json";
    comparison.baseline = {model::BaselineKind::Files, "results/base.json", "", 0};
    comparison.history_order = model::HistoryOrder::None;
    comparison.history_runs = 0;
    comparison.method = compare::default_choice("samples");
    comparison.calibration = {};
    comparison.run_to_run_spread = 0.0392;
    comparison.suite_move = 0.08;
    return comparison;
}

// The same benchmarks judged by the samples method on stored runs, a head against its merge
// base with 20 default-branch runs of history: the report says that a benchmark's own history
// of moves can widen its noise.
model::Comparison samples_with_history() {
    auto comparison = two_files();
    comparison.project = "textkit";
    comparison.head_commit = "2222222222222222222222222222222222222222";
    comparison.baseline = {model::BaselineKind::MergeBase,
                           "1111111111111111111111111111111111111111", "", 0};
    comparison.history_order = model::HistoryOrder::Git;
    comparison.history_runs = 20;
    return comparison;
}

// A row as the level method leaves it: able to flag changes beyond `detectable`.
model::BenchmarkComparison judged(model::BenchmarkComparison row, double detectable) {
    row.detectable_change = detectable;
    row.threshold = std::log1p(detectable);
    return row;
}

model::Comparison level_comparison(std::vector<model::BenchmarkComparison> benchmarks,
                                   std::vector<model::CategorySummary> summaries) {
    auto comparison = comparison_with(std::move(benchmarks), std::move(summaries));
    comparison.method = compare::default_choice("level");
    return comparison;
}

// The line under the summary: the median of the detectable changes 3.5%, 4.2%, 5%, 9% and 28%
// is 5.0%, and the noisiest is kernel/launch at 28%, just inside ten times its category's 3%.
model::Comparison level_detectable_change() {
    return level_comparison(
        {
            judged(benchmark("array/copy", kPerformance, 40'000, 40'400), 0.042),
            judged(benchmark("array/fill", kPerformance, 1'000, 990), 0.035),
            judged(benchmark("array/sort", kPerformance, 50'000, 60'000, Verdict::Slower), 0.09),
            judged(benchmark("kernel/launch", kPerformance, 10'000, 11'500), 0.28),
            judged(benchmark("latency/ttfp", kLatency, 1.69e9, 1.70e9), 0.05),
        },
        {
            // 1.01 × 0.99 × 1.2 × 1.15 = 1.379862, ^(1/4) = 1.083824
            {0.083824, 1, 0, 4},
            // 1.70 / 1.69 = 1.005917
            {0.005917, 0, 0, 1},
        });
}

// The levels of level_detectable_change() taken without four default-branch runs in which the
// whole suite ran 42.5% slower and came back (a slow spell of the machine); the names of six
// more runs recorded under load are cut to the first five.
model::Comparison level_slow_spell_left_out() {
    auto comparison = level_detectable_change();
    comparison.left_out_runs = {
        "8b2c4e6f0a1d3c5e7f9b1d3f5a7c9e1b3d5f7a9c", "7a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b",
        "6f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e", "5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d",
        "4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c", "3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"};
    comparison.left_out_move = 0.425;
    return comparison;
}

// The same runs moved at the newest end of the history: not known yet whether they come back.
model::Comparison level_slow_spell_unsettled() {
    auto comparison = level_slow_spell_left_out();
    comparison.left_out_runs.resize(4);
    comparison.left_out_unsettled = true;
    return comparison;
}

// The pull request's run recorded under load while the default branch's were not: the slowdown
// it showed is left inconclusive, and the report says why.
model::Comparison level_head_under_load() {
    auto comparison = level_detectable_change();
    comparison.head_under_load = true;
    comparison.head_warnings = {{"high-load",
                                 "Other work kept 1.9 of 2 cores busy while the benchmarks ran; "
                                 "stop it, or measure base and head side by side (benchwatch "
                                 "compare --paired), so that it does not compete with the "
                                 "benchmarks."}};
    // array/sort's +20% is no longer counted as slower.
    comparison.benchmarks[2].verdict = Verdict::Inconclusive;
    comparison.summaries[0].slower = 0;
    return comparison;
}

// Benchmarks that benchwatch.toml ignores, listed once at the end whatever their names hold, and
// a slowdown that a maintainer accepted by label: still shown, said to pass the check. The
// acceptance is never written to JSON, which a pull request's own code may write.
model::Comparison ignored_and_accepted() {
    auto comparison = level_detectable_change();
    comparison.ignored = {"BM_Flaky/1", "net/<b>ping</b>|`x`", "net/pong"};
    comparison.accepted = model::Acceptance{"performance-accepted", "main_tainer"};
    return comparison;
}

// A suite counted under callgrind: each benchmark's instructions and estimated cycles, judged
// against the counted minimum of 0.2% with no noise in their history; BM_Parse executes 1% more
// instructions (and 1.2% more cycles) per iteration and is flagged.
model::Comparison level_counted_instructions() {
    const auto counted = [](std::string name, std::string metric, double base, double head,
                            Verdict verdict = Verdict::Unchanged) {
        auto row = judged(benchmark(std::move(name), kPerformance, base, head, verdict), 0.002);
        row.display_name = model::with_metric(row.display_name, metric);
        row.unit = metric == "instructions" ? "instr" : "cycles";
        row.metric = std::move(metric);
        row.typical_change = 0;
        return row;
    };
    return level_comparison(
        {
            counted("BM_Parse", "instructions", 2'010, 2'030.1, Verdict::Slower),
            counted("BM_Parse", "estimated_cycles", 2'500, 2'530, Verdict::Slower),
            counted("BM_Sort/64", "instructions", 109'000, 109'000),
            counted("BM_Sort/64", "estimated_cycles", 131'000, 131'000),
        },
        {
            // 1.01 × 1.012 = 1.02212, ^(1/4) = 1.005486
            {0.005486, 2, 0, 4},
        });
}

// A noisy machine: two benchmarks could flag only changes far beyond ten times 3% and were not
// flagged, so they are too noisy to judge (+76.9% among them); one as noisy was flagged (+200%)
// and stays flagged. The detectable changes 4%, 6%, 80%, 100% and 450% have the median 80%.
model::Comparison level_too_noisy() {
    return level_comparison(
        {
            judged(benchmark("flate/Compress", kPerformance, 3'000, 2'400, Verdict::TooNoisy), 0.8),
            judged(benchmark("hash/Sum", kPerformance, 800, 792), 0.04),
            judged(benchmark("json/Decode", kPerformance, 5'000, 15'000, Verdict::Slower), 1.0),
            judged(benchmark("json/Encode", kPerformance, 2'000, 3'538, Verdict::TooNoisy), 4.5),
            judged(benchmark("json/Parse", kPerformance, 1'000, 1'010), 0.06),
        },
        {
            // 0.8 × 0.99 × 3 × 1.769 × 1.01 = 4.245175, ^(1/5) = 1.335301
            {0.335301, 1, 0, 5, 2},
        });
}

// Nothing could be judged: two benchmarks too noisy (100% and 450%), and one with a single run
// of history, which gives it no threshold at all (+78.0% inconclusive).
model::Comparison level_nothing_judged() {
    auto parse = benchmark("json/Parse", kPerformance, 1'000, 1'780, Verdict::Inconclusive);
    parse.typical_change = 0;
    parse.history_pairs = 0;
    parse.threshold = 0;
    parse.detectable_change = 0;
    auto comparison = level_comparison(
        {
            judged(benchmark("json/Decode", kPerformance, 5'000, 5'100, Verdict::TooNoisy), 1.0),
            judged(benchmark("json/Encode", kPerformance, 2'000, 3'538, Verdict::TooNoisy), 4.5),
            parse,
        },
        {
            // 1.02 × 1.769 × 1.78 = 3.211796, ^(1/3) = 1.475421
            {0.475421, 0, 0, 3, 2},
        });
    comparison.history_runs = 12;
    // Twelve runs replay no pull request yet (the first needs 16): the price comes from the
    // prior tail applied to each benchmark's own noise.
    comparison.method.settings<compare::LevelSettings>().sensitivity = 0.5;
    comparison.calibration = calibration_of(model::CalibrationSource::Calibrated, 0.5, 0, 0);
    comparison.calibration.expected_flukes_per_pr = 0.85;
    comparison.calibration.prior_weight = 1;
    return comparison;
}

// The flagged changes of unusual_in_two_categories() re-measured by `compare --confirm`: the
// copy slowdown confirmed, the permutedims speed-up confirmed, the synchronization slowdown a
// dismissed fluke, and latency/ttfp left undecided by the time budget.
model::Comparison confirmed_changes() {
    auto comparison = unusual_in_two_categories();
    model::Confirmation confirmation;
    confirmation.base_command = "[measure] run at " + comparison.baseline.commit;
    confirmation.head_command = "[measure] run at " + comparison.head_commit;
    confirmation.report = "the comparison above";
    confirmation.max_rounds = 30;
    confirmation.time_budget_seconds = 600;
    confirmation.rounds = 12;
    confirmation.first_deciding_round = 8;
    confirmation.stop = model::ConfirmationStop::TimeBudget;
    const auto row = [](std::string name, model::Verdict flagged, double flagged_change,
                        double change, std::optional<double> low, std::optional<double> high,
                        int rounds, model::ConfirmationVerdict verdict, model::Verdict measured) {
        model::ConfirmedBenchmark benchmark;
        benchmark.name = std::move(name);
        benchmark.flagged = flagged;
        benchmark.flagged_change = flagged_change;
        benchmark.boundary = std::sqrt(1 + flagged_change) - 1;
        benchmark.change = change;
        benchmark.change_low = low;
        benchmark.change_high = high;
        benchmark.rounds = rounds;
        benchmark.verdict = verdict;
        benchmark.measured = measured;
        return benchmark;
    };
    using C = model::ConfirmationVerdict;
    confirmation.benchmarks = {
        // 38'100 / 33'300 − 1 = 0.144144
        row("array/copy", Verdict::Slower, 0.144144, 0.139, 0.121, 0.158, 8, C::Confirmed,
            Verdict::Slower),
        // 41'060 / 50'240 − 1 = −0.182723
        row("array/permutedims/4d", Verdict::Faster, -0.182723, -0.176, -0.19, -0.161, 8,
            C::Confirmed, Verdict::Faster),
        // 7'354 / 4'862 − 1 = 0.512546
        row("cuda/synchronization/context/nonblocking", Verdict::Slower, 0.512546, 0.004, -0.02,
            0.031, 9, C::Dismissed, Verdict::Unchanged),
        // 2.03e9 / 1.69e9 − 1 = 0.201183
        row("latency/ttfp", Verdict::Slower, 0.201183, 0.09, std::nullopt, std::nullopt, 12,
            C::Undecided, Verdict::Unchanged),
    };
    comparison.confirmation = std::move(confirmation);
    compare::settle_by_confirmation(comparison);
    return comparison;
}

// The same flags, every one dismissed by re-measuring: the report has no unusual change left.
model::Comparison every_flag_dismissed() {
    auto comparison = unusual_in_two_categories();
    model::Confirmation confirmation;
    confirmation.base_command = "[measure] run at " + comparison.baseline.commit;
    confirmation.head_command = "[measure] run at " + comparison.head_commit;
    confirmation.report = "the comparison above";
    confirmation.max_rounds = 30;
    confirmation.time_budget_seconds = 600;
    confirmation.rounds = 9;
    confirmation.first_deciding_round = 8;
    confirmation.stop = model::ConfirmationStop::AllDecided;
    for (const auto& benchmark : comparison.benchmarks) {
        if (!model::flags_change(benchmark.verdict)) continue;
        model::ConfirmedBenchmark dismissed;
        dismissed.name = benchmark.name;
        dismissed.flagged = benchmark.verdict;
        dismissed.flagged_change = benchmark.change();
        dismissed.boundary = std::sqrt(1 + benchmark.change()) - 1;
        dismissed.change = 0.004;
        dismissed.change_low = -0.02;
        dismissed.change_high = 0.031;
        dismissed.rounds = 9;
        dismissed.verdict = model::ConfirmationVerdict::Dismissed;
        confirmation.benchmarks.push_back(dismissed);
    }
    comparison.confirmation = std::move(confirmation);
    compare::settle_by_confirmation(comparison);
    return comparison;
}

// Base and head measured side by side in 14 rounds: array/copy confirmed 12.1% slower,
// kernel/launch unchanged within 3%, latency/ttfp left undecided when the budget ended.
model::Comparison paired_side_by_side() {
    model::Confirmation rounds;
    rounds.base_command = "[measure] run at 4eb6468cd0d5d8e8d6c3a7b2f1e0d9c8b7a6f5e4";
    rounds.head_command = "[measure] run at 9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e";
    rounds.alpha = 1.0 / 3;
    rounds.false_alarms_per_suite = 1;
    rounds.max_rounds = 10000;
    rounds.time_budget_seconds = 600;
    rounds.rounds = 14;
    rounds.first_deciding_round = 4;
    rounds.stop = model::ConfirmationStop::TimeBudget;
    const auto row = [](std::string name, double base, double change, double low, double high,
                        int count, model::ConfirmationVerdict verdict, Verdict measured) {
        model::ConfirmedBenchmark benchmark;
        benchmark.name = std::move(name);
        benchmark.unit = "ns";
        benchmark.base_median = base;
        benchmark.change = change;
        benchmark.change_low = low;
        benchmark.change_high = high;
        benchmark.rounds = count;
        benchmark.boundary = 0.03;
        benchmark.verdict = verdict;
        benchmark.measured = measured;
        return benchmark;
    };
    using C = model::ConfirmationVerdict;
    rounds.benchmarks = {
        row("array/copy", 33'300, 0.121, 0.082, 0.166, 6, C::Confirmed, Verdict::Slower),
        row("kernel/launch", 10'000, 0.004, -0.012, 0.019, 11, C::Dismissed, Verdict::Unchanged),
        row("latency/ttfp", 1.69e9, 0.031, -0.04, 0.11, 14, C::Undecided, Verdict::Unchanged),
    };
    return compare::paired_comparison(
        std::move(rounds),
        {"cuda", "gpu1", "4eb6468cd0d5d8e8d6c3a7b2f1e0d9c8b7a6f5e4",
         "9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e"},
        {{"Performance", {"array/", "kernel/"}, 0.03}, {"Latency", {"latency/"}, 0.05}});
}

// Side by side with nothing decided when the budget ended.
model::Comparison paired_nothing_decided() {
    auto comparison = paired_side_by_side();
    for (auto& benchmark : comparison.confirmation->benchmarks)
        benchmark.verdict = model::ConfirmationVerdict::Undecided;
    return compare::paired_comparison(
        *comparison.confirmation,
        {"cuda", "gpu1", comparison.baseline.commit, comparison.head_commit},
        {{"Performance", {"array/", "kernel/"}, 0.03}, {"Latency", {"latency/"}, 0.05}});
}

struct Scenario {
    const char* name;
    model::Comparison (*make)();
};

// Names the scenario in ctest's test names, which would otherwise hold its addresses and change
// with every build (so that `ctest --rerun-failed` could not find them).
void PrintTo(const Scenario& scenario, std::ostream* out) {
    *out << scenario.name;
}

class Report : public ::testing::TestWithParam<Scenario> {};

TEST_P(Report, MarkdownMatchesTheApprovedFile) {
    std::ostringstream out;
    render_markdown(GetParam().make(), out);
    testing::expect_golden(out.str(), std::string(GetParam().name) + ".md");
}

TEST_P(Report, TextWithoutColourMatchesTheApprovedFile) {
    std::ostringstream out;
    render_text(GetParam().make(), out, false);
    testing::expect_golden(out.str(), std::string(GetParam().name) + ".txt");
}

TEST_P(Report, JsonMatchesTheApprovedFile) {
    std::ostringstream out;
    render_json(GetParam().make(), out);
    testing::expect_golden(out.str(), std::string(GetParam().name) + ".json");
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, Report,
    ::testing::Values(
        Scenario{"unusual_in_two_categories", unusual_in_two_categories},
        Scenario{"nothing_unusual", nothing_unusual},
        Scenario{"environment_changes", with_environment_changes},
        Scenario{"nearest_ancestor", nearest_ancestor}, Scenario{"no_baseline", no_baseline},
        Scenario{"allocation_changes", allocation_changes},
        Scenario{"added_and_removed", added_and_removed}, Scenario{"hostile_names", hostile_names},
        Scenario{"bigger_is_better", bigger_is_better},
        Scenario{"machine_and_warnings", machine_and_warnings},
        Scenario{"machine_changed", machine_changed},
        Scenario{"warnings_without_baseline", warnings_without_baseline},
        Scenario{"level_with_suite_move", level_with_suite_move},
        Scenario{"level_one_factor", level_one_factor},
        Scenario{"level_from_cache", level_from_cache},
        Scenario{"level_cache_refused", level_cache_refused},
        Scenario{"level_detectable_change", level_detectable_change},
        Scenario{"level_too_noisy", level_too_noisy},
        Scenario{"level_slow_spell_left_out", level_slow_spell_left_out},
        Scenario{"level_head_under_load", level_head_under_load},
        Scenario{"ignored_and_accepted", ignored_and_accepted},
        Scenario{"level_slow_spell_unsettled", level_slow_spell_unsettled},
        Scenario{"level_counted_instructions", level_counted_instructions},
        Scenario{"level_nothing_judged", level_nothing_judged},
        Scenario{"confirmed_changes", confirmed_changes},
        Scenario{"every_flag_dismissed", every_flag_dismissed},
        Scenario{"paired_side_by_side", paired_side_by_side},
        Scenario{"paired_nothing_decided", paired_nothing_decided},
        Scenario{"two_files", two_files}, Scenario{"samples_with_history", samples_with_history}),
    [](const auto& scenario) { return std::string(scenario.param.name); });

// A comparison read from elsewhere may leave benchmarks outside every category; they are shown
// under the catch-all's name, as compare files them.
TEST(RenderMarkdown, BenchmarksOfNoCategoryShowUnderTheCatchAllsName) {
    auto comparison = nothing_unusual();
    comparison.categories = {{"Latency", {"latency/"}, 0.05}};
    comparison.summaries.resize(1);
    comparison.benchmarks[0].category = 1;
    comparison.benchmarks[1].category = 1;
    comparison.benchmarks[2].category = 0;
    std::ostringstream markdown, text;
    render_markdown(comparison, markdown);
    render_text(comparison, text, false);
    EXPECT_NE(markdown.str().find("| **Performance** | | | |\n"), std::string::npos)
        << markdown.str();
    EXPECT_NE(text.str().find("\nPerformance\n"), std::string::npos) << text.str();
    EXPECT_EQ(markdown.str().find("Uncategorized"), std::string::npos);
    EXPECT_EQ(text.str().find("Uncategorized"), std::string::npos);
}

TEST(RenderText, ColoursVerdictsOnlyWhenAsked) {
    std::ostringstream coloured, plain;
    render_text(unusual_in_two_categories(), coloured, true);
    render_text(unusual_in_two_categories(), plain, false);
    EXPECT_NE(coloured.str().find("\033[31mslower\033[0m"), std::string::npos);
    EXPECT_NE(coloured.str().find("\033[32mfaster\033[0m"), std::string::npos);
    EXPECT_EQ(plain.str().find('\033'), std::string::npos);
}

TEST(RenderText, NamesCannotSendTerminalEscapes) {
    auto comparison = nothing_unusual();
    comparison.benchmarks[0].display_name = "evil\033[2Jname";
    std::ostringstream out;
    render_text(comparison, out, false);
    EXPECT_EQ(out.str().find('\033'), std::string::npos);
    EXPECT_NE(out.str().find("evil [2Jname"), std::string::npos);
}

TEST(RenderMarkdown, EndsWithExactlyOneNewline) {
    for (auto make : {unusual_in_two_categories, nothing_unusual, no_baseline}) {
        std::ostringstream out;
        render_markdown(make(), out);
        const auto text = out.str();
        ASSERT_GE(text.size(), 2u);
        EXPECT_EQ(text.back(), '\n');
        EXPECT_NE(text[text.size() - 2], '\n');
    }
}

// The second line of the Markdown report: the sentence saying what the head is compared with.
std::string baseline_line(const model::Comparison& comparison) {
    std::ostringstream out;
    render_markdown(comparison, out);
    std::istringstream lines(out.str());
    std::string line;
    std::getline(lines, line);
    std::getline(lines, line);
    std::getline(lines, line);
    return line;
}

TEST(RenderMarkdown, BaselineSentenceForEveryKind) {
    auto comparison = nearest_ancestor();
    comparison.baseline.commits_earlier = 1;
    EXPECT_EQ(baseline_line(comparison),
              "Compared with 1f2e3d4c5, the nearest benchmarked ancestor of the merge base "
              "6ecd201bb (1 commit earlier).");
    comparison.baseline.kind = model::BaselineKind::LatestOnDefaultBranch;
    EXPECT_EQ(baseline_line(comparison),
              "Compared with 1f2e3d4c5, the latest run recorded on the default branch (no git "
              "history to find the merge base).");
    // An id that is not a SHA (outside git) is shown whole rather than cut to 9 characters.
    comparison.baseline = {model::BaselineKind::Explicit, "release-2024", "", 0};
    EXPECT_EQ(baseline_line(comparison), "Compared with release-2024.");
    comparison.baseline = {model::BaselineKind::Files, "old/run.json", "", 0};
    comparison.head_commit = "new/run.json";
    EXPECT_EQ(baseline_line(comparison),
              "Compared new/run.json with old/run.json, file against file: two runs without a "
              "history, judged by the samples each carries.");
}

TEST(RenderMarkdown, ExplanationNamesTheConfiguredFactorAndMinimums) {
    std::ostringstream out;
    render_markdown(bigger_is_better(), out);
    EXPECT_NE(out.str().find("exceeds both 2.5 times the benchmark's typical change"),
              std::string::npos);
    EXPECT_NE(out.str().find("(performance 3%, latency 2.5%, applications 3%, other 3%)"),
              std::string::npos);
}

std::string markdown_of(const model::Comparison& comparison) {
    std::ostringstream out;
    render_markdown(comparison, out);
    return out.str();
}

TEST(RenderMarkdown, ASuiteMoveThatRoundsToNothingIsNotReported) {
    // −0.04% prints as −0.0%: no sentence. −0.05% prints as −0.1% and is said, for both methods.
    for (const auto make : {level_with_suite_move, two_files}) {
        auto comparison = make();
        comparison.suite_move = -0.0004;
        EXPECT_EQ(markdown_of(comparison).find("The whole suite moved"), std::string::npos);
        comparison.suite_move = -0.0005;
        EXPECT_NE(markdown_of(comparison).find("The whole suite moved by \u22120.1%"),
                  std::string::npos);
    }
}

std::string limited_markdown_of(const model::Comparison& comparison, std::size_t limit) {
    std::ostringstream out;
    render_markdown_limited(comparison, out, limit);
    return out.str();
}

// `count` Performance benchmarks with long names; benchmark i changes by i × 0.001%, and every
// 100th is unusually slower (twice as slow).
model::Comparison many_benchmarks(int count) {
    std::vector<model::BenchmarkComparison> rows;
    int slower = 0;
    for (int i = 0; i < count; ++i) {
        const bool unusual = i % 100 == 99;
        slower += unusual ? 1 : 0;
        rows.push_back(
            benchmark(fmt::format("suite/group{:02}/a_benchmark_with_a_long_name_{:05}", i % 40, i),
                      kPerformance, 1000, unusual ? 2000 : 1000 * (1 + i * 1e-5),
                      unusual ? Verdict::Slower : Verdict::Unchanged));
    }
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return model::name_less(a.name, b.name); });
    return comparison_with(std::move(rows), {{0.01, slower, 0, count}});
}

// Lines of a Markdown table are whole: each that starts with "| " ends with " |".
void expect_whole_table_rows(const std::string& text) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("| ")) {
            EXPECT_TRUE(line.ends_with(" |")) << line;
        }
}

TEST(MarkdownLimited, ReportThatFitsIsTheWholeReport) {
    const auto comparison = unusual_in_two_categories();
    const std::string whole = markdown_of(comparison);
    EXPECT_EQ(limited_markdown_of(comparison, whole.size()), whole);
    EXPECT_EQ(limited_markdown_of(comparison, 65'536), whole);
}

TEST(MarkdownLimited, OneByteOverDropsTheSmallestChangesOfAllBenchmarks) {
    const auto comparison = unusual_in_two_categories();
    const std::size_t limit = markdown_of(comparison).size() - 1;
    const std::string text = limited_markdown_of(comparison, limit);
    EXPECT_LE(text.size(), limit);
    testing::expect_golden(text, "unusual_in_two_categories.limited.md");
}

TEST(MarkdownLimited, ThreeHundredThousandCharactersFitGitHubsLimit) {
    const auto comparison = many_benchmarks(4000);
    const std::string whole = markdown_of(comparison);
    ASSERT_GT(whole.size(), 300'000u);
    const std::string text = limited_markdown_of(comparison, 65'536);
    EXPECT_LE(text.size(), 65'536u);
    EXPECT_GT(text.size(), 60'000u);  // the room is used, not wasted
    expect_whole_table_rows(text);
    // The 40 unusual rows stay, in their table and in All benchmarks.
    for (int i = 99; i < 4000; i += 100) {
        const std::string name = fmt::format("a_benchmark_with_a_long_name_{:05}", i);
        const auto first = text.find(name);
        ASSERT_NE(first, std::string::npos) << name;
        EXPECT_NE(text.find(name, first + 1), std::string::npos) << name;
    }
    // All benchmarks keeps the largest changes: benchmark i changed by i × 0.001%, so what is
    // left out is exactly the lowest-numbered ones that are not unusual.
    const auto note_at = text.find(" of 4000 benchmarks are left out of this table");
    ASSERT_NE(note_at, std::string::npos);
    const auto count_at = text.rfind('_', note_at) + 1;
    const int left_out = std::stoi(text.substr(count_at, note_at - count_at));
    EXPECT_GT(left_out, 3000);
    int first_kept = 0;
    for (int ordinary = 0; ordinary < left_out; ++first_kept)
        if (first_kept % 100 != 99) ++ordinary;
    EXPECT_EQ(text.find(fmt::format("a_benchmark_with_a_long_name_{:05}", first_kept - 1)),
              std::string::npos);
    EXPECT_NE(text.find(fmt::format("a_benchmark_with_a_long_name_{:05}", first_kept)),
              std::string::npos);
    EXPECT_NE(text.find(fmt::format(
                  "\n_{} of 4000 benchmarks are left out of this table to keep the report under "
                  "65536 characters: those that changed least. `benchwatch compare --format text` "
                  "lists them all._\n\n</details>\n",
                  left_out)),
              std::string::npos);
}

TEST(MarkdownLimited, UnusualTableShrinksOnlyWhenAllBenchmarksIsEmpty) {
    const auto comparison = many_benchmarks(4000);
    // Room for the summary and about half of the 40 unusual rows.
    const std::string text = limited_markdown_of(comparison, 4'000);
    EXPECT_LE(text.size(), 4'000u);
    expect_whole_table_rows(text);
    EXPECT_NE(text.find("of 40 unusual changes are left out of this table"), std::string::npos);
    EXPECT_NE(text.find("4000 of 4000 benchmarks are left out of this table"), std::string::npos);
    EXPECT_NE(text.find("</details>"), std::string::npos);
}

TEST(MarkdownLimited, TextBeyondAnyTableIsCutAtALineAndSaysSo) {
    const auto comparison = unusual_in_two_categories();
    const std::string text = limited_markdown_of(comparison, 300);
    EXPECT_LE(text.size(), 300u);
    EXPECT_TRUE(text.starts_with("## Benchmark results\n"));
    EXPECT_TRUE(text.ends_with("\n_The report was cut here at the size limit._\n")) << text;
}

}  // namespace
}  // namespace benchwatch::report
