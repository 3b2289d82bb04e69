#include <cassert>
#include <nlohmann/json.hpp>
#include <ostream>

#include "compare/method.hpp"
#include "report/detectable.hpp"
#include "report/escaping.hpp"
#include "report/json_parts.hpp"
#include "report/report.hpp"
#include "report/sentences.hpp"

namespace benchwatch::report {

namespace {

// Keys in the order written here, which reads better than alphabetical.
using json = nlohmann::ordered_json;

const char* baseline_kind_name(model::BaselineKind kind) {
    switch (kind) {
        case model::BaselineKind::MergeBase:
            return "merge_base";
        case model::BaselineKind::NearestAncestor:
            return "nearest_ancestor";
        case model::BaselineKind::Explicit:
            return "explicit";
        case model::BaselineKind::LatestOnDefaultBranch:
            return "latest_on_default_branch";
        case model::BaselineKind::Files:
            return "files";
        case model::BaselineKind::None:
            break;
    }
    return "none";
}

const char* allocation_change_name(model::AllocationChange change) {
    switch (change) {
        case model::AllocationChange::Starts:
            return "starts";
        case model::AllocationChange::Stops:
            return "stops";
        case model::AllocationChange::None:
            break;
    }
    return "none";
}

json result_json(const model::Result& result) {
    return {
        {"name", result.benchmark},
        {"metric", result.metric},
        {"unit", result.unit},
        {"direction", model::to_string(result.direction)},
        {"value", result.value},
        {"allocations", detail::optional_json(result.allocations)},
        {"memory", detail::optional_json(result.memory)},
    };
}

json warnings_json(const std::vector<model::Warning>& warnings) {
    json list = json::array();
    for (const auto& warning : warnings)
        list.push_back({{"kind", warning.kind}, {"message", warning.message}});
    return list;
}

json results_json(const std::vector<model::Result>& results) {
    json list = json::array();
    for (const auto& result : results) list.push_back(result_json(result));
    return list;
}

// What the comparison could detect, as the line under the summary says it.
json detectable_json(const model::Comparison& comparison) {
    const auto found = detail::detectability(comparison);
    const auto* noisiest = found.noisiest;
    return {
        {"benchmarks", found.with_threshold},
        {"median", noisiest ? json(found.median) : json(nullptr)},
        {"noisiest",
         noisiest ? json(model::with_metric(noisiest->name, noisiest->metric)) : json(nullptr)},
        {"noisiest_change", noisiest ? json(noisiest->detectable_change) : json(nullptr)},
        {"too_noisy", found.too_noisy},
        {"inconclusive", found.inconclusive},
        {"anything_judged", found.anything_judged},
        {"sentence", detail::detectable_sentence(comparison, detail::plain_text)},
    };
}

json benchmark_json(const model::Comparison& comparison,
                    const model::BenchmarkComparison& benchmark) {
    const bool categorized = benchmark.category < comparison.categories.size();
    return {
        {"name", benchmark.name},
        {"display_name", benchmark.display_name},
        {"category",
         categorized ? json(comparison.categories[benchmark.category].name) : json(nullptr)},
        {"metric", benchmark.metric},
        {"unit", benchmark.unit},
        {"direction", model::to_string(benchmark.direction)},
        {"base", benchmark.base},
        {"head", benchmark.head},
        {"change", benchmark.change()},
        {"noise_log", benchmark.typical_change},
        {"history_pairs", benchmark.history_pairs},
        {"threshold_log", benchmark.threshold},
        {"detectable_change", benchmark.detectable_change},
        {"verdict", model::to_string(benchmark.verdict)},
        {"confirmation",
         benchmark.confirmation ? json(model::to_string(*benchmark.confirmation)) : json(nullptr)},
        {"unusual", benchmark.unusual()},
        {"allocation_change", allocation_change_name(benchmark.allocation_change)},
        {"base_allocations", detail::optional_json(benchmark.base_allocations)},
        {"head_allocations", detail::optional_json(benchmark.head_allocations)},
    };
}

}  // namespace

void render_json(const model::Comparison& comparison, std::ostream& out) {
    assert(comparison.summaries.size() == comparison.categories.size() &&
           "Comparison::summaries must be parallel to Comparison::categories");
    // The seed rule's reports keep their reference shape, without the noise's judgement.
    const bool says_detectable = detail::says_what_it_could_detect(comparison);
    const bool has_counted_metric = std::any_of(
        comparison.benchmarks.begin(), comparison.benchmarks.end(),
        [](const auto& benchmark) { return model::is_counted_metric(benchmark.metric); });
    json categories = json::array();
    for (std::size_t i = 0; i < comparison.categories.size(); ++i) {
        const auto& category = comparison.categories[i];
        const auto& summary = comparison.summaries[i];
        categories.push_back({
            {"name", category.name},
            {"prefixes", category.prefixes},
            {"minimum_change", category.minimum_change},
            {"geometric_mean_change", summary.geometric_mean_change},
            {"slower", summary.slower},
            {"faster", summary.faster},
            {"compared", summary.compared},
        });
        if (says_detectable) categories.back()["too_noisy"] = summary.too_noisy;
        if (has_counted_metric)
            categories.back()["counted_minimum_change"] = category.counted_minimum_change;
    }
    json benchmarks = json::array();
    for (const auto& benchmark : comparison.benchmarks)
        benchmarks.push_back(benchmark_json(comparison, benchmark));
    const auto& baseline = comparison.baseline;
    const bool has_baseline = baseline.kind != model::BaselineKind::None;
    json document = {
        {"project", comparison.project},
        {"machine", comparison.machine},
        {"head", comparison.head_commit},
        {"baseline",
         {
             {"kind", baseline_kind_name(baseline.kind)},
             {"commit", has_baseline ? json(baseline.commit) : json(nullptr)},
             {"merge_base",
              baseline.merge_base.empty() ? json(nullptr) : json(baseline.merge_base)},
             {"commits_earlier", baseline.commits_earlier},
         }},
        {"method", comparison.paired ? std::string(kPairedMethodName) : comparison.method.name()},
    };
    // The method's own members follow its name: its settings and what it learned of the suite.
    // Base and head measured side by side were judged by their rounds, in "confirmation".
    if (!comparison.paired)
        compare::method_unit(comparison.method.name()).write_json(comparison, document);
    document.update(json{
        {"history_order", model::to_string(comparison.history_order)},
        {"history_runs", comparison.history_runs},
        {"categories", std::move(categories)},
        {"benchmarks", std::move(benchmarks)},
        {"added", results_json(comparison.added)},
        {"removed", results_json(comparison.removed)},
        {"head_results", results_json(comparison.head_only_results)},
        {"environment_changes", detail::environment_changes_json(comparison.environment_changes)},
        {"left_out_runs",
         {{"commits", comparison.left_out_runs},
          {"suite_move", comparison.left_out_move},
          {"unsettled", comparison.left_out_unsettled}}},
        {"machine_environment", json(comparison.machine_environment)},
        {"machine_changes", detail::environment_changes_json(comparison.machine_changes)},
        {"head_warnings", warnings_json(comparison.head_warnings)},
        {"baseline_warnings", warnings_json(comparison.baseline_warnings)},
        {"history_url",
         comparison.history_url.empty() ? json(nullptr) : json(comparison.history_url)},
    });
    // Written only when it happened, so that the reports of a quiet machine stay as they were.
    if (comparison.head_under_load) document["head_under_load"] = true;
    if (!comparison.ignored.empty()) document["ignored"] = comparison.ignored;
    if (says_detectable && has_baseline) document["detectable"] = detectable_json(comparison);
    if (comparison.confirmation)
        document["confirmation"] = detail::confirmation_json(*comparison.confirmation);
    out << document.dump(2) << "\n";
}

}  // namespace benchwatch::report
