// What could break: the names a user meets in a store. A second clone of a repository in a
// folder of another name recording into a new project of that folder's name; a run starting a
// new project in a store that holds another without a word of it; and a mistyped project,
// machine or benchmark answered by a message about missing runs or steps instead of naming the
// nearest known name. Messages are checked word for word. And the commands that read a history
// looking on the host's name for a machine when the project has only one, or only one with
// runs on the default branch, instead of reading it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "store/store_url.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// A Google Benchmark file with one iteration row per benchmark, times in ns.
std::string google_benchmark_file(const std::vector<std::pair<std::string, double>>& rows) {
    std::string json = R"({"benchmarks": [)";
    for (std::size_t i = 0; i < rows.size(); ++i)
        json += (i ? ", " : "") + std::string(R"({"name": ")") + rows[i].first +
                R"(", "run_type": "iteration", "iterations": 10, "real_time": )" +
                std::to_string(rows[i].second) + R"(, "cpu_time": 1, "time_unit": "ns"})";
    return json + "]}\n";
}

class ProjectNamesTest : public ::testing::Test {
  protected:
    // benchwatch run in `directory`, seeing no CI variables and no user or system git
    // configuration; `extra` adds variables.
    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments,
                                  const fs::path& directory,
                                  const EnvironmentOverrides& extra = {}) {
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null";
        environment["GIT_CONFIG_NOSYSTEM"] = "1";
        for (const auto& [key, value] : extra) environment[key] = value;
        return run(benchwatch_command(arguments), directory, environment);
    }

    fs::path write(const std::string& name, const std::string& text) {
        write_text(folder_.path() / name, text);
        return folder_.path() / name;
    }

    // Records one run of `project` on `machine` for the fake commit `commit` on main.
    vcs::ProcessOutput record(const std::string& project, const std::string& machine,
                              const std::string& commit,
                              const std::vector<std::pair<std::string, double>>& rows) {
        const auto file =
            write(commit + "-" + std::to_string(++files_) + ".json", google_benchmark_file(rows));
        return benchwatch({"record", "--store", store_, "--project", project, "--machine", machine,
                           "--commit", fake_commit(commit), "--branch", "main", file.string()},
                          folder_.path());
    }

    std::string shown_store() const { return store::without_credentials(store_); }

    TemporaryDirectory folder_{"benchwatch-names"};
    std::string store_ = test_store_url(folder_.path());
    int files_ = 0;
};

TEST_F(ProjectNamesTest, ASecondCloneOfTheSameOriginRecordsIntoTheSameProject) {
    // Two clones of google/snappy, the second in a folder of another name, each with the other
    // spelling of GitHub's URL and a trailing slash or ".git".
    GitRepository first(folder_.path() / "snappy");
    first.git({"remote", "add", "origin", "https://github.com/google/snappy.git"});
    first.write_file("code.txt", "one\n");
    first.commit("code");
    GitRepository second(folder_.path() / "snappy2");
    second.git({"remote", "add", "origin", "git@github.com:google/snappy/"});
    second.write_file("code.txt", "two\n");
    second.commit("code");

    const auto results = write("results.json", google_benchmark_file({{"BM_Compress", 5}}));
    for (const auto* clone : {&first, &second}) {
        const auto output = benchwatch(
            {"record", "--store", store_, "--machine", "m", "--branch", "main", results.string()},
            clone->directory());
        ASSERT_EQ(output.exit_code, 0) << output.err;
        EXPECT_NE(output.out.find("(project snappy, machine m, branch main"), std::string::npos)
            << output.out;
        EXPECT_EQ(output.err, "");
    }
    EXPECT_EQ(store::open_store(store_)->projects(), std::vector<std::string>{"snappy"});

    // Without an origin the folder names the project, as before.
    GitRepository unpublished(folder_.path() / "scratch");
    unpublished.write_file("code.txt", "three\n");
    unpublished.commit("code");
    const auto output = benchwatch(
        {"record", "--store", store_, "--machine", "m", "--branch", "main", results.string()},
        unpublished.directory());
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(output.out.find("(project scratch, machine m"), std::string::npos) << output.out;
}

