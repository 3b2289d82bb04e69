// What could break: a workflow in README.md or docs/*.md that does not parse, is not a complete
// file, calls a benchwatch subcommand or option the binary lacks, pastes a pull request's fields
// into a script run with secrets, or runs benchmarks that were not built optimised with their
// submodules; a [measure] recipe that builds unoptimised; or a recipe removed without anyone
// noticing.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "docs/workflow_check.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing::docs {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = BENCHWATCH_SOURCE_DIR;

// README.md and docs/*.md, as paths relative to the source folder, sorted.
std::vector<std::string> markdown_documents() {
    std::vector<std::string> documents{"README.md"};
    for (const auto& entry : fs::directory_iterator(source_dir / "docs"))
        if (entry.is_regular_file() && entry.path().extension() == ".md")
            documents.push_back(fs::relative(entry.path(), source_dir).generic_string());
    std::sort(documents.begin() + 1, documents.end());
    return documents;
}

// One BinaryHelp for the whole run: each help page is asked of the binary once.
const HelpLookup& real_help() {
    static BinaryHelp binary_help(benchwatch_binary());
    static const HelpLookup help = [](const std::vector<std::string>& chain) {
        return binary_help(chain);
    };
    return help;
}

// benchwatch's own action, checked once.
const ActionCheck& action_check() {
    static const ActionCheck check =
        check_action(read_text(source_dir / "action.yml"), "action.yml", real_help());
    return check;
}

DocumentCheck check_file(const std::string& document) {
    return check_document(read_text(source_dir / document), document, real_help(),
                          &action_check().inputs);
}

TEST(Action, IsACompositeActionCallingOnlyExistingCommandsAndFlags) {
    const auto& check = action_check();
    EXPECT_THAT(check.problems, ::testing::IsEmpty())
        << fmt::format("{}", fmt::join(check.problems, "\n"));
    for (const std::string input : {"run", "results", "project", "machine", "comment",
                                    "fail-on-regression", "github-token", "deb"})
        EXPECT_TRUE(check.inputs.contains(input)) << input;
    // history-branch pull and push, run, github comment, summary and status.
    EXPECT_GE(check.benchwatch_commands, 6);
}

// The action's step that runs and records, as a job would run it with `inputs` (each
// "${{ inputs.NAME }}" of its env replaced by the value given, or "" for an input not given),
// benchwatch on PATH, in `directory`.
vcs::ProcessOutput run_action_step(const std::string& step_name,
                                   const std::map<std::string, std::string>& inputs,
                                   const fs::path& directory, EnvironmentOverrides environment) {
    const YAML::Node action = YAML::LoadFile((source_dir / "action.yml").string());
    for (const auto& step : action["runs"]["steps"]) {
        if (!step["name"] || step["name"].as<std::string>() != step_name) continue;
        for (const auto& variable : step["env"]) {
            auto value = variable.second.as<std::string>();
            const std::string prefix = "${{ inputs.";
            if (value.starts_with(prefix)) {
                const auto name =
                    value.substr(prefix.size(), value.find(' ', prefix.size()) - prefix.size());
                const auto given = inputs.find(name);
                value = given == inputs.end() ? "" : given->second;
            }
            environment[variable.first.as<std::string>()] = value;
        }
        const auto bin = directory / "bin";
        fs::create_directories(bin);
        fs::create_symlink(benchwatch_binary(), bin / "benchwatch");
        environment["PATH"] = bin.string() + ":" + std::getenv("PATH");
        return run({"bash", "-e", "-c", step["run"].as<std::string>()}, directory, environment);
    }
    throw std::runtime_error("action.yml has no step named " + step_name);
}

