// What could break: `benchwatch import github-action-benchmark` storing a history partly, twice,
// under the wrong suite or commit, or in a form that history and compare cannot use; a bad file
// changing the store.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const fs::path fixture = fs::path(BENCHWATCH_TEST_DATA) / "github-action-benchmark" / "history.js";
// ../shared/data beside the sources, or where scripts/test found it for a clone made elsewhere.
fs::path shared_data() {
    const char* const found = std::getenv("BENCHWATCH_SHARED_DATA");
    return found != nullptr && *found != '\0' ? fs::path(found) : fs::path(BENCHWATCH_SHARED_DATA);
}

const fs::path metal_history = shared_data() / "metal-gh-pages-data.js";

class ImportTest : public ::testing::Test {
  protected:
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.end(), {"--store", store(), "--project", "p", "--machine", "m"});
        return run(benchwatch_command(arguments), directory_.path(), without_ci_variables());
    }

    vcs::ProcessOutput import(const fs::path& file, const std::vector<std::string>& more = {}) {
        std::vector<std::string> arguments = {"import", "github-action-benchmark", file.string()};
        arguments.insert(arguments.end(), more.begin(), more.end());
        return benchwatch(arguments);
    }

    const std::string& store() const { return store_; }

    TemporaryDirectory directory_;
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(ImportTest, SeveralSuitesNeedSuite) {
    const auto output = import(fixture);
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + fixture.string() +
                              ": the history holds 3 suites ('Go Benchmarks', 'Julia Benchmarks', "
                              "'Throughput'); pass --suite with one of them\n");
    if (stores_on_postgres()) {
        EXPECT_EQ(store::open_store(store())->list_runs({}).size(), 0u);
    } else {
        EXPECT_FALSE(fs::exists(store()));
    }

    const auto unknown = import(fixture, {"--suite", "Rust"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.err,
              "error: " + fixture.string() +
                  ": no suite 'Rust'; the history holds 'Go Benchmarks', 'Julia Benchmarks', "
                  "'Throughput'\n");
}

TEST_F(ImportTest, ImportsOnceAndTheSecondTimeNothing) {
    const auto first = import(fixture, {"--suite", "Go Benchmarks"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(first.out,
              "imported 2 of 2 runs (2 benchmarks) from suite 'Go Benchmarks' into project p, "
              "machine m, branch main\n");
    const auto second = import(fixture, {"--suite", "Go Benchmarks"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(second.out,
              "imported 0 of 2 runs (2 benchmarks) from suite 'Go Benchmarks' into project p, "
              "machine m, branch main; 2 were already stored\n");

    const auto history = benchwatch({"history", "--format", "json"});
    ASSERT_EQ(history.exit_code, 0) << history.err;
    const auto json = nlohmann::json::parse(history.out);
    ASSERT_EQ(json.at("benchmarks").size(), 2u);
    // BenchmarkRender: 3.5 µs then 3.25 µs, in the order the action stored them.
    const auto& render = json.at("benchmarks").at(1);
    EXPECT_EQ(render.at("name"), "BenchmarkRender");
    ASSERT_EQ(render.at("values").size(), 2u);
    EXPECT_EQ(render.at("values").at(0).at("value"), 3500.0);
    EXPECT_EQ(render.at("values").at(1).at("value"), 3250.0);
}

TEST_F(ImportTest, BadFileChangesNothing) {
    ASSERT_EQ(import(fixture, {"--suite", "Go Benchmarks"}).exit_code, 0);
    const fs::path bad = directory_.path() / "data.js";
    write_text(bad, "window.BENCHMARK_DATA = {\"entries\": {\"S\": [{\"commit\": {\"id\": \"" +
                        std::string(40, 'c') +
                        "\"}, \"date\": 1, \"benches\": [{\"name\": \"a\", \"value\": 1}]}]}}");
    const auto output = import(bad);
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + bad.string() +
                              ":1:130: expected \"name\", \"value\" and \"unit\" in each bench\n");
    const auto history = benchwatch({"history", "--format", "json"});
    const auto json = nlohmann::json::parse(history.out);
    EXPECT_EQ(json.at("benchmarks").at(0).at("values").size(), 2u);
}

// What `record` refuses, import refuses in the same words: a time too small to compare.
TEST_F(ImportTest, AValueRecordRefusesIsRefusedInRecordsWords) {
    const std::string commit(40, 'a');
    const std::string problem =
        ": benchmark 'a', metric 'time': the value in ns is 1e-310, too small to compare (below "
        "2.2250738585072014e-308); results must hold normal numbers\n";
    const fs::path history = directory_.path() / "data.js";
    write_text(history, "window.BENCHMARK_DATA = {\"entries\": {\"S\": [{\"commit\": {\"id\": \"" +
                            commit +
                            "\"}, \"date\": 1, \"benches\": [{\"name\": \"a\", \"value\": "
                            "1e-310, \"unit\": \"ns\"}]}]}}");
    const auto imported = import(history);
    EXPECT_EQ(imported.exit_code, 2);
    EXPECT_EQ(imported.err, "error: " + history.string() + problem);

    const fs::path results = directory_.path() / "bench.json";
    write_text(results, R"([{"name": "a", "value": 1e-310, "unit": "ns"}])");
    const auto recorded =
        benchwatch({"record", "--commit", commit, "--branch", "main", results.string()});
    EXPECT_EQ(recorded.exit_code, 2);
    EXPECT_EQ(recorded.err, "error: " + results.string() + problem);
}

// The last two entries' commits of the Metal.jl history.
std::pair<std::string, std::string> last_two_commits(const fs::path& path) {
    std::string text = read_text(path);
    text.erase(0, text.find('{'));
    while (!text.empty() && text.back() != '}') text.pop_back();
    const auto entries = nlohmann::json::parse(text).at("entries").at("Metal Benchmarks");
    return {entries.at(entries.size() - 2).at("commit").at("id"),
            entries.back().at("commit").at("id")};
}

TEST_F(ImportTest, MetalHistoryImportsWholeAndCompares) {
    if (!fs::exists(metal_history))
        GTEST_SKIP() << metal_history << " is absent (it lives outside the project)";
    const auto first = import(metal_history);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(first.out,
              "imported 216 of 216 runs (79 benchmarks) from suite 'Metal Benchmarks' into "
              "project p, machine m, branch main\n");
    const auto again = import(metal_history);
    EXPECT_EQ(again.out,
              "imported 0 of 216 runs (79 benchmarks) from suite 'Metal Benchmarks' into project "
              "p, machine m, branch main; 216 were already stored\n");

    const auto [base, head] = last_two_commits(metal_history);
    const auto compare = benchwatch({"compare", "--head", head, "--format", "json"});
    ASSERT_EQ(compare.exit_code, 0) << compare.err;
    const auto report = nlohmann::json::parse(compare.out);
    EXPECT_EQ(report.at("baseline").at("commit"), base);
    EXPECT_EQ(report.at("history_order"), "recorded");
    int compared = 0;
    for (const auto& category : report.at("categories"))
        compared += category.at("compared").get<int>();
    EXPECT_EQ(compared, 79);

    const auto history = benchwatch({"history", "--format", "json"});
    ASSERT_EQ(history.exit_code, 0) << history.err;
    EXPECT_EQ(nlohmann::json::parse(history.out).at("benchmarks").size(), 79u);
}

}  // namespace
}  // namespace benchwatch::testing
