// What could break: the path a new user of a Go project takes: `benchwatch run -- go test -bench`
// over several commits of the default branch, a dirty work tree that must not become history, a
// pull request with a real slowdown that `compare` must flag, and `history` and `history
// --changes` over commits years apart that were all benchmarked in one sitting.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 2016-03-01, 2018-03-01, 2020-03-01 and 2022-03-01, 12:00 UTC.
constexpr std::int64_t commit_dates[] = {1456833600, 1519905600, 1583064000, 1646136000};

// The library at a commit: Sum adds 1…n, `rounds` times over (the pull request's slowdown).
std::string library(int rounds, const std::string& note) {
    return "// Package trial adds numbers. " + note +
           "\npackage trial\n\n"
           "// Sum returns 1 + 2 + … + n, computed " +
           std::to_string(rounds) +
           " time(s).\nfunc Sum(n int) int {\n\ttotal := 0\n\tfor r := 0; r < " +
           std::to_string(rounds) +
           "; r++ {\n\t\ttotal = 0\n\t\tfor i := 1; i <= n; i++ {\n\t\t\ttotal += i\n\t\t}\n\t}\n"
           "\treturn total\n}\n";
}

const char* const library_test = R"(package trial

import "testing"

var sink int

func BenchmarkSum(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = Sum(2000)
	}
}
)";

class GoTrialTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (run({"go", "version"}, directory_.path()).exit_code != 0)
            GTEST_SKIP() << "go is not installed (apt-get install golang-go; scripts/test "
                            "installs it): the Go trial is skipped";
    }

    // benchwatch in the module's folder with the test's store, Go's caches in the temporary
    // folder, and no network.
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin() + 1,
                         {"--store", store_, "--project", "trial", "--machine", "m"});
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        environment["HOME"] = directory_.path().string();
        environment["GOCACHE"] = (directory_.path() / "go-cache").string();
        environment["GOPATH"] = (directory_.path() / "go-path").string();
        environment["GOPROXY"] = "off";
        environment["GOTOOLCHAIN"] = "local";
        return run(benchwatch_command(arguments), module_.directory(), environment);
    }

    // `benchwatch run` of the module's benchmarks: tiny and quick, but real. Three repetitions,
    // the best kept, so that one run slowed by a loaded machine cannot widen the short-history
    // margin of four runs past the pull request's 20-fold slowdown.
    vcs::ProcessOutput bench(std::vector<std::string> flags = {}) {
        std::vector<std::string> arguments = {"run", "--no-progress", "--repetitions", "3"};
        arguments.insert(arguments.end(), flags.begin(), flags.end());
        arguments.insert(arguments.end(),
                         {"--", "go", "test", "-run", "^$", "-bench", ".", "-benchtime", "20000x"});
        return benchwatch(arguments);
    }

    json json_of(const std::vector<std::string>& arguments) {
        const auto output = benchwatch(arguments);
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return json::parse(output.out);
    }

    TemporaryDirectory directory_{"benchwatch-go-trial"};
    std::string store_ = test_store_url(directory_.path());
    GitRepository module_{directory_.path() / "trial"};
};

TEST_F(GoTrialTest, DefaultBranchDirtyTreePullRequestCompareAndHistory) {
    module_.write_file("go.mod", "module example.com/trial\n\ngo 1.19\n");
    module_.write_file("sum_test.go", library_test);
    // The tests run beside each other: a run that other tests competed with would be left out
    // of the history, or its slowdown left inconclusive, which is not what this trial is about.
    module_.write_file("benchwatch.toml", "[run]\ncompeting_work = \"ignore\"\n");
    std::vector<std::string> commits;
    for (std::size_t i = 0; i < std::size(commit_dates); ++i) {
        module_.write_file("sum.go", library(1, "Version " + std::to_string(i + 1) + "."));
        commits.push_back(module_.commit_at("version " + std::to_string(i + 1), commit_dates[i]));
        const auto output = bench();
        ASSERT_EQ(output.exit_code, 0) << output.err;
        EXPECT_NE(output.out.find("branch main, attempt 1, 1 result)"), std::string::npos)
            << output.out;
    }
    const auto clean = json_of({"history", "--format", "json"});
    ASSERT_EQ(clean["runs"], 4);
    const double clean_latest = clean["benchmarks"][0]["latest"].get<double>();

    // An edit that makes Sum return at once: refused on the default branch, then allowed as a
    // dirty run that changes nothing of the history.
    write_text(module_.directory() / "sum.go",
               "package trial\n\nfunc Sum(n int) int { return n * (n + 1) / 2 }\n");
    const auto refused = bench();
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("has uncommitted changes to tracked files"), std::string::npos)
        << refused.err;
    const auto allowed = bench({"--allow-dirty"});
    ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
    const auto after_dirty = json_of({"history", "--format", "json"});
    EXPECT_EQ(after_dirty["runs"], 4);
    EXPECT_EQ(after_dirty["benchmarks"][0]["latest"].get<double>(), clean_latest);
    module_.git({"checkout", "--quiet", "--", "sum.go"});

    // A pull request that sums twenty times over.
    module_.git({"checkout", "--quiet", "-b", "slow-sum"});
    module_.write_file("sum.go", library(20, "Careful."));
    const auto head = module_.commit("sum twenty times");
    const auto pull = bench();
    ASSERT_EQ(pull.exit_code, 0) << pull.err;
    const auto report = json_of({"compare", "--format", "json"});
    EXPECT_EQ(report["head"], head);
    EXPECT_EQ(report["baseline"]["commit"], commits.back());
    ASSERT_EQ(report["benchmarks"].size(), 1u);
    EXPECT_EQ(report["benchmarks"][0]["name"], "BenchmarkSum");
    EXPECT_EQ(report["benchmarks"][0]["verdict"], "slower");
    EXPECT_EQ(benchwatch({"compare", "--fail-on-regression"}).exit_code, 1);

    // The history spans the commits' six years, in git's order, without the pull request.
    const auto text = benchwatch({"history"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(text.out.starts_with(
        "History of trial on m: 4 runs from 2016-03-01 to 2022-03-01 (git order)\n"))
        << text.out;
    const auto changes = benchwatch({"history", "--changes"});
    ASSERT_EQ(changes.exit_code, 0) << changes.err;
    EXPECT_TRUE(changes.out.starts_with("Steps in the history of trial on m: ")) << changes.out;
    EXPECT_NE(changes.out.find("in 4 runs (git order)"), std::string::npos) << changes.out;
}

}  // namespace
}  // namespace benchwatch::testing
