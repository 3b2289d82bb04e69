// What could break: a field of the API renamed or miscounted (the page and the static site read
// them), a range or downsampling that drops the wrong points, or an error answered with 200.

#include "serve/api.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sample_history.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"

namespace benchwatch::serve {
namespace {

using nlohmann::json;
using testing::hour_ms;
using testing::start_ms;

class ApiTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto store = store::open_store(benchwatch::testing::test_store_url(directory_.path()));
        testing::record_sample_history(*store);
        snapshot_ = std::make_unique<ApiSnapshot>(load_dashboard(*store, nullptr, {}));
    }

    Response get(std::vector<std::string> segments, Parameters parameters = {}) const {
        return snapshot_->answer(segments, parameters, compare_pull_);
    }

    json get_json(std::vector<std::string> segments, Parameters parameters = {}) const {
        const Response response = get(std::move(segments), std::move(parameters));
        EXPECT_EQ(response.status, 200) << response.body;
        EXPECT_EQ(response.content_type, "application/json; charset=utf-8");
        return json::parse(response.body);
    }

    benchwatch::testing::TemporaryDirectory directory_{"benchwatch-serve"};
    std::unique_ptr<ApiSnapshot> snapshot_;
    std::vector<std::string> compared_;
    PullComparer compare_pull_ = [this](const std::string& project, const std::string& machine,
                                        const std::string& commit) {
        compared_.push_back(project + " " + machine + " " + commit);
        return Response{200, "application/json; charset=utf-8", R"({"compared":true})"};
    };
};

TEST_F(ApiTest, Projects) {
    const json expected = {{"projects",
                            {{{"name", "p"},
                              {"id", stable_id("p")},
                              {"runs", 12},       // 10 commits on m1, 2 on m2
                              {"benchmarks", 3},  // on the default machine
                              {"default_machine", "m1"},
                              {"machines",
                               {{{"name", "m1"},
                                 {"id", stable_id("m1")},
                                 {"runs", 10},
                                 {"first_time", start_ms + hour_ms},
                                 {"last_time", start_ms + 10 * hour_ms}},
                                {{"name", "m2"},
                                 {"id", stable_id("m2")},
                                 {"runs", 2},
                                 {"first_time", start_ms + hour_ms},
                                 {"last_time", start_ms + 2 * hour_ms}}}}}}}};
    EXPECT_EQ(get_json({"projects"}), expected);
}

TEST_F(ApiTest, BenchmarksOfTheDefaultMachine) {
    const json body = get_json({"projects", "p", "benchmarks"});
    EXPECT_EQ(body["project"], "p");
    EXPECT_EQ(body["machine"], "m1");
    EXPECT_EQ(body["default_branch"], "main");
    EXPECT_EQ(body["order"], "recorded");
    EXPECT_EQ(body["runs"], 10);
    EXPECT_EQ(body["first_time"], start_ms + hour_ms);
    EXPECT_EQ(body["last_time"], start_ms + 10 * hour_ms);
    const json change = {{"time", start_ms + 6 * hour_ms},
                         {"index", 5},
                         {"commit", "c06"},
                         {"changes", {{{"key", "julia"}, {"from", "1.10"}, {"to", "1.11"}}}}};
    EXPECT_EQ(body["environment_changes"], json::array({change}));
    // Three benchmarks measured, under the ten a suite event needs.
    EXPECT_EQ(body["suite_events"], json::array());
    ASSERT_EQ(body["benchmarks"].size(), 3u);
    const json expected_time = {{"id", stable_id("a")},
                                {"name", "a"},
                                {"metric", "time"},
                                {"unit", "ns"},
                                {"direction", "smaller"},
                                {"category", "Performance"},
                                {"points", 10},
                                {"latest", 120.0},
                                {"latest_time", start_ms + 10 * hour_ms},
                                {"latest_commit", "c10"},
                                {"typical_change", 0.0},
                                // The latest run's threshold, and the recent step's change,
                                // as DashboardTest.TrendFollowsTheMetricsDirection derives them.
                                {"threshold", 1.2 * 1.2 - 1},
                                {"trend", "regressed"},
                                {"trend_reason", "recent step"},
                                {"trend_change", 120.0 / 100.0 - 1},
                                {"retired", false},
                                // 100 up to c05, 120 from c06: one step of 120 / 100 − 1.
                                {"steps",
                                 {{{"time", start_ms + 6 * hour_ms},
                                   {"index", 5},
                                   {"commit", "c06"},
                                   {"before_commit", "c05"},
                                   {"change", 120.0 / 100.0 - 1}}}}};
    json time = body["benchmarks"][1];
    // The level method's 1.2² − 1, as DashboardTest.TrendFollowsTheMetricsDirection derives it.
    EXPECT_NEAR(time["detectable_change"].get<double>(), 0.44, 1e-12);
    time.erase("detectable_change");
    EXPECT_NEAR(time["threshold"].get<double>(), 0.44, 1e-12);
    time["threshold"] = expected_time["threshold"];
    EXPECT_EQ(time, expected_time);
    EXPECT_EQ(body["benchmarks"][0]["direction"], "bigger");
    EXPECT_EQ(body["benchmarks"][0]["trend"], "improved");
    EXPECT_EQ(body["benchmarks"][2]["retired"], true);
    EXPECT_EQ(body["benchmarks"][2]["latest_commit"], "c09");
}

