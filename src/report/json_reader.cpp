#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace benchwatch::report {

namespace {

// What a report read back says for why a cached calibration was ignored.
constexpr const char* kRefusedCacheInWords = "it was outside what a calibration can produce";

using json = nlohmann::json;

// One place in the document, for messages: "benchmarks[3].base".
class Field {
  public:
    Field(const json& value, std::string path, std::string_view source)
        : value_(value), path_(std::move(path)), source_(source) {}

    Field operator[](std::string_view key) const {
        const auto& object = expect(value_.is_object(), "an object");
        const auto child_path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
        const auto found = object.find(key);
        if (found == object.end())
            throw ReportError(fmt::format("{}: {}: missing; {}", source_, child_path, remedy));
        return {*found, child_path, source_};
    }

    std::vector<Field> elements() const {
        const auto& array = expect(value_.is_array(), "an array");
        std::vector<Field> fields;
        fields.reserve(array.size());
        for (std::size_t i = 0; i < array.size(); ++i)
            fields.emplace_back(array[i], fmt::format("{}[{}]", path_, i), source_);
        return fields;
    }

    bool is_null() const { return value_.is_null(); }

    // Whether this object has `key` (reports of older versions lack newer keys).
    bool has(std::string_view key) const {
        return expect(value_.is_object(), "an object").contains(key);
    }

    std::string text() const { return expect(value_.is_string(), "a string").get<std::string>(); }

    double number() const { return expect(value_.is_number(), "a number").get<double>(); }

    int integer() const {
        expect(value_.is_number_integer(), "an integer");
        const auto wide = value_.get<std::int64_t>();
        if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
            fail("an integer that fits 32 bits");
        return static_cast<int>(wide);
    }

    bool boolean() const { return expect(value_.is_boolean(), "true or false").get<bool>(); }

    std::optional<std::string> optional_text() const {
        if (is_null()) return std::nullopt;
        return text();
    }

    std::optional<double> optional_number() const {
        if (is_null()) return std::nullopt;
        return number();
    }

    std::vector<std::string> texts() const {
        std::vector<std::string> list;
        for (const auto& element : elements()) list.push_back(element.text());
        return list;
    }

    // Every member of an object whose values are strings.
    std::map<std::string, std::string> text_map() const {
        const auto& object = expect(value_.is_object(), "an object");
        std::map<std::string, std::string> map;
        for (const auto& [key, value] : object.items())
            map.emplace(key, Field(value, path_ + "." + key, source_).text());
        return map;
    }

    [[noreturn]] void fail(std::string_view expected) const {
        throw ReportError(fmt::format("{}: {}: expected {}; {}", source_,
                                      path_.empty() ? "the document" : path_, expected, remedy));
    }

  private:
    static constexpr const char* remedy =
        "write the report with `benchwatch compare --format json`";

    const json& expect(bool holds, std::string_view expected) const {
        if (!holds) fail(expected);
        return value_;
    }

    const json& value_;
    std::string path_;
    std::string_view source_;
};

model::Direction read_direction(const Field& field) {
    if (const auto direction = model::parse_direction(field.text())) return *direction;
    field.fail("\"smaller\" or \"bigger\"");
}

model::HistoryOrder read_history_order(const Field& field) {
    if (const auto order = model::parse_history_order(field.text())) return *order;
    field.fail("\"git\", \"recorded\" or \"none\"");
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

model::MethodKind read_method_kind(const Field& field) {
    if (const auto kind = model::method_kind_named(field.text())) return *kind;
    field.fail("\"seed\", \"level\" or \"samples\"");
}

model::CalibrationSource read_calibration_source(const Field& field) {
    const auto text = field.text();
    if (text == "fixed") return model::CalibrationSource::Fixed;
    if (text == "calibrated") return model::CalibrationSource::Calibrated;
    if (text == "conservative") return model::CalibrationSource::Conservative;
    field.fail("\"fixed\", \"calibrated\" or \"conservative\"");
}

model::BudgetAllocation read_budget_allocation(const Field& field) {
    const auto allocation = model::budget_allocation_named(field.text());
    if (!allocation) field.fail("\"by-noise\" or \"one-factor\"");
    return *allocation;
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

model::Comparison read_json(std::string_view text, std::string_view source) {
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

    comparison.method.kind = read_method_kind(root["method"]);
    comparison.method.seed.factor = root["settings"]["factor"].number();
    comparison.method.seed.pairs = root["settings"]["pairs"].integer();
    if (root.has("level_settings")) {
        const auto level = root["level_settings"];
        auto& settings = comparison.method.level;
        settings.sensitivity = level["sensitivity"].number();
        settings.noise_quantile = level["noise_quantile"].number();
        settings.level_runs = static_cast<std::size_t>(level["level_runs"].integer());
        // minimum_deviations and short_history_factor, which reports still carry, are the
        // method's constants now (compare/level_method.hpp): no configuration changes them.
        // Reports written before budgets were shared by noise spent theirs through one factor.
        settings.allocation = level.has("budget_allocation")
                                  ? read_budget_allocation(level["budget_allocation"])
                                  : model::BudgetAllocation::OneFactor;
    }
    if (root.has("calibration")) {
        const auto calibration = root["calibration"];
        comparison.calibration.source = read_calibration_source(calibration["source"]);
        comparison.calibration.budget =
            calibration["false_alarms_per_pr"].optional_number().value_or(0);
        comparison.calibration.pull_requests = calibration["pull_requests"].integer();
        comparison.calibration.flukes_per_pr = calibration["flukes_per_pr"].number();
        comparison.calibration.from_cache =
            calibration.has("from_cache") && calibration["from_cache"].boolean();
        // Its own words stay in the JSON: a report read back says only what happened, so that
        // a file from outside cannot put its text into the explanation.
        if (calibration.has("cache_refusal"))
            comparison.calibration.cache_refusal = kRefusedCacheInWords;
    }
    if (root.has("samples_settings")) {
        const auto samples = root["samples_settings"];
        comparison.method.samples.false_alarms_per_pr = samples["false_alarms_per_pr"].number();
        comparison.method.samples.suite_minimum =
            static_cast<std::size_t>(samples["suite_minimum"].integer());
        // A report written before the budget had a fewest count shared it among its judged
        // benchmarks alone.
        comparison.method.samples.budget_benchmarks =
            samples.has("budget_benchmarks")
                ? static_cast<std::size_t>(samples["budget_benchmarks"].integer())
                : 1;
        if (samples.has("assumed_spread_factor"))
            comparison.method.samples.assumed_spread_factor =
                samples["assumed_spread_factor"].number();
    }
    if (root.has("run_to_run_spread"))
        comparison.run_to_run_spread = root["run_to_run_spread"].number();
    if (root.has("run_to_run_assumed"))
        comparison.run_to_run_assumed = root["run_to_run_assumed"].boolean();
    comparison.calibration.sensitivity = comparison.method.level.sensitivity;
    if (root.has("suite_move")) comparison.suite_move = root["suite_move"].number();
    comparison.history_order = read_history_order(root["history_order"]);
    comparison.history_runs = root["history_runs"].integer();

    for (const auto& category : root["categories"].elements()) {
        comparison.categories.push_back({category["name"].text(), category["prefixes"].texts(),
                                         category["minimum_change"].number()});
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
    if (root.has("confirmation")) comparison.confirmation = read_confirmation(root["confirmation"]);
    return comparison;
}

}  // namespace benchwatch::report