TEST(Action, RecordsTheResultsFileTheHarnessWrites) {
    // pytest-benchmark as the action's `run` would call it with --benchmark-json bench.json: its
    // progress lines on standard output, its results in the file.
    TemporaryDirectory folder("benchwatch-action");
    const auto results_file =
        fs::path(BENCHWATCH_TEST_DATA) / "pytest-benchmark" / "with_data.json";
    const auto store = (folder.path() / "history.db").string();
    auto environment = without_ci_variables();
    environment["BENCHWATCH_STORE"] = store;
    environment["GITHUB_SHA"] = std::string(40, 'a');
    environment["GITHUB_REF_NAME"] = "main";
    const auto output = run_action_step(
        "Run and record the benchmarks",
        {{"run", "echo 'collected 2 items'; cp '" + results_file.string() + "' bench.json"},
         {"results", "bench.json"},
         {"project", "p"},
         {"machine", "m"},
         {"repetitions", "1"}},
        folder.path(), environment);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto history = run_checked(
        benchwatch_command({"history", "--store", store, "--project", "p", "--machine", "m"}),
        folder.path(), without_ci_variables());
    EXPECT_THAT(history.out, ::testing::StartsWith("History of p on m: 1 run")) << history.out;
}

TEST(Action, TheGithubActionsRecipesInstallBenchwatchWithIt) {
    EXPECT_GE(check_file("docs/github-actions.md").action_steps, 5);
}

class DocumentWorkflows : public ::testing::TestWithParam<std::string> {};

TEST_P(DocumentWorkflows, ParseAndCallOnlyExistingCommandsAndOptions) {
    const auto check = check_file(GetParam());
    EXPECT_THAT(check.problems, ::testing::IsEmpty())
        << fmt::format("{}", fmt::join(check.problems, "\n"));
}

INSTANTIATE_TEST_SUITE_P(Docs, DocumentWorkflows, ::testing::ValuesIn(markdown_documents()),
                         [](const ::testing::TestParamInfo<std::string>& parameter) {
                             auto name = parameter.param;
                             std::replace_if(
                                 name.begin(), name.end(),
                                 [](char c) {
                                     return !std::isalnum(static_cast<unsigned char>(c));
                                 },
                                 '_');
                             return name;
                         });

// What each document held when this test was written; a document with fewer blocks or
// commands lost a recipe. Raise the numbers when adding one.
struct Expected {
    int yaml_blocks;
    int benchwatch_commands;
};

TEST(DocsWorkflows, KeepEveryRecipe) {
    const std::map<std::string, Expected> expected{
        // Same repository, forks (2), self-hosted, confirming on a self-hosted runner, Actions
        // cache.
        {"docs/github-actions.md", {6, 23}},
        {"docs/dashboard.md", {1, 2}},
        {"docs/gitlab.md", {1, 5}},
        // The Buildkite pipeline and the GitHub workflow its dispatch triggers.
        {"docs/buildkite.md", {2, 5}},
    };
    int total_blocks = 0;
    int total_commands = 0;
    for (const auto& document : markdown_documents()) {
        const auto check = check_file(document);
        total_blocks += check.yaml_blocks;
        total_commands += check.benchwatch_commands;
        if (const auto found = expected.find(document); found != expected.end()) {
            EXPECT_GE(check.yaml_blocks, found->second.yaml_blocks) << document;
            EXPECT_GE(check.benchwatch_commands, found->second.benchwatch_commands) << document;
        }
    }
    // 6 + 1 + 1 + 2 blocks and 23 + 2 + 5 + 5 commands, from the table above.
    EXPECT_GE(total_blocks, 10);
    EXPECT_GE(total_commands, 35);
}

TEST(DocsWorkflows, TheBuildkiteRecipeIsAPipelineAndADispatchedWorkflow) {
    const auto check = check_file("docs/buildkite.md");
    EXPECT_EQ(check.buildkite_pipelines, 1);
    EXPECT_EQ(check.github_workflows, 1);
}

// The ```toml [measure] recipes whose `build` must be optimised, as when this test was written:
// one each in config.md, measure.md and github-actions.md.
TEST(DocsWorkflows, ChecksEveryMeasureRecipe) {
    const std::map<std::string, int> expected{
        {"docs/config.md", 1}, {"docs/github-actions.md", 1}, {"docs/measure.md", 1}};
    for (const auto& [document, builds] : expected)
        EXPECT_GE(check_file(document).measure_builds, builds) << document;
}

}  // namespace
}  // namespace benchwatch::testing::docs