TEST_F(ApiTest, BenchmarksOfAnotherMachine) {
    const json body = get_json({"projects", "p", "benchmarks"}, {{"machine", "m2"}});
    EXPECT_EQ(body["machine"], "m2");
    EXPECT_EQ(body["runs"], 2);
    ASSERT_EQ(body["benchmarks"].size(), 1u);
    EXPECT_EQ(body["benchmarks"][0]["latest"], 7.0);
}

TEST_F(ApiTest, WholeSeries) {
    const json body = get_json({"projects", "p", "series", stable_id("latency/x")});
    EXPECT_EQ(body["name"], "latency/x");
    EXPECT_EQ(body["machine"], "m1");
    EXPECT_EQ(body["total"], 9);
    EXPECT_EQ(body["downsampled"], false);
    EXPECT_EQ(body["value"].size(), 9u);
    EXPECT_EQ(body["commit"][8], "c09");
    EXPECT_EQ(body["subject"][0], "Fix it");
    EXPECT_EQ(body["author"][0], "Ann");
    EXPECT_EQ(body["url"][0], "");                           // no repository_url configured here
    EXPECT_EQ(body["time"][3], start_ms + 3 * hour_ms + 1);  // c04: 1 ms after c03
}

TEST_F(ApiTest, SeriesTextIsEscapedAndInvalidUtf8Replaced) {
    const Response response = get({"projects", "p", "series", stable_id("a")});
    // The tab and quotes escaped, the byte 0xff replaced by U+FFFD (EF BF BD in UTF-8).
    const std::string escaped = std::string(R"("Say \"hi\" \\ <b>\t)") + "\xEF\xBF\xBD\"";
    EXPECT_NE(response.body.find(escaped), std::string::npos) << response.body;
    const json body = json::parse(response.body);
    EXPECT_EQ(body["subject"][1], "Say \"hi\" \\ <b>\t\uFFFD");
    EXPECT_EQ(body["author"][1], "Bob");
}

TEST_F(ApiTest, SeriesRangeIsInclusiveAtBothEnds) {
    // +3 h … +5 h holds c03 and c04 (clamped to +3 h) and c05.
    const json body = get_json({"projects", "p", "series", stable_id("a")},
                               {{"from", std::to_string(start_ms + 3 * hour_ms)},
                                {"to", std::to_string(start_ms + 5 * hour_ms)}});
    EXPECT_EQ(body["commit"], json({"c03", "c04", "c05"}));
    EXPECT_EQ(body["total"], 3);
}