TEST_F(ProjectNamesTest, TheFirstRunOfANewProjectInAStoreWithAnotherSaysSo) {
    ASSERT_EQ(record("snappy", "m", "c0", {{"BM_Compress", 5}}).exit_code, 0);
    auto output = record("snappy2", "m", "c0", {{"BM_Compress", 5}});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.err, "note: this is the first run of project 'snappy2' in " + shown_store() +
                              ", which holds 'snappy'; pass --project snappy to add to it\n");
    // Its second run, and a run of a project the store holds, say nothing.
    EXPECT_EQ(record("snappy2", "m", "c1", {{"BM_Compress", 5}}).err, "");
    EXPECT_EQ(record("snappy", "m", "c1", {{"BM_Compress", 5}}).err, "");

    // A project name with a control character is refused; one that could read as a workflow
    // command is kept.
    output = record("zlib\x1b", "m", "c0", {{"BM_Compress", 5}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: the run: project name \"zlib\\x1b\" holds control character U+001B; names "
              "must be printable on one line\n");
    // `run` says so too, naming the nearest of several projects, its name made safe to print.
    ASSERT_EQ(record("zlib##[", "m", "c0", {{"BM_Compress", 5}}).exit_code, 0);
    const auto results = write("run.json", google_benchmark_file({{"BM_Compress", 5}}));
    output = benchwatch(
        {"run", "--store", store_, "--project", "zlip", "--machine", "m", "--commit",
         fake_commit("c0"), "--branch", "main", "--no-progress", "--", "cat", results.string()},
        folder_.path());
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.err.substr(output.err.find("note: ")),
              "note: this is the first run of project 'zlip' in " + shown_store() +
                  ", which holds 'zlib##\\u{5b}' and 2 other projects; pass --project "
                  "'zlib##\\u{5b}' to add to it\n");
}

TEST_F(ProjectNamesTest, AMistypedNameIsNamedWithTheNearestOnEveryCommandThatReadsIt) {
    // A repository whose benchwatch.toml can build and measure a commit, as bisect needs.
    GitRepository repository(folder_.path() / "repo");
    repository.write_file("benchwatch.toml", "[measure]\nbuild = \"true\"\nrun = \"true\"\n");
    repository.commit("config");
    const auto here = repository.directory();
    const std::string store = store_;
    for (const auto& commit : {"c0", "c1", "c2"})
        ASSERT_EQ(record("snappy", "ci-linux", commit, {{"BM_Compress", 5}, {"BM_Uncompress", 7}})
                      .exit_code,
                  0);
    ASSERT_EQ(record("zlib", "ci-linux", "c0", {{"BM_Inflate", 5}}).exit_code, 0);

    const std::string no_project = "error: no project 'snapy' in " + shown_store() +
                                   "; did you mean 'snappy'? (projects: snappy, zlib)\n";
    const std::string no_machine = "error: no machine 'ci-linx' for project 'snappy' in " +
                                   shown_store() +
                                   "; did you mean 'ci-linux'? (machines: ci-linux)\n";
    const std::vector<std::string> snapy{"--store", store,       "--project",
                                         "snapy",   "--machine", "ci-linux"};
    const std::vector<std::string> linx{"--store", store,       "--project",
                                        "snappy",  "--machine", "ci-linx"};
    const auto with = [](std::vector<std::string> arguments, const std::vector<std::string>& more) {
        arguments.insert(arguments.end(), more.begin(), more.end());
        return arguments;
    };
    const EnvironmentOverrides tokens{{"GITHUB_TOKEN", "t"}, {"GITLAB_TOKEN", "t"}};
    struct Case {
        std::vector<std::string> arguments;
        std::string error;
    };
    const std::vector<Case> cases = {
        {with({"compare"}, with(snapy, {"--head", fake_commit("c2")})), no_project},
        {with({"compare"}, with(linx, {"--head", fake_commit("c2")})), no_machine},
        {with({"history"}, snapy), no_project},
        {with({"history"}, linx), no_machine},
        {with({"history"}, with(linx, {"--changes"})), no_machine},
        {with({"backtest"}, snapy), no_project},
        {with({"bisect", "--benchmark", "BM_Compress"}, snapy), no_project},
        {with({"github", "comment", "--repository", "o/r", "--pull-request", "1", "--head",
               fake_commit("c2")},
              snapy),
         no_project},
        {with({"gitlab", "comment", "--gitlab-project", "g/p", "--merge-request", "1", "--head",
               fake_commit("c2")},
              linx),
         no_machine},
        {{"history-branch", "push", "--store", store, "--project", "snapy"}, no_project},
        {{"copy", "--from", store, "--to", test_store_url(folder_.path(), "copy_target"),
          "--machine", "ci-linx"},
         "error: no machine 'ci-linx' in " + shown_store() +
             "; did you mean 'ci-linux'? (machines: ci-linux)\n"},
        // A benchmark, and a history's prefix of several.
        {with({"history"}, with(snapy, {"BM_Compresss"})), no_project},
        {{"history", "--store", store, "--project", "snappy", "--machine", "ci-linux",
          "BM_Compresss"},
         "error: no benchmark 'BM_Compresss' in project 'snappy' in " + shown_store() +
             "; did you mean 'BM_Compress'? (benchmarks: BM_Compress, BM_Uncompress)\n"},
        {{"bisect", "--store", store, "--project", "snappy", "--machine", "ci-linux", "--benchmark",
          "BM_Nope"},
         "error: no benchmark 'BM_Nope' in project 'snappy' in " + shown_store() +
             "; benchmarks: BM_Compress, BM_Uncompress\n"},
        // None near: the known names alone.
        {{"compare", "--store", store, "--project", "lz4", "--machine", "ci-linux", "--head",
          fake_commit("c2")},
         "error: no project 'lz4' in " + shown_store() + "; projects: snappy, zlib\n"},
    };
    for (const auto& [arguments, error] : cases) {
        const auto output = benchwatch(arguments, here, tokens);
        EXPECT_EQ(output.exit_code, 2) << describe(arguments) << "\n" << output.err;
        EXPECT_EQ(output.err, error) << describe(arguments);
        EXPECT_EQ(output.out, "") << describe(arguments);
    }
    // The names spelt right pass (read outside the repository, which has none of the recorded
    // commits).
    const auto right = benchwatch({"history", "--store", store, "--project", "snappy", "--machine",
                                   "ci-linux", "BM_Compress"},
                                  folder_.path());
    EXPECT_EQ(right.exit_code, 0) << right.err;

    // serve --project, which would otherwise serve and never exit: killed after 30 s.
    auto serve = run_with_timeout(benchwatch_command({"serve", "--store", store, "--project",
                                                      "snapy", "--listen", "127.0.0.1:0"}),
                                  here, without_ci_variables(), std::chrono::seconds(30));
    ASSERT_FALSE(serve.timed_out) << serve.timeout_message;
    EXPECT_EQ(serve.exit_code, 2);
    EXPECT_EQ(serve.err, no_project);
}

