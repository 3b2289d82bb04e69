// What could break: a report read back from compare's JSON renders differently from the
// comparison that wrote it (a field dropped, a number rounded, a category lost), a report of an
// older version without the too noisy counts or with the old names of the log-space fields is
// refused, or a damaged file is accepted, or refused without saying where.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "golden.hpp"
#include "report/report.hpp"

namespace benchwatch::report {
namespace {

std::string read_golden(const std::string& name) {
    std::ifstream file(testing::golden_path(name), std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

class ReadBack : public ::testing::TestWithParam<const char*> {};

// Each approved JSON report, read back, renders every approved format byte for byte.
TEST_P(ReadBack, RendersTheApprovedFilesAgain) {
    const std::string name = GetParam();
    const auto json_text = read_golden(name + ".json");
    ASSERT_FALSE(json_text.empty()) << name;
    const auto comparison = read_json(json_text, name + ".json");

    std::ostringstream json_again, markdown, text;
    render_json(comparison, json_again);
    render_markdown(comparison, markdown);
    render_text(comparison, text, false);
    EXPECT_EQ(json_again.str(), json_text);
    testing::expect_golden(markdown.str(), name + ".md");
    testing::expect_golden(text.str(), name + ".txt");
}

INSTANTIATE_TEST_SUITE_P(
    ApprovedReports, ReadBack,
    ::testing::Values("unusual_in_two_categories", "nothing_unusual", "environment_changes",
                      "nearest_ancestor", "no_baseline", "allocation_changes", "added_and_removed",
                      "hostile_names", "bigger_is_better", "machine_and_warnings",
                      "machine_changed", "warnings_without_baseline", "level_with_suite_move",
                      "level_one_factor", "level_detectable_change", "level_too_noisy",
                      "level_nothing_judged", "confirmed_changes", "two_files",
                      "samples_with_history"));

// A report file may come from a pull request's own code: whatever it says, a label's acceptance
// is the forge's to give, so none is read; the ignored benchmarks are.
TEST(ReadBack, IgnoredBenchmarksComeBackButNoAcceptance) {
    auto json = nlohmann::json::parse(read_golden("ignored_and_accepted.json"));
    EXPECT_FALSE(json.contains("accepted"));
    json["accepted"] = {{"label", "performance-accepted"}, {"by", "intruder"}};
    const auto comparison = read_json(json.dump(), "ignored_and_accepted.json");
    EXPECT_EQ(comparison.ignored,
              (std::vector<std::string>{"BM_Flaky/1", "net/<b>ping</b>|`x`", "net/pong"}));
    EXPECT_FALSE(comparison.accepted);
}

TEST(ReadBack, ShortenedRenderingOfAReadBackReportIsTheApprovedOne) {
    const auto comparison =
        read_json(read_golden("unusual_in_two_categories.json"), "unusual_in_two_categories");
    std::ostringstream full;
    render_markdown(comparison, full);
    std::ostringstream limited;
    render_markdown_limited(comparison, limited, full.str().size() - 1);
    testing::expect_golden(limited.str(), "unusual_in_two_categories.limited.md");
}

// A level report written before the too noisy verdict (no per-category "too_noisy", no
// "detectable") is read as one in which nothing was too noisy; one written before budgets were
// shared by noise (no "budget_allocation") as spending its budget through one factor.
TEST(ReadBack, ALevelReportOfAnOlderVersionStillRenders) {
    auto document = nlohmann::json::parse(read_golden("level_with_suite_move.json"));
    document.erase("detectable");
    for (auto& category : document["categories"]) category.erase("too_noisy");
    const auto comparison = read_json(document.dump(2), "older.json");
    for (const auto& summary : comparison.summaries) EXPECT_EQ(summary.too_noisy, 0);
    std::ostringstream markdown;
    render_markdown(comparison, markdown);
    testing::expect_golden(markdown.str(), "level_with_suite_move.md");

    auto one_factor = nlohmann::json::parse(read_golden("level_one_factor.json"));
    one_factor["level_settings"].erase("budget_allocation");
    std::ostringstream older;
    render_markdown(read_json(one_factor.dump(2), "older.json"), older);
    testing::expect_golden(older.str(), "level_one_factor.md");
}

// Before the units were in the names, "noise_log" was "typical_change" and "threshold_log" was
// "threshold", with the same values.
TEST(ReadBack, AReportWithTheOldNamesOfTheLogSpaceFieldsStillRenders) {
    for (const std::string name : {"level_with_suite_move", "unusual_in_two_categories"}) {
        const auto current_text = read_golden(name + ".json");
        auto document = nlohmann::ordered_json::parse(current_text);
        for (auto& benchmark : document["benchmarks"]) {
            nlohmann::ordered_json old;
            for (auto& [key, value] : benchmark.items()) {
                if (key == "noise_log")
                    old["typical_change"] = value;
                else if (key == "threshold_log")
                    old["threshold"] = value;
                else
                    old[key] = value;
            }
            benchmark = old;
        }
        const auto comparison = read_json(document.dump(2), "older.json");
        const auto current = read_json(current_text, name);
        ASSERT_EQ(comparison.benchmarks.size(), current.benchmarks.size());
        for (std::size_t i = 0; i < current.benchmarks.size(); ++i) {
            EXPECT_EQ(comparison.benchmarks[i].typical_change,
                      current.benchmarks[i].typical_change);
            EXPECT_EQ(comparison.benchmarks[i].threshold, current.benchmarks[i].threshold);
        }
        std::ostringstream json_again, markdown;
        render_json(comparison, json_again);
        render_markdown(comparison, markdown);
        EXPECT_EQ(json_again.str(), current_text) << name;
        testing::expect_golden(markdown.str(), name + ".md");
    }
}

// Each log-space field says so in its name, beside the fraction of the same bound.
TEST(ReadBack, LogSpaceFieldsAreNamedSo) {
    const auto document = nlohmann::json::parse(read_golden("level_detectable_change.json"));
    for (const auto& benchmark : document["benchmarks"]) {
        EXPECT_FALSE(benchmark.contains("typical_change"));
        EXPECT_FALSE(benchmark.contains("threshold"));
        EXPECT_DOUBLE_EQ(std::expm1(benchmark["threshold_log"].get<double>()),
                         benchmark["detectable_change"].get<double>());
        EXPECT_TRUE(benchmark["noise_log"].is_number());
    }
}

TEST(ReadBack, TooNoisyVerdictsAndCountsAreReadBack) {
    const auto comparison = read_json(read_golden("level_too_noisy.json"), "level_too_noisy");
    EXPECT_EQ(comparison.summaries[0].too_noisy, 2);
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::TooNoisy);
    EXPECT_EQ(comparison.benchmarks[3].verdict, model::Verdict::TooNoisy);
    EXPECT_DOUBLE_EQ(comparison.benchmarks[3].detectable_change, 4.5);
}

std::string error_of(std::string_view text) {
    try {
        read_json(text, "pr/report.json");
    } catch (const ReportError& error) {
        return error.what();
    }
    return "(accepted)";
}

// The golden report with `from` replaced once by `to`.
std::string damaged(std::string_view from, std::string_view to) {
    auto text = read_golden("unusual_in_two_categories.json");
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

constexpr const char* remedy = "; write the report with `benchwatch compare --format json`";

TEST(ReadJsonErrors, NotJsonSaysWhere) {
    EXPECT_EQ(error_of("## Benchmark results\n"),
              std::string("pr/report.json: not JSON (parse error at line 1, column 1: syntax "
                          "error while parsing value - invalid literal; last read: '#')") +
                  remedy);
}

TEST(ReadJsonErrors, ANumberNoDoubleHoldsIsRefused) {
    EXPECT_EQ(error_of("{\"history_runs\": 1e400}"),
              std::string("pr/report.json: not JSON (number overflow parsing '1e400')") + remedy);
}

TEST(ReadJsonErrors, DocumentThatIsNotAnObject) {
    EXPECT_EQ(error_of("[1, 2]"),
              std::string("pr/report.json: the document: expected an object") + remedy);
}

TEST(ReadJsonErrors, MissingKeyIsNamed) {
    EXPECT_EQ(error_of(damaged("\"history_runs\"", "\"history_run\"")),
              std::string("pr/report.json: history_runs: missing") + remedy);
}

TEST(ReadJsonErrors, WrongTypeNamesTheElement) {
    // The second benchmark's base, written as a string.
    auto text = read_golden("unusual_in_two_categories.json");
    const auto second = text.find("\"base\"", text.find("\"base\"") + 1);
    const auto value_start = text.find(':', second) + 2;
    const auto value_end = text.find(',', value_start);
    text.replace(value_start, value_end - value_start, "\"12 ns\"");
    EXPECT_EQ(error_of(text),
              std::string("pr/report.json: benchmarks[1].base: expected a number") + remedy);
}

TEST(ReadJsonErrors, UnknownVerdict) {
    EXPECT_EQ(error_of(damaged("\"verdict\": \"slower\"", "\"verdict\": \"worse\"")),
              std::string("pr/report.json: benchmarks[0].verdict: expected \"unchanged\", "
                          "\"slower\", \"faster\", \"inconclusive\" or \"too_noisy\"") +
                  remedy);
}

TEST(ReadJsonErrors, TheSamplesStatisticAndHarnessAreChecked) {
    // What the report's paragraph shows as it is must hold no markup.
    const auto with_samples = [](std::string_view from, std::string_view to) {
        auto text = read_golden("two_files.json");
        const auto at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return text.replace(at, from.size(), to);
    };
    EXPECT_EQ(error_of(with_samples("\"harness\": \"\"", "\"harness\": \"<img src=x>\"")),
              std::string("pr/report.json: samples_settings.harness: expected a harness's reader "
                          "name such as pytest-benchmark") +
                  remedy);
    EXPECT_EQ(error_of(with_samples("\"statistic\": \"median\"", "\"statistic\": \"max\"")),
              std::string("pr/report.json: samples_settings.statistic: expected min, median or "
                          "mean") +
                  remedy);
    EXPECT_EQ(error_of(with_samples("\"harness\": \"\"", "\"harness\": \"pytest-benchmark\"")),
              "(accepted)");
}

TEST(ReadJsonErrors, UnknownHistoryOrder) {
    EXPECT_EQ(error_of(damaged("\"history_order\": \"git\"", "\"history_order\": \"svn\"")),
              std::string("pr/report.json: history_order: expected \"git\", \"recorded\" or "
                          "\"none\"") +
                  remedy);
}

TEST(ReadJsonErrors, BenchmarkInACategoryTheReportDoesNotList) {
    EXPECT_EQ(error_of(damaged("\"category\": \"Performance\"", "\"category\": \"Speed\"")),
              std::string("pr/report.json: benchmarks[0].category: expected the name of a "
                          "category in \"categories\"") +
                  remedy);
}

TEST(ReadJsonErrors, CountTooLargeForItsField) {
    EXPECT_EQ(error_of(damaged("\"history_runs\": 30", "\"history_runs\": 4000000000")),
              std::string("pr/report.json: history_runs: expected an integer that fits 32 bits") +
                  remedy);
}

TEST(ReadJsonErrors, AReportWithNeitherNameOfAFieldIsToldTheCurrentOne) {
    EXPECT_EQ(error_of(damaged("\"noise_log\"", "\"noise\"")),
              std::string("pr/report.json: benchmarks[0].noise_log: missing") + remedy);
}

}  // namespace
}  // namespace benchwatch::report
