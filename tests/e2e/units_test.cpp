// What could break: a metric's unit or direction lost between a harness's file and the report:
// a throughput that drops reported as faster, its bytes per second shown as nanoseconds, or a
// benchmark's time and throughput merged into one row.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// go test -bench output of one benchmark that copies 1000 bytes per operation.
std::string go_output(double nanoseconds_per_op, double megabytes_per_second) {
    return "goos: linux\ngoarch: amd64\npkg: example.com/copy\n"
           "BenchmarkCopy-2   \t    1000\t" +
           std::to_string(nanoseconds_per_op) + " ns/op\t" + std::to_string(megabytes_per_second) +
           " MB/s\nPASS\n";
}

class UnitsTest : public ::testing::Test {
  protected:
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.end(), {"--store", store_, "--project", "p", "--machine", "m"});
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), directory_.path(), environment);
    }

    void record(const std::string& commit, const std::string& branch, const std::string& text) {
        const fs::path file = directory_.path() / (commit + ".txt");
        write_text(file, text);
        const auto output = benchwatch(
            {"record", "--commit", fake_commit(commit), "--branch", branch, file.string()});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    TemporaryDirectory directory_;
    std::string store_ = test_store_url(directory_.path(), "h");
};

TEST_F(UnitsTest, ThroughputThatDropsIsSlowerAndKeepsItsUnit) {
    // 1000 ns/op at 1000 B/op is 1000 MB/s; the pull request takes 1250 ns/op, 800 MB/s. Two
    // equal runs of history: the default method flags anything beyond the category minimum.
    record("before", "main", go_output(1000, 1000));
    record("base", "main", go_output(1000, 1000));
    record("head", "feature", go_output(1250, 800));
    const auto markdown =
        benchwatch({"compare", "--head", fake_commit("head"), "--base", fake_commit("base")});
    ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
    // Both rows are 25% worse (1250/1000 and 1000/800), so the mean does not cancel them out;
    // neither is too noisy.
    EXPECT_NE(markdown.out.find("| Performance | +25.0% | 2 | 0 | 0 | 2 |"), std::string::npos)
        << markdown.out;
    EXPECT_NE(markdown.out.find("| BenchmarkCopy | 1.00 µs | 1.25 µs | +25.0% 🔴 slower |"),
              std::string::npos)
        << markdown.out;
    // 800 / 1000 − 1 = −20%: less throughput, so slower, in bytes per second.
    EXPECT_NE(markdown.out.find(
                  "| BenchmarkCopy (throughput) | 1.00 GB/s | 800 MB/s | −20.0% 🔴 slower |"),
              std::string::npos)
        << markdown.out;

    const auto json =
        nlohmann::json::parse(benchwatch({"compare", "--head", fake_commit("head"), "--base",
                                          fake_commit("base"), "--format", "json"})
                                  .out);
    bool saw_throughput = false;
    for (const auto& benchmark : json.at("benchmarks")) {
        if (benchmark.at("metric") != "throughput") continue;
        saw_throughput = true;
        EXPECT_EQ(benchmark.at("unit"), "B/s");
        EXPECT_EQ(benchmark.at("direction"), "bigger");
        EXPECT_EQ(benchmark.at("verdict"), "slower");
    }
    EXPECT_TRUE(saw_throughput) << json.dump(2);
}

}  // namespace
}  // namespace benchwatch::testing