TEST_F(ProjectNamesTest, WithoutAMachineNamedTheProjectsOnlyMachineIsRead) {
    // A repository whose benchwatch.toml can build and measure a commit, as bisect needs.
    GitRepository repository(folder_.path() / "repo");
    repository.write_file("benchwatch.toml", "[measure]\nbuild = \"true\"\nrun = \"true\"\n");
    repository.commit("config");
    for (const auto& commit : {"c0", "c1", "c2"})
        ASSERT_EQ(record("snappy", "ci-linux", commit, {{"BM_Compress", 5}}).exit_code, 0);
    const std::vector<std::string> snappy{"--store", store_, "--project", "snappy"};
    const auto with = [&](std::vector<std::string> arguments) {
        arguments.insert(arguments.begin() + 1, snappy.begin(), snappy.end());
        return arguments;
    };

    const auto history = benchwatch(with({"history"}), folder_.path());
    EXPECT_EQ(history.exit_code, 0) << history.err;
    EXPECT_EQ(history.out.substr(0, history.out.find(':')), "History of snappy on ci-linux");
    const auto compare = benchwatch(with({"compare", "--head", fake_commit("c2")}), folder_.path());
    EXPECT_EQ(compare.exit_code, 0) << compare.err;
    const auto backtest = benchwatch(with({"backtest"}), folder_.path());
    EXPECT_EQ(backtest.exit_code, 2);
    EXPECT_THAT(backtest.err, ::testing::HasSubstr("runs of project 'snappy' on machine "
                                                   "'ci-linux' (branch 'main') and found 3"));
    const auto bisect =
        benchwatch(with({"bisect", "--benchmark", "BM_Compress"}), repository.directory());
    EXPECT_EQ(bisect.exit_code, 2);
    EXPECT_EQ(bisect.err,
              "error: history --changes finds no step of 'BM_Compress' (time) on main; pass "
              "--good and --bad to bisect a range of your own\n");

    // A pull request's run on another machine adds no default-branch history: the machine
    // with it is still the one read.
    const auto pull_file = write("pull.json", google_benchmark_file({{"BM_Compress", 6}}));
    ASSERT_EQ(benchwatch({"record", "--store", store_, "--project", "snappy", "--machine", "laptop",
                          "--commit", fake_commit("c3"), "--branch", "feature", pull_file.string()},
                         folder_.path())
                  .exit_code,
              0);
    const auto beside_a_pull = benchwatch(with({"history"}), folder_.path());
    EXPECT_EQ(beside_a_pull.exit_code, 0) << beside_a_pull.err;
    EXPECT_EQ(beside_a_pull.out.substr(0, beside_a_pull.out.find(':')),
              "History of snappy on ci-linux");

    // Two machines with a history: none is chosen, and the error names both. A comparison
    // reads the head's run, which is this host's unless a machine is named: its error lists
    // every machine.
    ASSERT_EQ(record("snappy", "ci-mac", "c0", {{"BM_Compress", 9}}).exit_code, 0);
    for (const auto& arguments : {with({"history"}), with({"backtest"})}) {
        const auto two = benchwatch(arguments, folder_.path());
        EXPECT_EQ(two.exit_code, 2) << describe(arguments);
        EXPECT_THAT(two.err, ::testing::HasSubstr("; pass --machine with one of those with runs "
                                                  "on main: ci-linux, ci-mac\n"))
            << describe(arguments);
    }
    const auto compare_two =
        benchwatch(with({"compare", "--head", fake_commit("c2")}), folder_.path());
    EXPECT_EQ(compare_two.exit_code, 2);
    EXPECT_THAT(compare_two.err, ::testing::HasSubstr("machines: ci-linux, ci-mac, laptop"));
}

}  // namespace
}  // namespace benchwatch::testing
