// What could break: github-action-benchmark's custom JSON or a data.js history read with the
// wrong units, directions or extra fields, entries given to the wrong commit, an import that is
// not the same twice, or a malformed history accepted or reported without its place.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ingest/github_action_benchmark.hpp"
#include "ingest/ingest.hpp"
#include "support/test_support.hpp"

namespace benchwatch::ingest {
namespace {

namespace fs = std::filesystem;

const fs::path data_dir = fs::path(BENCHWATCH_TEST_DATA) / "github-action-benchmark";

std::string history_error(const std::string& text) {
    const testing::TemporaryDirectory directory;
    const fs::path path = directory.path() / "data.js";
    testing::write_text(path, text);
    try {
        read_github_action_benchmark_history(path);
    } catch (const InputError& error) {
        const std::string message = error.what();
        return message.substr(path.string().size());
    }
    return "no error";
}

TEST(GithubActionBenchmark, CustomJsonIsDetectedAndKeepsUnitsAndDirections) {
    const ParsedResults parsed = parse_file(data_dir / "custom_smaller.json", "auto");
    EXPECT_EQ(parsed.format, "github-action-benchmark");
    ASSERT_EQ(parsed.results.size(), 4u);

    const model::Result& small = parsed.results[0];
    EXPECT_EQ(small.benchmark, "parse/small");
    EXPECT_EQ(small.metric, "time");
    EXPECT_EQ(small.unit, "ns");
    EXPECT_DOUBLE_EQ(small.value, 1.5e6);  // 1.5 ms
    EXPECT_EQ(small.direction, model::Direction::SmallerIsBetter);
    EXPECT_FALSE(small.samples.has_value());

    const model::Result& large = parsed.results[1];
    EXPECT_EQ(large.benchmark, "parse/large");
    EXPECT_DOUBLE_EQ(large.value, 1234.0);  // ns/iter is already ns
    EXPECT_EQ(large.allocations, 3.0);
    EXPECT_EQ(large.memory, 4096.0);

    const model::Result& requests = parsed.results[2];
    EXPECT_EQ(requests.metric, "throughput");
    EXPECT_EQ(requests.unit, "ops/s");
    EXPECT_DOUBLE_EQ(requests.value, 2500.0);
    EXPECT_EQ(requests.direction, model::Direction::BiggerIsBetter);

    const model::Result& size = parsed.results[3];
    EXPECT_EQ(size.metric, "KiB");
    EXPECT_EQ(size.unit, "KiB");
    EXPECT_DOUBLE_EQ(size.value, 812.0);
    EXPECT_EQ(size.direction, model::Direction::SmallerIsBetter);
}

TEST(GithubActionBenchmark, CustomJsonBadInputIsAOneLineError) {
    const auto error = [](const std::string& text) {
        try {
            parse(text, "bench.json", "github-action-benchmark");
        } catch (const InputError& failure) {
            return std::string(failure.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error(R"({"name": "a"})"),
              "bench.json: expected a JSON array of {\"name\", \"unit\", \"value\"} objects, as "
              "github-action-benchmark's custom tools read");
    EXPECT_EQ(error(R"([{"name": "a", "value": 1}])"),
              "bench.json:1:2: expected \"name\", \"value\" and \"unit\" in each bench");
    EXPECT_EQ(
        error(
            R"([{"name": "a", "value": 1, "unit": "ns"}, {"name": "a", "value": 2, "unit": "ns"}])"),
        "bench.json:1:43: benchmark 'a' appears twice");
    EXPECT_EQ(error(R"([{"name": "a", "value": -1, "unit": "ms"}])"),
              "bench.json: benchmark 'a': time must be a positive number, got -1000000");
    EXPECT_EQ(error(R"([{"name": "a", "value": -1, "unit": "ops/sec"}])"),
              "bench.json:1:2: benchmark 'a': value must be a non-negative number, got -1");
    // Finite in the file, but not once converted to the unit benchwatch stores.
    EXPECT_EQ(error(R"([{"name": "a", "value": 1e308, "unit": "MB/s"}])"),
              "bench.json:1:2: benchmark 'a': 1e+308 MB/s is too large to store in B/s");
    EXPECT_EQ(error(R"([{"name": "a", "value": 1e300, "unit": "s"}])"),
              "bench.json: benchmark 'a': time is too large to store in ns");
    EXPECT_EQ(error(R"([{"name": "a", "value": "fast", "unit": "ns"}])"),
              "bench.json:1:25: expected a number for \"value\", got a string");
}

TEST(GithubActionBenchmark, OtherArraysAreNotClaimed) {
    // The fixtures of the other array formats are not custom JSON.
    for (const char* other : {"benchmarktools", "jmh"}) {
        for (const auto& entry : fs::directory_iterator(fs::path(BENCHWATCH_TEST_DATA) / other)) {
            if (entry.path().extension() != ".json") continue;
            EXPECT_NE(parse_file(entry.path(), "auto").format, "github-action-benchmark")
                << entry.path();
        }
    }
    // Without a unit, an array of benches is nobody's.
    try {
        parse(R"([{"name": "a", "value": 1}])", "r.json", "auto");
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_TRUE(std::string(error.what()).starts_with("r.json: unknown results format"))
            << error.what();
    }
}

TEST(GithubActionBenchmarkHistory, ReadsEverySuiteEntryAndCommit) {
    const ImportedHistory history = read_github_action_benchmark_history(data_dir / "history.js");
    EXPECT_EQ(history.repository_url, "https://github.com/example/widgets");
    ASSERT_EQ(history.suites.size(), 3u);
    EXPECT_EQ(history.suites[0].name, "Go Benchmarks");
    EXPECT_EQ(history.suites[1].name, "Julia Benchmarks");
    EXPECT_EQ(history.suites[2].name, "Throughput");

    const auto& go = history.suites[0].runs;
    ASSERT_EQ(go.size(), 2u);
    EXPECT_EQ(go[0].commit, "1111111111111111111111111111111111111111");
    EXPECT_EQ(go[0].commit_info.message, "Add the widget parser\n\nWith a benchmark.");
    EXPECT_EQ(go[0].commit_info.author, "Ada Lovelace");
    EXPECT_EQ(go[0].commit_info.timestamp, "2023-11-14T22:13:20+01:00");
    EXPECT_EQ(go[0].commit_info.url,
              "https://github.com/example/widgets/commit/1111111111111111111111111111111111111111");
    EXPECT_EQ(go[0].date_ms, 1700000000000);
    EXPECT_EQ(go[0].tool, "go");
    ASSERT_EQ(go[0].results.size(), 2u);
    EXPECT_EQ(go[0].results[0].benchmark, "BenchmarkParse");
    EXPECT_DOUBLE_EQ(go[0].results[0].value, 1250.0);
    EXPECT_EQ(go[0].results[1].benchmark, "BenchmarkRender");
    EXPECT_DOUBLE_EQ(go[0].results[1].value, 3500.0);  // 3.5 µs/op
    // Go's "800000 times" extra says nothing benchwatch keeps.
    EXPECT_FALSE(go[0].results[0].allocations.has_value());

    // The second entry lists its benches before its tool and commit.
    EXPECT_EQ(go[1].commit, "2222222222222222222222222222222222222222");
    EXPECT_EQ(go[1].commit_info.author, "Grace Hopper");
    EXPECT_EQ(go[1].date_ms, 1700000100000);
    EXPECT_DOUBLE_EQ(go[1].results[1].value, 3250.0);
    EXPECT_NE(go[0].content_hash, go[1].content_hash);

    const model::Result& ttfp = history.suites[1].runs.at(0).results.at(0);
    EXPECT_EQ(ttfp.benchmark, "latency/ttfp");
    EXPECT_DOUBLE_EQ(ttfp.value, 4403995333.0);
    EXPECT_EQ(ttfp.gc_time, 1250.0);
    EXPECT_EQ(ttfp.memory, 1312.0);
    EXPECT_EQ(ttfp.allocations, 38.0);

    const auto& throughput = history.suites[2].runs.at(0).results;
    ASSERT_EQ(throughput.size(), 2u);
    EXPECT_EQ(throughput[0].metric, "throughput");
    EXPECT_EQ(throughput[0].unit, "B/s");
    EXPECT_DOUBLE_EQ(throughput[0].value, 850e6);  // 850 MB/s
    EXPECT_EQ(throughput[0].direction, model::Direction::BiggerIsBetter);
    // The suite's tool says bigger is better, whatever the unit.
    EXPECT_EQ(throughput[1].metric, "fps");
    EXPECT_EQ(throughput[1].direction, model::Direction::BiggerIsBetter);
}

TEST(GithubActionBenchmarkHistory, ReadingTwiceGivesTheSameHashes) {
    const ImportedHistory first = read_github_action_benchmark_history(data_dir / "history.js");
    const ImportedHistory second = read_github_action_benchmark_history(data_dir / "history.js");
    EXPECT_EQ(first.suites[0].runs[0].content_hash, second.suites[0].runs[0].content_hash);
    EXPECT_EQ(first.suites[0].runs[1].content_hash, second.suites[0].runs[1].content_hash);
}

TEST(GithubActionBenchmarkHistory, PlainJsonWithoutTheAssignmentIsRead) {
    const testing::TemporaryDirectory directory;
    const fs::path path = directory.path() / "data.json";
    const std::string commit(40, 'c');
    testing::write_text(path, R"({"entries": {"S": [{"commit": {"id": ")" + commit +
                                  R"("}, "date": 5,
        "benches": [{"name": "a", "value": 2, "unit": "s"}]}]}})");
    const ImportedHistory history = read_github_action_benchmark_history(path);
    ASSERT_EQ(history.suites.size(), 1u);
    EXPECT_EQ(history.suites[0].runs.at(0).commit, commit);
    EXPECT_DOUBLE_EQ(history.suites[0].runs[0].results.at(0).value, 2e9);
}

