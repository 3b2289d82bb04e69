// What could break: a default branch benchmarked partly with `benchwatch record` (which captures
// few environment keys) and partly with `benchwatch run` (which captures arch, os, kernel,
// compilers…) reading as environment changes: `history --changes` saying "arch added" at a
// step, or the dashboard's data holding a change whose value on one side is missing (drawn as an
// arrow to nothing). And, the other way, a key both kinds of run recorded that really changed
// (an --env value, a compiler's version) no longer reported.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class MixedEnvironmentTest : public ::testing::Test {
  protected:
    MixedEnvironmentTest() {
        fs::create_directories(shims_);
        use_gcc("12.2.0");
        // A harness printing the time in `value` as Google Benchmark JSON.
        write_text(harness_,
                   "#!/bin/sh\nprintf '{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
                   "\"iteration\", \"real_time\": %s, \"time_unit\": \"ns\"}]}' \"$(cat " +
                       value_.string() + ")\"\n");
        fs::permissions(harness_, fs::perms::owner_all);
    }

    // A stand-in gcc first on PATH, reporting `version`.
    void use_gcc(const std::string& version) {
        const auto gcc = shims_ / "gcc";
        write_text(gcc, "#!/bin/sh\necho 'gcc (Shim) " + version + "'\n");
        fs::permissions(gcc, fs::perms::owner_all);
    }

    // benchwatch with the test's store, project and machine, in the repository, the shims first
    // on PATH.
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin() + 1,
                         {"--store", store_, "--project", "p", "--machine", "m"});
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        environment["PATH"] = shims_.string() + ":" + std::getenv("PATH");
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    // Commits c1…c16 on main, benchmark a at 100 ns up to c8 and 120 ns from c9 (one step,
    // between c8 and c9, trusted as in history_changes_test.cpp), recorded alternately by `run`
    // of the harness (odd commits) and by `record` of a results file (even ones), each with the
    // flags `extra(n)` for commit n. `before(n)` is called before commit n is benchmarked.
    // Returns the commits' full SHAs.
    std::vector<std::string> benchmark_commits(
        const std::function<std::vector<std::string>(int)>& extra,
        const std::function<void(int)>& before = [](int) {}) {
        std::vector<std::string> commits;
        for (int n = 1; n <= 16; ++n) {
            commits.push_back(repository_.commit("c" + std::to_string(n)));
            before(n);
            const std::string value = n <= 8 ? "100" : "120";
            std::vector<std::string> arguments;
            if (n % 2 == 1) {
                write_text(value_, value);
                arguments = {"run", "--no-progress"};
            } else {
                const auto file = directory_.path() / "results.json";
                write_text(file, R"({"benchmarks": [{"name": "a", "run_type": "iteration", )"
                                 R"("real_time": )" +
                                     value + R"(, "time_unit": "ns"}]})");
                arguments = {"record", file.string()};
            }
            const auto flags = extra(n);
            arguments.insert(arguments.begin() + 1, flags.begin(), flags.end());
            if (n % 2 == 1) arguments.insert(arguments.end(), {"--", harness_.string()});
            const auto output = benchwatch(arguments);
            EXPECT_EQ(output.exit_code, 0) << describe(arguments) << "\n" << output.err;
        }
        return commits;
    }

    std::string history_changes() {
        const auto output = benchwatch({"history", "--changes"});
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return output.out;
    }

    // The dashboard's data for p on m, as `site` writes it (the same document serve answers
    // /api/v1/projects/p/benchmarks with).
    json dashboard_benchmarks() {
        const auto folder = directory_.path() / "site";
        const auto written = benchwatch({"site", folder.string()});
        EXPECT_EQ(written.exit_code, 0) << written.err;
        const auto projects = json::parse(read_text(folder / "data" / "projects.json"));
        const auto& project = projects["projects"][0];
        const auto& machine = project["machines"][0];
        EXPECT_EQ(project["name"], "p");
        EXPECT_EQ(machine["name"], "m");
        return json::parse(read_text(folder / "data" / project["id"].get<std::string>() /
                                     machine["id"].get<std::string>() / "benchmarks.json"));
    }

    TemporaryDirectory directory_{"benchwatch-mixed"};
    std::string store_ = test_store_url(directory_.path());
    fs::path shims_ = directory_.path() / "shims";
    fs::path harness_ = directory_.path() / "harness.sh";
    fs::path value_ = directory_.path() / "value";
    GitRepository repository_{directory_.path() / "repo"};
};

// The dashboard's environment changes with a value missing on one side, as "KEY: FROM → TO".
std::vector<std::string> changes_to_or_from_nothing(const json& benchmarks) {
    std::vector<std::string> found;
    for (const auto& change : benchmarks["environment_changes"])
        for (const auto& key : change["changes"])
            if (key["from"] == "" || key["to"] == "")
                found.push_back(key["key"].get<std::string>() + ": " +
                                key["from"].get<std::string>() + " → " +
                                key["to"].get<std::string>());
    return found;
}

TEST_F(MixedEnvironmentTest, KeysOnlyRunCapturesAreNoChange) {
    const auto commits = benchmark_commits([](int) { return std::vector<std::string>{}; });

    const auto step = commits[7].substr(0, 9) + ".." + commits[8].substr(0, 9);  // c8..c9
    EXPECT_EQ(history_changes(),
              "Steps in the history of p on m: 1 in 16 runs (git order)\n"
              "a  " +
                  step + "  +20.0% worse\n");

    const auto benchmarks = dashboard_benchmarks();
    EXPECT_EQ(benchmarks["runs"], 16);
    EXPECT_EQ(changes_to_or_from_nothing(benchmarks), std::vector<std::string>{});
    EXPECT_EQ(benchmarks["environment_changes"], json::array());
}

TEST_F(MixedEnvironmentTest, AKeyBothKindsRecordedThatChangedIsStillReported) {
    // toolchain, given to both, is 1.0 up to c8 and 1.1 from c9, where the step is; gcc, which
    // only run captures, is 12.2.0 up to c8 and 13.1.0 from c9.
    const auto commits = benchmark_commits(
        [](int n) {
            return std::vector<std::string>{"--env", n <= 8 ? "toolchain=1.0" : "toolchain=1.1"};
        },
        [&](int n) {
            if (n == 9) use_gcc("13.1.0");
        });

    // c8 was recorded, so it has no compiler.gcc to compare c9's with; toolchain is on both sides.
    const auto step = commits[7].substr(0, 9) + ".." + commits[8].substr(0, 9);  // c8..c9
    EXPECT_EQ(history_changes(),
              "Steps in the history of p on m: 1 in 16 runs (git order)\n"
              "a  " +
                  step + "  +20.0% worse  environment: toolchain 1.0 → 1.1\n");

    // The dashboard carries c7's gcc past the recorded c8: both keys change at c9, and only there.
    const auto benchmarks = dashboard_benchmarks();
    EXPECT_EQ(changes_to_or_from_nothing(benchmarks), std::vector<std::string>{});
    ASSERT_EQ(benchmarks["environment_changes"].size(), 1u) << benchmarks["environment_changes"];
    const auto& change = benchmarks["environment_changes"][0];
    EXPECT_EQ(change["commit"], commits[8]);
    EXPECT_EQ(change["changes"], json::parse(R"([
        {"key": "compiler.gcc", "from": "12.2.0", "to": "13.1.0"},
        {"key": "toolchain", "from": "1.0", "to": "1.1"}])"));
}

}  // namespace
}  // namespace benchwatch::testing
