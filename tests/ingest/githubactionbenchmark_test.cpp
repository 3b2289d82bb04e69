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
    // Go's "800000 times" extra says nothing benchwatch keeps; "4 procs" is GOMAXPROCS.
    EXPECT_FALSE(go[0].results[0].allocations.has_value());
    EXPECT_EQ(go[0].environment,
              (model::Environment{{"go.gomaxprocs", "4"}, {"statistic", "minimum"}}));

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

// The one entry of a history of tool `tool` whose entry holds `benches` (a JSON array) and
// `more` (further fields, each followed by a comma).
ImportedRun entry_of(const std::string& tool, const std::string& benches,
                     const std::string& more = "") {
    const testing::TemporaryDirectory directory;
    const fs::path path = directory.path() / "data.js";
    testing::write_text(path, R"(window.BENCHMARK_DATA = {"entries": {"S": [{"commit": {"id": ")" +
                                  std::string(40, 'a') + R"("}, "date": 1, )" + more +
                                  R"("tool": ")" + tool + R"(", "benches": )" + benches +
                                  "}]}};\n");
    return read_github_action_benchmark_history(path).suites.at(0).runs.at(0);
}

std::string statistic(const ImportedRun& run) {
    const auto found = run.environment.find("statistic");
    return found == run.environment.end() ? "none" : found->second;
}

// pytest-benchmark's reader stores a time per round under the node id; the action stored
// iterations per second (1 / the mean) under the same id.
TEST(GithubActionBenchmarkHistory, PytestOpsBecomeTheMeanTimeUnderTheNodeId) {
    const ImportedRun run = entry_of("pytest", R"([
        {"name": "bench.py::test_fib[10]", "value": 50000, "unit": "iter/sec",
         "range": "stddev: 4.8e-7", "extra": "mean: 20 usec\nrounds: 40161"},
        {"name": "bench.py::test_fib[20]", "value": 500, "unit": "iter/sec",
         "range": "stddev: 1e-5", "extra": "mean: 2 msec\nrounds: 489"}])");
    ASSERT_EQ(run.results.size(), 2u);
    EXPECT_EQ(run.results[0].benchmark, "bench.py::test_fib[10]");
    EXPECT_EQ(run.results[0].metric, "time");
    EXPECT_EQ(run.results[0].unit, "ns");
    EXPECT_EQ(run.results[0].direction, model::Direction::SmallerIsBetter);
    EXPECT_DOUBLE_EQ(run.results[0].value, 20000.0);  // 1 / 50000 s
    EXPECT_DOUBLE_EQ(run.results[1].value, 2e6);
    // The mean, not the minimum the reader keeps; rounds and means are no environment.
    EXPECT_EQ(run.environment, (model::Environment{{"statistic", "mean"}}));
}

// Google Benchmark's reader keeps the fastest repetition and leaves out the aggregate rows; the
// action stored every row under its name.
TEST(GithubActionBenchmarkHistory, GoogleBenchmarkRepetitionsKeepTheirMinimum) {
    const ImportedRun run = entry_of("googlecpp", R"([
        {"name": "BM_copy/64", "value": 1.5, "unit": "us/iter", "extra": "iterations: 10\ncpu: 1.4 us\nthreads: 1"},
        {"name": "BM_copy/64", "value": 1.25, "unit": "us/iter", "extra": "iterations: 10\ncpu: 1.2 us\nthreads: 1"},
        {"name": "BM_copy/64", "value": 1.75, "unit": "us/iter", "extra": "iterations: 10\ncpu: 1.7 us\nthreads: 1"},
        {"name": "BM_copy/64_mean", "value": 1.5, "unit": "us/iter", "extra": "iterations: 3\ncpu: 1.4 us\nthreads: 1"},
        {"name": "BM_copy/64_stddev", "value": 0.2, "unit": "us/iter", "extra": "iterations: 3\ncpu: 0.2 us\nthreads: 1"},
        {"name": "BM_sum", "value": 80, "unit": "ns/iter", "extra": "iterations: 9\ncpu: 79 ns\nthreads: 1"}])");
    ASSERT_EQ(run.results.size(), 2u);
    EXPECT_EQ(run.results[0].benchmark, "BM_copy/64");
    EXPECT_DOUBLE_EQ(run.results[0].value, 1250.0);
    EXPECT_EQ(run.results[1].benchmark, "BM_sum");
    EXPECT_DOUBLE_EQ(run.results[1].value, 80.0);
    EXPECT_EQ(run.environment,
              (model::Environment{{"extra.threads", "1"}, {"statistic", "minimum"}}));
}

