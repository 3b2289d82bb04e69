// What could break: `benchwatch history` lines losing their alignment, the sparkline covering the
// wrong values, the typical change shown as a log instead of a percentage, JSON dropping points, or
// the dates of the commits shown wrongly or not at all.
#include "model/history.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "golden.hpp"
#include "report/report.hpp"

namespace benchwatch::report {
namespace {

model::History small_history() {
    model::History history;
    history.project = "cuda";
    history.machine = "ci-gpu-1";
    history.order = "git";
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
    model::BenchmarkHistory copy;
    copy.name = "array/copy";
    copy.commits = {"a1", "b2", "c3"};
    copy.values = {17'200, 17'000, 34'000};
    copy.typical_change = 0;
    model::BenchmarkHistory throughput;
    throughput.name = "io/read";
    throughput.unit = "B/s";
    throughput.direction = model::Direction::BiggerIsBetter;
    throughput.commits = {"a1"};
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
    EXPECT_NE(out.str().find("latency/import  ▂▅▁██  typical ±1.2%  latest 3.55 s"),
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
    history.benchmarks = {series};
    std::ostringstream out;
    render_history_text(history, out, false);
    std::string expected_spark;
    for (int i = 0; i < 60; ++i) expected_spark += i % 2 == 0 ? "▁" : "█";
    EXPECT_NE(out.str().find("b  " + expected_spark + "  typical"), std::string::npos) << out.str();
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
    history.order = "recorded";
    std::ostringstream out;
    render_history_text(history, out, false);
    EXPECT_EQ(out.str(),
              "History of cuda on m: 0 runs (recorded order)\n"
              "No benchmarks recorded on the default branch.\n");
}

}  // namespace
}  // namespace benchwatch::report
