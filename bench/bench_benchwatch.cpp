// Hot paths of benchwatch, each on inputs of the size the goals in docs/PERFORMANCE.md name.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "ingest/ingest.hpp"
#include "model/comparison.hpp"
#include "report/report.hpp"
#include "stats/stats.hpp"
#include "synthetic.hpp"

namespace {

using namespace benchwatch;

void TypicalChangeOf31Values(benchmark::State& state) {
    std::vector<double> series;
    for (int i = 0; i < 31; ++i) series.push_back(1000.0 * (1.0 + 0.01 * std::sin(i)));
    for (auto _ : state) benchmark::DoNotOptimize(stats::typical_change(series, 30));
}
BENCHMARK(TypicalChangeOf31Values);

void ParseGoogleBenchmarkJson(benchmark::State& state) {
    const auto benchmarks = static_cast<std::size_t>(state.range(0));
    const auto json = bench::google_benchmark_json(benchmarks, 1, 1);
    for (auto _ : state) {
        auto parsed = ingest::parse(json, "synthetic.json", "auto");
        benchmark::DoNotOptimize(parsed.results.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * json.size()));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(ParseGoogleBenchmarkJson)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

model::Comparison synthetic_comparison(std::size_t benchmarks) {
    model::Comparison comparison;
    comparison.project = "synthetic";
    comparison.head_commit = std::string(40, 'b');
    comparison.baseline = {model::BaselineKind::MergeBase, std::string(40, 'a'),
                           std::string(40, 'a'), 0};
    comparison.categories = model::default_categories();
    comparison.summaries.resize(comparison.categories.size());
    for (std::size_t i = 0; i < benchmarks; ++i) {
        model::BenchmarkComparison row;
        row.name = row.display_name = fmt::format("group{}/bench{}", i / 50, i);
        row.base = 1000.0 + static_cast<double>(i);
        row.head = row.base * (i % 100 == 0 ? 1.5 : 1.001);
        row.threshold = std::log(1.03);
        row.verdict = i % 100 == 0 ? model::Verdict::Slower : model::Verdict::Unchanged;
        comparison.benchmarks.push_back(row);
    }
    comparison.summaries[0].compared = static_cast<int>(benchmarks);
    return comparison;
}

void RenderMarkdownReport(benchmark::State& state) {
    const auto comparison = synthetic_comparison(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        std::ostringstream out;
        report::render_markdown(comparison, out);
        benchmark::DoNotOptimize(out.str().size());
    }
}
BENCHMARK(RenderMarkdownReport)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