// The Go reader keeps B/op and allocs/op on the benchmark's time and MB/s as its throughput; the
// action named them "BenchmarkX - unit".
TEST(GithubActionBenchmarkHistory, GoMetricsJoinTheirBenchmark) {
    const ImportedRun run = entry_of("go", R"([
        {"name": "BenchmarkParse", "value": 1250, "unit": "ns/op", "extra": "800000 times\n8 procs"},
        {"name": "BenchmarkParse - ns/op", "value": 1250, "unit": "ns/op", "extra": "800000 times\n8 procs"},
        {"name": "BenchmarkParse - MB/s", "value": 40, "unit": "MB/s", "extra": "800000 times\n8 procs"},
        {"name": "BenchmarkParse - B/op", "value": 512, "unit": "B/op", "extra": "800000 times\n8 procs"},
        {"name": "BenchmarkParse - allocs/op", "value": 3, "unit": "allocs/op", "extra": "800000 times\n8 procs"},
        {"name": "BenchmarkParse", "value": 1200, "unit": "ns/op", "extra": "900000 times\n8 procs"}])");
    ASSERT_EQ(run.results.size(), 2u);
    EXPECT_EQ(run.results[0].benchmark, "BenchmarkParse");
    EXPECT_EQ(run.results[0].metric, "time");
    EXPECT_DOUBLE_EQ(run.results[0].value, 1200.0);
    EXPECT_EQ(run.results[0].memory, 512.0);
    EXPECT_EQ(run.results[0].allocations, 3.0);
    EXPECT_EQ(run.results[1].benchmark, "BenchmarkParse");
    EXPECT_EQ(run.results[1].metric, "throughput");
    EXPECT_EQ(run.results[1].unit, "B/s");
    EXPECT_DOUBLE_EQ(run.results[1].value, 40e6);
    EXPECT_EQ(run.environment,
              (model::Environment{{"go.gomaxprocs", "8"}, {"statistic", "minimum"}}));
}

// The JMH reader names a benchmark with parameters "benchmark:key=value,…" and stores times in
// ns and throughput in ops/s.
TEST(GithubActionBenchmarkHistory, JmhNamesAndUnitsAsTheJmhReader) {
    const ImportedRun run = entry_of("jmh", R"json([
        {"name": "org.example.Bench.parse ( {\"size\":\"10\",\"kind\":\"json\"} )", "value": 2.5,
         "unit": "us/op", "extra": "iterations: 5\nforks: 1\nthreads: 1"},
        {"name": "org.example.Bench.count", "value": 3, "unit": "ops/ms",
         "extra": "iterations: 5\nforks: 1\nthreads: 1"}])json");
    ASSERT_EQ(run.results.size(), 2u);
    EXPECT_EQ(run.results[0].benchmark, "org.example.Bench.parse:size=10,kind=json");
    EXPECT_DOUBLE_EQ(run.results[0].value, 2500.0);
    EXPECT_EQ(run.results[1].benchmark, "org.example.Bench.count");
    EXPECT_EQ(run.results[1].metric, "throughput");
    EXPECT_EQ(run.results[1].unit, "ops/s");
    EXPECT_DOUBLE_EQ(run.results[1].value, 3000.0);
    EXPECT_EQ(statistic(run), "mean");
}

TEST(GithubActionBenchmarkHistory, StatisticPerTool) {
    const std::string bench = R"([{"name": "a", "value": 2, "unit": "ns"}])";
    EXPECT_EQ(statistic(entry_of("julia", bench)), "estimate");
    EXPECT_EQ(statistic(entry_of("benchmarkdotnet", bench)), "mean");
    EXPECT_EQ(statistic(entry_of("catch2", bench)), "mean");
    EXPECT_EQ(statistic(entry_of("cargo", R"([{"name": "a", "value": 2, "unit": "ns/iter"}])")),
              "median");
    // Custom and unknown tools are stored as the action stored them, with no statistic.
    EXPECT_EQ(statistic(entry_of("customSmallerIsBetter", bench)), "none");
    EXPECT_EQ(statistic(entry_of("benchmarkjs", bench)), "none");
    const ImportedRun rate =
        entry_of("benchmarkjs", R"([{"name": "fib", "value": 11465, "unit": "ops/sec"}])");
    EXPECT_EQ(rate.results.at(0).metric, "throughput");
    EXPECT_DOUBLE_EQ(rate.results.at(0).value, 11465.0);
}

// What data.js says of the runner and the interpreter becomes environment keys, so a runner
// change is a suite event; the values are untrusted: one line each, bounded.
TEST(GithubActionBenchmarkHistory, CpuAndExtraBecomeEnvironmentKeys) {
    const std::string long_model(300, 'x');
    const ImportedRun run =
        entry_of("pytest", R"([
        {"name": "t::a", "value": 10, "unit": "iter/sec",
         "extra": "mean: 100 msec\nrounds: 5\npython: 3.9.7\nhost: a"},
        {"name": "t::b", "value": 20, "unit": "iter/sec",
         "extra": "mean: 50 msec\nrounds: 7\npython: 3.9.7\nhost: b\nodd key: 1"}])",
                 R"("cpu": {"cores": 2, "speed": "2.30", "model": "Xeon\u001b[31m )" + long_model +
                     R"(", "manufacturer": "Intel", "cache": {"l1": 1}}, )");
    EXPECT_EQ(run.environment.at("cores"), "2");
    EXPECT_EQ(run.environment.at("cpu.speed"), "2.30");
    EXPECT_EQ(run.environment.at("cpu.manufacturer"), "Intel");
    const std::string& model = run.environment.at("cpu");
    EXPECT_TRUE(model.starts_with("Xeon [31m xxx")) << model;
    EXPECT_EQ(model.size(), 256u + std::string("\u2026").size());
    EXPECT_EQ(run.environment.at("extra.python"), "3.9.7");
    // Benches that disagree say nothing of the run; a key that is no name is left out.
    EXPECT_FALSE(run.environment.contains("extra.host"));
    EXPECT_FALSE(run.environment.contains("cpu.cache"));
    EXPECT_EQ(run.environment.size(), 6u);  // cores, cpu, cpu.speed, cpu.manufacturer, python,
                                            // statistic
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