TEST_F(ApiTest, SeriesDownsampledKeepsTheStep) {
    // 10 values into 2 buckets: [0, 5) all 100 keeps c01; [5, 10) all 120 keeps c06.
    const json body = get_json({"projects", "p", "series", stable_id("a")}, {{"points", "4"}});
    EXPECT_EQ(body["value"], json({100.0, 120.0}));
    EXPECT_EQ(body["commit"], json({"c01", "c06"}));
    EXPECT_EQ(body["total"], 10);
    EXPECT_EQ(body["downsampled"], true);
}

TEST_F(ApiTest, PullsAndTheirComparison) {
    const json pulls = get_json({"projects", "p", "pulls"});
    const json expected = {{"pulls",
                            {{{"head", "f1"},
                              {"branch", "feature"},
                              {"pull_request", 7},
                              {"time", start_ms + 11 * hour_ms},
                              {"subject", ""},
                              {"author", ""},
                              {"url", ""},
                              {"base_index", 9},
                              {"base_commit", "c10"}}}}};
    EXPECT_EQ(pulls, expected);
    // The series of a benchmark the head measured carries its value beside its base's (120).
    json with_value = expected["pulls"][0];
    with_value["value"] = 150.0;
    with_value["change"] = 0.25;
    EXPECT_EQ(get_json({"projects", "p", "series", stable_id("a")})["pulls"],
              json::array({with_value}));
    EXPECT_EQ(get_json({"projects", "p", "pulls", "f1"}), json({{"compared", true}}));
    EXPECT_EQ(compared_, (std::vector<std::string>{"p m1 f1"}));
}

struct ErrorCase {
    std::vector<std::string> segments;
    Parameters parameters;
    int status;
    std::string message;
};

TEST_F(ApiTest, ErrorsNameWhatIsWrong) {
    const std::string a = stable_id("a");
    const std::vector<ErrorCase> cases = {
        {{},
         {},
         404,
         "no such route: /api/v1; see docs/dashboard.md for the routes of API version 1"},
        {{"nope"},
         {},
         404,
         "no such route: /api/v1/nope; see docs/dashboard.md for the routes of API version 1"},
        {{"projects", "zz", "benchmarks"},
         {},
         404,
         "unknown project 'zz'; GET /api/v1/projects lists them"},
        {{"projects", "p"},
         {},
         404,
         "no such route: /api/v1/projects/p; see docs/dashboard.md for the routes of API version "
         "1"},
        {{"projects", "p", "benchmarks", "x"},
         {},
         404,
         "no such route: /api/v1/projects/p/benchmarks/x; see docs/dashboard.md for the routes of "
         "API version 1"},
        {{"projects", "p", "benchmarks"},
         {{"machine", "m9"}},
         404,
         "project 'p' has no default-branch runs on machine 'm9'"},
        {{"projects", "p", "series", "ffff"},
         {},
         404,
         "project 'p' has no benchmark with id 'ffff' on machine 'm1'"},
        {{"projects", "p", "series", a},
         {{"points", "1"}},
         400,
         "query parameter 'points' must be an integer from 2 to 100000, not '1'"},
        {{"projects", "p", "series", a},
         {{"from", "yesterday"}},
         400,
         "query parameter 'from' must be an integer from -9223372036854775807 to "
         "9223372036854775807, not 'yesterday'"},
        {{"projects", "p", "series", a},
         {{"to", "12abc"}},
         400,
         "query parameter 'to' must be an integer from -9223372036854775807 to "
         "9223372036854775807, not '12abc'"},
    };
    for (const auto& error : cases) {
        const Response response = get(error.segments, error.parameters);
        EXPECT_EQ(response.status, error.status) << error.message;
        EXPECT_EQ(json::parse(response.body), json({{"error", error.message}}));
    }
}

TEST(ErrorResponse, EscapesTheMessageAsJson) {
    const Response response = error_response(404, "unknown project '<\"x\">'");
    EXPECT_EQ(response.body, R"({"error":"unknown project '<\"x\">'"})");
}

}  // namespace
}  // namespace benchwatch::serve
