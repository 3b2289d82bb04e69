// What could break: benchwatch confirm confirming a one-off fluke or dismissing a real change on
// noisy, heavy-tailed timings, running more rounds than it needs or than --max-rounds allows,
// or failing with anything but one line naming the command, file or benchmark at fault.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// BM_Real is 15% slower in head and BM_Faster 12% faster; BM_Fluke and BM_Steady are unchanged.
// tests/data/confirm/flagged.json flags BM_Real (+15%), BM_Faster (−12%) and, as a fluke,
// BM_Fluke (+12%); BM_Steady is not flagged.
const std::string kBenchmarks =
    "BM_Real:1000:0.15 BM_Fluke:2000:0 BM_Faster:500:-0.12 BM_Steady:800:0";

class ConfirmTest : public ::testing::Test {
  protected:
    std::string harness(const std::string& mode, const std::string& benchmarks = kBenchmarks) {
        return std::string(BENCHWATCH_NOISY_HARNESS) + " " + directory_.path().string() + " " +
               mode + " " + benchmarks;
    }

    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments,
                                  const std::string& seed = "1") {
        auto environment = without_ci_variables();
        environment["BENCHWATCH_NOISE_SEED"] = seed;
        return run(benchwatch_command(arguments), directory_.path(), environment);
    }

    // How many times the harness ran.
    int invocations() const { return std::stoi(read_text(directory_.path() / "invocations")); }

    static std::string flagged_report() {
        return std::string(BENCHWATCH_TEST_DATA) + "/confirm/flagged.json";
    }

    TemporaryDirectory directory_{"benchwatch-confirm"};
};

TEST_F(ConfirmTest, ConfirmsRealChangesAndDismissesTheFlukeWithinTheBudget) {
    for (const std::string seed : {"1", "2", "3", "4", "5"}) {
        fs::remove(directory_.path() / "invocations");
        const auto output = benchwatch(
            {"confirm", "--base-cmd", harness("base"), "--head-cmd", harness("head"),
             "--only-unusual", flagged_report(), "--format", "json", "--max-rounds", "30"},
            seed);
        ASSERT_EQ(output.exit_code, 0) << output.err;
        const auto report = nlohmann::json::parse(output.out);
        ASSERT_EQ(report["benchmarks"].size(), 3u) << "BM_Steady was not flagged";
        std::map<std::string, std::string> verdicts;
        for (const auto& benchmark : report["benchmarks"])
            verdicts[benchmark["name"]] = benchmark["verdict"].get<std::string>() + " " +
                                          benchmark["measured"].get<std::string>();
        EXPECT_EQ(verdicts["BM_Real"], "confirmed slower") << "seed " << seed;
        EXPECT_EQ(verdicts["BM_Faster"], "confirmed faster") << "seed " << seed;
        EXPECT_EQ(verdicts["BM_Fluke"], "dismissed unchanged") << "seed " << seed;
        EXPECT_EQ(report["stopped"], "all decided") << "seed " << seed;
        // Every round ran each command once, and no more rounds than allowed.
        const int rounds = report["rounds"];
        EXPECT_LE(rounds, 30);
        EXPECT_GE(rounds, report["first_deciding_round"].get<int>());
        EXPECT_EQ(invocations(), 2 * rounds) << "seed " << seed;
    }
}

TEST_F(ConfirmTest, TextReportOfSeedOne) {
    const auto output = benchwatch({"confirm", "--base-cmd", harness("base"), "--head-cmd",
                                    harness("head"), "--only-unusual", flagged_report()});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto expected = std::string(
                              "Re-measured 3 benchmarks over 8 rounds, base and head interleaved "
                              "(stopped: all decided).\n"
                              "Base: ") +
                          harness("base") + "\nHead: " + harness("head") + "\n\n";
    ASSERT_GE(output.out.size(), expected.size());
    EXPECT_EQ(output.out.substr(0, expected.size()), expected);
    EXPECT_NE(output.out.find("\n2 confirmed (1 slower, 1 faster), 1 dismissed, 0 undecided.\n"),
              std::string::npos)
        << output.out;
    EXPECT_EQ(invocations(), 16);
}