TEST(GithubActionBenchmarkHistory, MalformedHistoryNamesThePlace) {
    EXPECT_EQ(history_error("window.BENCHMARK_DATA = {\"entries\": {\"S\": [{\"commit\": "),
              ":1:54: truncated JSON: the file ends inside an object or array");
    EXPECT_EQ(history_error("window.BENCHMARK_DATA = {\"lastUpdate\": 1};\n"),
              ": expected an object with \"entries\", as github-action-benchmark's data.js holds");
    EXPECT_EQ(history_error("{\"entries\": {\"S\": [{\"commit\": {\"id\": \"" +
                            std::string(40, 'c') + "\"}, \"date\": 5}]}}"),
              ":1:20: expected \"commit\" with an \"id\", \"date\" and \"benches\" in each entry");
    EXPECT_EQ(history_error("{\"entries\": {\"S\": {}}}"),
              ":1:19: expected an array for the entries of suite 'S', got an object");
    EXPECT_EQ(history_error("[1, 2]"), ":1:1: expected an object for the history, got an array");
}

TEST(GithubActionBenchmarkHistory, MissingFileCannotBeRead) {
    const fs::path path = data_dir / "no-such-file.js";
    try {
        read_github_action_benchmark_history(path);
        FAIL() << "no error";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()),
                  path.string() + ": cannot read: No such file or directory");
    }
}

}  // namespace
}  // namespace benchwatch::ingest
