#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "compare/json_field.hpp"
#include "compare/method.hpp"
#include "report/report.hpp"

namespace benchwatch::report {

namespace {

using json = nlohmann::json;

using Field = compare::JsonField;

model::Direction read_direction(const Field& field) {
    if (const auto direction = model::parse_direction(field.text())) return *direction;
    field.fail("\"smaller\" or \"bigger\"");
}

model::HistoryOrder read_history_order(const Field& field) {
    if (const auto order = model::parse_history_order(field.text())) return *order;
    field.fail("\"git\", \"recorded\" or \"none\"");
}

model::MethodChoice read_method(const Field& field) {
    const auto name = field.text();
    const auto names = compare::method_names();
    if (std::find(names.begin(), names.end(), name) != names.end())
        return compare::default_choice(name);
    std::string expected;  // "\"seed\", \"level\" or \"samples\""
    for (std::size_t i = 0; i < names.size(); ++i)
        expected += fmt::format("{}\"{}\"",
                                i == 0                  ? ""
                                : i + 1 == names.size() ? " or "
                                                        : ", ",
                                names[i]);
    field.fail(expected);
}

model::Verdict read_verdict(const Field& field) {
    const auto text = field.text();
    for (const auto verdict :
         {model::Verdict::Unchanged, model::Verdict::Slower, model::Verdict::Faster,
          model::Verdict::Inconclusive, model::Verdict::TooNoisy})
        if (text == model::to_string(verdict)) return verdict;
    field.fail("\"unchanged\", \"slower\", \"faster\", \"inconclusive\" or \"too_noisy\"");
}

model::ConfirmationVerdict read_confirmation_verdict(const Field& field) {
    const auto text = field.text();
    for (const auto verdict :
         {model::ConfirmationVerdict::Confirmed, model::ConfirmationVerdict::Dismissed,
          model::ConfirmationVerdict::Undecided})
        if (text == model::to_string(verdict)) return verdict;
    field.fail("\"confirmed\", \"dismissed\" or \"undecided\"");
}

model::ConfirmationStop read_confirmation_stop(const Field& field) {
    const auto text = field.text();
    for (const auto stop : {model::ConfirmationStop::AllDecided, model::ConfirmationStop::MaxRounds,
                            model::ConfirmationStop::TimeBudget})
        if (text == model::to_string(stop)) return stop;
    field.fail("\"all decided\", \"max rounds\" or \"time budget\"");
}

model::Confirmation read_confirmation(const Field& field) {
    model::Confirmation confirmation;
    confirmation.base_command = field["base_command"].text();
    confirmation.head_command = field["head_command"].text();
    confirmation.report = field["report"].optional_text().value_or("");
    confirmation.alpha = field["alpha"].number();
    if (field.has("false_alarms_per_suite"))
        confirmation.false_alarms_per_suite = field["false_alarms_per_suite"].number();
    confirmation.max_rounds = field["max_rounds"].integer();
    confirmation.time_budget_seconds = field["time_budget_seconds"].number();
    confirmation.rounds = field["rounds"].integer();
    confirmation.first_deciding_round = field["first_deciding_round"].integer();
    confirmation.stop = read_confirmation_stop(field["stopped"]);
    for (const auto& element : field["benchmarks"].elements()) {
        model::ConfirmedBenchmark benchmark;
        benchmark.name = element["name"].text();
        benchmark.metric = element["metric"].text();
        benchmark.direction = read_direction(element["direction"]);
        if (!element["flagged"].is_null()) benchmark.flagged = read_verdict(element["flagged"]);
        benchmark.flagged_change = element["flagged_change"].optional_number();
        benchmark.boundary = element["boundary"].number();
        benchmark.change = element["change"].number();
        // Reports written before each side's median was kept have neither, nor the unit.
        if (element.has("unit")) benchmark.unit = element["unit"].text();
        if (element.has("base_median")) benchmark.base_median = element["base_median"].number();
        if (element.has("head_median")) benchmark.head_median = element["head_median"].number();
        benchmark.change_low = element["change_low"].optional_number();
        benchmark.change_high = element["change_high"].optional_number();
        benchmark.rounds = element["rounds"].integer();
        benchmark.verdict = read_confirmation_verdict(element["verdict"]);
        benchmark.measured = read_verdict(element["measured"]);
        confirmation.benchmarks.push_back(std::move(benchmark));
    }
    return confirmation;
}

model::AllocationChange read_allocation_change(const Field& field) {
    const auto text = field.text();
    if (text == "none") return model::AllocationChange::None;
    if (text == "starts") return model::AllocationChange::Starts;
    if (text == "stops") return model::AllocationChange::Stops;
    field.fail("\"none\", \"starts\" or \"stops\"");
}

model::BaselineKind read_baseline_kind(const Field& field) {
    const auto text = field.text();
    if (text == "merge_base") return model::BaselineKind::MergeBase;
    if (text == "nearest_ancestor") return model::BaselineKind::NearestAncestor;
    if (text == "explicit") return model::BaselineKind::Explicit;
    if (text == "latest_on_default_branch") return model::BaselineKind::LatestOnDefaultBranch;
    if (text == "files") return model::BaselineKind::Files;
    if (text == "none") return model::BaselineKind::None;
    field.fail(
        "\"merge_base\", \"nearest_ancestor\", \"explicit\", \"latest_on_default_branch\", "
        "\"files\" or \"none\"");
}

model::Result read_result(const Field& field) {
    model::Result result;
    result.benchmark = field["name"].text();
    result.metric = field["metric"].text();
    result.unit = field["unit"].text();
    result.direction = read_direction(field["direction"]);
    result.value = field["value"].number();
    result.allocations = field["allocations"].optional_number();
    result.memory = field["memory"].optional_number();
    return result;
}

std::vector<model::Result> read_results(const Field& field) {
    std::vector<model::Result> results;
    for (const auto& element : field.elements()) results.push_back(read_result(element));
    return results;
}

std::vector<model::EnvironmentChange> read_changes(const Field& field) {
    std::vector<model::EnvironmentChange> changes;
    for (const auto& element : field.elements())
        changes.push_back({element["key"].text(), element["before"].optional_text(),
                           element["after"].optional_text()});
    return changes;
}

std::vector<model::Warning> read_warnings(const Field& field) {
    std::vector<model::Warning> warnings;
    for (const auto& element : field.elements())
        warnings.push_back({element["kind"].text(), element["message"].text()});
    return warnings;
}

// The index of the category named by `field`; categories.size() for null (uncategorized).
std::size_t read_category_index(const Field& field,
                                const std::vector<model::Category>& categories) {
    if (field.is_null()) return categories.size();
    const auto name = field.text();
    for (std::size_t i = 0; i < categories.size(); ++i)
        if (categories[i].name == name) return i;
    field.fail("the name of a category in \"categories\"");
}

// The key a report has for one value: `current`, or `old` in a report of an older version that
// has only that, so that a report with neither is told the current key is missing.
std::string_view current_or_old(const Field& object, std::string_view current,
                                std::string_view old) {
    return !object.has(current) && object.has(old) ? old : current;
}

model::BenchmarkComparison read_benchmark(const Field& field,
                                          const std::vector<model::Category>& categories) {
    model::BenchmarkComparison benchmark;
    benchmark.name = field["name"].text();
    benchmark.display_name = field["display_name"].text();
    benchmark.category = read_category_index(field["category"], categories);
    benchmark.metric = field["metric"].text();
    benchmark.unit = field["unit"].text();
    benchmark.direction = read_direction(field["direction"]);
    benchmark.base = field["base"].number();
    benchmark.head = field["head"].number();
    // Reports written before the units were named call these "typical_change" and "threshold",
    // with the same values (both in log space).
    benchmark.typical_change = field[current_or_old(field, "noise_log", "typical_change")].number();
    benchmark.history_pairs = field["history_pairs"].integer();
    benchmark.threshold = field[current_or_old(field, "threshold_log", "threshold")].number();
    if (field.has("detectable_change"))
        benchmark.detectable_change = field["detectable_change"].number();
    benchmark.verdict = read_verdict(field["verdict"]);
    // Reports written before re-measuring settled the verdicts have no "confirmation".
    if (field.has("confirmation") && field["confirmation"].optional_text())
        benchmark.confirmation = read_confirmation_verdict(field["confirmation"]);
    benchmark.allocation_change = read_allocation_change(field["allocation_change"]);
    benchmark.base_allocations = field["base_allocations"].optional_number();
    benchmark.head_allocations = field["head_allocations"].optional_number();
    return benchmark;
}

json parse_document(std::string_view text, std::string_view source) {
    try {
        return json::parse(text);
    } catch (const json::exception& error) {
        // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1,
        // column 2: ..." (or "[json.exception.out_of_range.406] number overflow parsing
        // '1e400'" for a number no double holds); the part after the bracket says where and what.
        std::string_view detail = error.what();
        if (const auto end = detail.find("] "); end != std::string_view::npos)
            detail.remove_prefix(end + 2);
        throw ReportError(
            fmt::format("{}: not JSON ({}); write the report with `benchwatch "
                        "compare --format json`",
                        source, detail));
    }
}

}  // namespace

namespace {

model::Comparison comparison_of(std::string_view text, std::string_view source) {
    const auto document = parse_document(text, source);
    const Field root(document, "", source);

    model::Comparison comparison;
    comparison.project = root["project"].text();
    comparison.machine = root["machine"].text();
    comparison.head_commit = root["head"].text();

    const auto baseline = root["baseline"];
    comparison.baseline.kind = read_baseline_kind(baseline["kind"]);
    comparison.baseline.commit = baseline["commit"].optional_text().value_or("");
    comparison.baseline.merge_base = baseline["merge_base"].optional_text().value_or("");
    comparison.baseline.commits_earlier = baseline["commits_earlier"].integer();

    if (root["method"].text() == kPairedMethodName) {
        comparison.paired = true;
    } else {
        comparison.method = read_method(root["method"]);
        compare::method_unit(comparison.method.name()).read_json(root, comparison);
    }
    comparison.history_order = read_history_order(root["history_order"]);
    comparison.history_runs = root["history_runs"].integer();
    // Reports written before runs were left out of the levels have no "left_out_runs".
    if (root.has("left_out_runs")) {
        const auto left_out = root["left_out_runs"];
        comparison.left_out_runs = left_out["commits"].texts();
        comparison.left_out_move = left_out["suite_move"].number();
        comparison.left_out_unsettled = left_out["unsettled"].boolean();
    }

    if (root.has("head_under_load")) comparison.head_under_load = root["head_under_load"].boolean();

    for (const auto& category : root["categories"].elements()) {
        comparison.categories.push_back({category["name"].text(), category["prefixes"].texts(),
                                         category["minimum_change"].number()});
        // Written only by reports that hold a counted metric.
        if (category.has("counted_minimum_change"))
            comparison.categories.back().counted_minimum_change =
                category["counted_minimum_change"].number();
        comparison.summaries.push_back(
            {category["geometric_mean_change"].number(), category["slower"].integer(),
             category["faster"].integer(), category["compared"].integer(),
             category.has("too_noisy") ? category["too_noisy"].integer() : 0});
    }
    for (const auto& benchmark : root["benchmarks"].elements())
        comparison.benchmarks.push_back(read_benchmark(benchmark, comparison.categories));

    comparison.added = read_results(root["added"]);
    comparison.removed = read_results(root["removed"]);
    comparison.head_only_results = read_results(root["head_results"]);
    comparison.environment_changes = read_changes(root["environment_changes"]);
    comparison.machine_environment = root["machine_environment"].text_map();
    comparison.machine_changes = read_changes(root["machine_changes"]);
    comparison.head_warnings = read_warnings(root["head_warnings"]);
    comparison.baseline_warnings = read_warnings(root["baseline_warnings"]);
    comparison.history_url = root["history_url"].optional_text().value_or("");
    if (root.has("ignored")) comparison.ignored = root["ignored"].texts();
    if (root.has("confirmation")) comparison.confirmation = read_confirmation(root["confirmation"]);
    return comparison;
}

}  // namespace

model::Comparison read_json(std::string_view text, std::string_view source) {
    // The checked fields are shared with the methods, which read their own members; what they
    // find wrong is this reader's error.
    try {
        return comparison_of(text, source);
    } catch (const compare::JsonFieldError& error) {
        throw ReportError(error.what());
    }
}

}  // namespace benchwatch::report