TEST_F(ConfirmTest, WithoutAReportEveryCommonBenchmarkIsJudgedAgainstTheMinimumChange) {
    const auto output = benchwatch({"confirm", "--base-cmd", harness("base"), "--head-cmd",
                                    harness("head"), "--format", "json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto report = nlohmann::json::parse(output.out);
    std::vector<std::string> rows;
    for (const auto& benchmark : report["benchmarks"])
        rows.push_back(benchmark["name"].get<std::string>() + " " +
                       benchmark["verdict"].get<std::string>() + " " +
                       benchmark["measured"].get<std::string>());
    EXPECT_EQ(rows, (std::vector<std::string>{
                        "BM_Faster confirmed faster", "BM_Fluke dismissed unchanged",
                        "BM_Real confirmed slower", "BM_Steady dismissed unchanged"}));
    EXPECT_TRUE(report["report"].is_null());
}

TEST_F(ConfirmTest, FailOnRegressionExitsOneWhenASlowdownIsConfirmed) {
    const auto output = benchwatch({"confirm", "--base-cmd", harness("base"), "--head-cmd",
                                    harness("head"), "--only-unusual", flagged_report(),
                                    "--fail-on-regression", "--format", "markdown"});
    EXPECT_EQ(output.exit_code, 1) << output.err;
    EXPECT_EQ(output.out.substr(0, 17), "### Confirmation\n");
}

TEST_F(ConfirmTest, MaxRoundsLeavesBenchmarksUndecided) {
    const auto output =
        benchwatch({"confirm", "--base-cmd", harness("base"), "--head-cmd", harness("head"),
                    "--only-unusual", flagged_report(), "--max-rounds", "5", "--format", "json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto report = nlohmann::json::parse(output.out);
    EXPECT_EQ(report["rounds"], 5);
    EXPECT_EQ(report["stopped"], "max rounds");
    // The confidence sequence at 0.05 needs 8 rounds (255 / 8 < 40 at 7): none can be decided.
    EXPECT_EQ(report["first_deciding_round"], 8);
    for (const auto& benchmark : report["benchmarks"]) {
        EXPECT_EQ(benchmark["verdict"], "undecided");
        EXPECT_TRUE(benchmark["change_low"].is_null());
    }
    EXPECT_EQ(invocations(), 10);
}

TEST_F(ConfirmTest, FailingCommandIsNamed) {
    const auto output = benchwatch(
        {"confirm", "--base-cmd", harness("base"), "--head-cmd", "echo broken >&2; exit 3"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: --head-cmd 'echo broken >&2; exit 3' failed in round 1: exit 3 (broken); "
              "fix the command and run confirm again\n");
    EXPECT_EQ(output.out, "");
}

TEST_F(ConfirmTest, CommandPrintingNothingIsNamed) {
    const auto output =
        benchwatch({"confirm", "--base-cmd", "true", "--head-cmd", harness("head")});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: --base-cmd 'true' printed nothing in round 1; make it print benchmark "
              "results, or pass --results FILE if it writes them to a file\n");
}

TEST_F(ConfirmTest, UnreadableReportIsNamed) {
    const auto missing = (directory_.path() / "missing.json").string();
    const auto output = benchwatch({"confirm", "--base-cmd", harness("base"), "--head-cmd",
                                    harness("head"), "--only-unusual", missing});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: cannot read the report " + missing +
                              "; write it with `benchwatch compare --output " + missing + "`\n");
}

TEST_F(ConfirmTest, FlaggedBenchmarkMissingFromTheOutputIsNamed) {
    const auto output = benchwatch({"confirm", "--base-cmd", harness("base"), "--head-cmd",
                                    harness("head", "BM_Fluke:2000:0 BM_Faster:500:-0.12"),
                                    "--only-unusual", flagged_report()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: benchmark 'BM_Real' is missing from the head command's results in round 1; "
              "make --head-cmd run every benchmark to confirm (or leave it out of "
              "--only-unusual's report)\n");
}

}  // namespace
}  // namespace benchwatch::testing
