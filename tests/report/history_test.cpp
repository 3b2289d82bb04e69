// What could break: `benchwatch history` lines losing their alignment, the sparkline covering the
// wrong values or columns that are not the same commits on every line, the typical change shown
// as a log instead of a percentage or as ±0.0% for a benchmark with one run, JSON dropping
// points, or the dates of the commits shown wrongly or not at all.
#include "model/history.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "golden.hpp"
#include "report/report.hpp"

namespace benchwatch::report {
namespace {

model::History small_history() {
    model::History history;
    history.project = "cuda";
    history.machine = "ci-gpu-1";
    history.order = model::HistoryOrder::Git;
    history.runs = 5;
    history.commits = {"a1", "b2", "c3", "d4", "e5"};
    // Committed a day apart from 2016-03-01 12:00 UTC.
    for (std::int64_t day = 0; day < 5; ++day)
        history.times_ms.push_back(1456833600000 + day * 86400000);
    model::BenchmarkHistory import_time;
    import_time.name = "latency/import";
    import_time.commits = {"a1", "b2", "c3", "d4", "e5"};
    import_time.values = {3.50e9, 3.52e9, 3.49e9, 3.55e9, 3.549e9};
    import_time.typical_change = std::log(1.012);  // shown as ±1.2%
    import_time.typical_pairs = 4;
    model::BenchmarkHistory copy;
    copy.name = "array/copy";
    copy.commits = {"a1", "b2", "c3"};
    copy.values = {17'200, 17'000, 34'000};
    copy.typical_change = 0;
    copy.typical_pairs = 2;
    model::BenchmarkHistory throughput;
    throughput.name = "io/read";
    throughput.unit = "B/s";
    throughput.direction = model::Direction::BiggerIsBetter;
    // Added at the last commit: one run, so no typical change yet.
    throughput.commits = {"e5"};
    throughput.values = {1.25e9};
    history.benchmarks = {copy, throughput, import_time};
    return history;
}

TEST(RenderHistory, TextMatchesTheApprovedFile) {
    std::ostringstream out;
    render_history_text(small_history(), out, false);
    testing::expect_golden(out.str(), "history.txt");
}

TEST(RenderHistory, JsonMatchesTheApprovedFile) {
    std::ostringstream out;
    render_history_json(small_history(), out);
    testing::expect_golden(out.str(), "history.json");
}

TEST(RenderHistory, TypicalChangeIsShownAsAPercentage) {
    std::ostringstream out;
    render_history_text(small_history(), out, false);
    // Sparkline over 3.49–3.55 s, level = round((v − 3.49) / 0.06 × 7): 3.50 → 1.17 → ▂,
    // 3.52 → 3.5 → ▅, 3.49 → ▁, 3.55 → █, 3.549 → 6.88 → █. Typical: e^ln(1.012) − 1 = 1.2%.
    EXPECT_NE(out.str().find("latency/import  ▂▅▁██  typical ±1.2%   latest 3.55 s"),
              std::string::npos)
        << out.str();
}

TEST(RenderHistory, SparklineShowsOnlyTheLastSixtyValues) {
    model::History history;
    history.runs = 61;
    model::BenchmarkHistory series;
    series.name = "b";
    // A spike at the oldest value would flatten every other block if it were drawn.
    series.values.push_back(1000);
    for (int i = 0; i < 60; ++i) series.values.push_back(i % 2 == 0 ? 1 : 2);
    series.typical_pairs = 30;
    history.benchmarks = {series};
    std::ostringstream out;
    render_history_text(history, out, false);
    std::string expected_spark;
    for (int i = 0; i < 60; ++i) expected_spark += i % 2 == 0 ? "▁" : "█";
    EXPECT_NE(out.str().find("b  " + expected_spark + "  typical"), std::string::npos) << out.str();
}

TEST(RenderHistory, ABenchmarkWithOneRunHasNoHistoryYet) {
    std::ostringstream out;
    render_history_text(small_history(), out, false);
    EXPECT_NE(out.str().find("io/read             ▄  no history yet  latest 1.25 GB/s"),
              std::string::npos)
        << out.str();
    EXPECT_EQ(out.str().find("±0.0%  latest 1.25 GB/s"), std::string::npos) << out.str();
}

// Each column of the sparklines is one commit of the history: a benchmark added later starts in
// the column of its first commit, and a commit it has no run of is left blank.
TEST(RenderHistory, SparklinesAreAlignedToTheCommitsTheyWereMeasuredAt) {
    model::History history;
    history.runs = 6;
    history.commits = {"c1", "c2", "c3", "c4", "c5", "c6"};
    model::BenchmarkHistory old_one;
    old_one.name = "old";
    old_one.commits = history.commits;
    old_one.values = {1, 2, 1, 2, 1, 2};
    old_one.typical_change = std::log(2.0);
    old_one.typical_pairs = 5;
    model::BenchmarkHistory added;
    added.name = "new";
    added.commits = {"c4", "c6"};
    added.values = {1, 2};
    added.typical_change = std::log(2.0);
    added.typical_pairs = 1;
    history.benchmarks = {added, old_one};
    std::ostringstream out;
    render_history_text(history, out, false);
    EXPECT_NE(out.str().find("new     ▁ █  typical ±100.0%"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("old  ▁█▁█▁█  typical ±100.0%"), std::string::npos) << out.str();
}

TEST(RenderHistory, JsonTypicalChangeIsAFractionAndNullWithoutHistory) {
    std::ostringstream out;
    render_history_json(small_history(), out);
    const auto document = nlohmann::json::parse(out.str());
    const auto& benchmarks = document["benchmarks"];
    EXPECT_NEAR(benchmarks[2]["typical_change"].get<double>(), 0.012, 1e-12);
    EXPECT_TRUE(benchmarks[1]["typical_change"].is_null());
}

TEST(RenderHistory, TitleGivesTheFirstAndLastCommitDates) {
    std::ostringstream out;
    render_history_text(small_history(), out, false);
    EXPECT_TRUE(out.str().starts_with(
        "History of cuda on ci-gpu-1: 5 runs from 2016-03-01 to 2016-03-05 (git order)\n"))
        << out.str();
    auto one_day = small_history();
    one_day.times_ms = {1456833600000, 1456833600000, 1456833600000, 1456833600000, 1456833600000};
    std::ostringstream same;
    render_history_text(one_day, same, false);
    EXPECT_TRUE(same.str().starts_with("History of cuda on ci-gpu-1: 5 runs on 2016-03-01 (git"))
        << same.str();
}

TEST(RenderHistory, EmptyHistorySaysSo) {
    model::History history;
    history.project = "cuda";
    history.machine = "m";
    history.order = model::HistoryOrder::Recorded;
    std::ostringstream out;
    render_history_text(history, out, false);
    EXPECT_EQ(out.str(),
              "History of cuda on m: 0 runs (recorded order)\n"
              "No benchmarks recorded on the default branch.\n");
}

TEST(RenderHistory, AUnitCannotSendTerminalEscapes) {
    auto history = small_history();
    history.benchmarks[1].unit =
        "B/s\033]0;TITLE\007\033[2J\xc2\x9b"
        "31m\nx";
    std::ostringstream out;
    render_history_text(history, out, false);
    EXPECT_EQ(out.str().find('\033'), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find('\007'), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("\xc2\x9b"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("1.25 GB/s ]0;TITLE  [2J 31m x\n"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace benchwatch::report
