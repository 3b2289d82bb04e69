// What could break: the checker of the docs' workflows letting through what it must refuse (an
// unknown option or subcommand, invalid YAML, a fragment, an injected expression, a benchmark
// run before an optimised build or built without its submodules) or misreading the YAML, TOML
// and shell it is given, which would make the test over the real docs pass for nothing.
#include "docs/workflow_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace benchwatch::testing::docs {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Help pages as CLI11 2.1 prints them, for a benchwatch with compare, site and github comment.
const std::map<std::vector<std::string>, std::string> fake_help_texts{
    {{},
     "benchwatch: continuous benchmarking.\n"
     "Usage: benchwatch [OPTIONS] SUBCOMMAND\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "  --version                   Display program version information and exit\n"
     "\n"
     "Subcommands:\n"
     "  compare                     Compare a pull request's run with its baseline\n"
     "  site                        Write the dashboard as static files\n"
     "  github                      Deliver the report on GitHub\n"},
    {{"compare"},
     "Compare a pull request's run with its baseline\n"
     "Usage: benchwatch compare [OPTIONS]\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "  --project TEXT REQUIRED     The project\n"
     "  --format TEXT:{markdown,json}\n"
     "                              Report format\n"
     "  --fail-on-regression        Exit 1 when a benchmark is slower\n"},
    {{"site"},
     "Write the dashboard as static files\n"
     "Usage: benchwatch site [OPTIONS] OUT\n"
     "\n"
     "Positionals:\n"
     "  OUT TEXT REQUIRED           The folder to write\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"},
    {{"github"},
     "Deliver the report on GitHub\n"
     "Usage: benchwatch github [OPTIONS] SUBCOMMAND\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "\n"
     "Subcommands:\n"
     "  comment                     Post the report on the pull request\n"},
    {{"github", "comment"},
     "Post the report on the pull request\n"
     "Usage: benchwatch github comment [OPTIONS]\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "  --report TEXT               A report made earlier\n"
     "\n"
     "Comparison:\n"
     "  --head TEXT                 The pull request's head\n"},
};

HelpPage fake_help(const std::vector<std::string>& chain) {
    const auto found = fake_help_texts.find(chain);
    if (found == fake_help_texts.end()) {
        ADD_FAILURE() << "the checker asked for the help of an unlisted chain: " << describe(chain);
        return {};
    }
    return parse_help(found->second);
}

std::vector<std::vector<std::string>> words_of(const std::vector<ShellCommand>& commands) {
    std::vector<std::vector<std::string>> words;
    for (const auto& command : commands) words.push_back(command.words);
    return words;
}

std::vector<int> lines_of(const std::vector<ShellCommand>& commands) {
    std::vector<int> lines;
    for (const auto& command : commands) lines.push_back(command.line);
    return lines;
}

TEST(YamlBlocks, TakesYamlAndYmlFencesAndSkipsOthersWhole) {
    const auto blocks = yaml_blocks(
        "# Title\n"                  // 1
        "```yaml\n"                  // 2
        "a: 1\n"                     // 3
        "```\n"                      // 4
        "```toml\n"                  // 5
        "b = 2\n"                    // 6
        "```\n"                      // 7
        "````markdown\n"             // 8
        "```yaml\n"                  // 9
        "not: a block of its own\n"  // 10
        "```\n"                      // 11
        "````\n"                     // 12
        "- item\n"                   // 13
        "  ```yml\n"                 // 14
        "  c: 3\n"                   // 15
        "  ```\n");                  // 16
    ASSERT_EQ(blocks.size(), 2U);
    EXPECT_EQ(blocks[0].fence_line, 2);
    EXPECT_EQ(blocks[0].text, "a: 1\n");
    EXPECT_EQ(blocks[1].fence_line, 14);
    EXPECT_EQ(blocks[1].text, "c: 3\n");
}

TEST(ShellCommands, JoinsContinuedLinesAndKeepsWordsAfterDoubleDash) {
    const auto commands = shell_commands(
        "benchwatch run --project p \\\n"
        "  --latency startup=\"./tool --version\" \\\n"
        "  -- ./bench 'a b' --benchmark_format=json\n");
    EXPECT_THAT(words_of(commands),
                ElementsAre(ElementsAre("benchwatch", "run", "--project", "p", "--latency",
                                        "startup=./tool --version", "--", "./bench", "a b",
                                        "--benchmark_format=json")));
    EXPECT_THAT(lines_of(commands), ElementsAre(1));
}

TEST(ShellCommands, SplitsOnEveryListAndPipelineOperator) {
    const auto commands = shell_commands("a 1 && b || c; d | e & f |& g");
    EXPECT_THAT(
        words_of(commands),
        ElementsAre(ElementsAre("a", "1"), ElementsAre("b"), ElementsAre("c"), ElementsAre("d"),
                    ElementsAre("e"), ElementsAre("f"), ElementsAre("g")));
}

TEST(ShellCommands, DropsCommentsButNotHashesInsideWords) {
    const auto commands = shell_commands(
        "# benchwatch --commented-out\n"
        "echo a#b # benchwatch --also-a-comment\n"
        "echo '# quoted'\n");
    EXPECT_THAT(words_of(commands),
                ElementsAre(ElementsAre("echo", "a#b"), ElementsAre("echo", "# quoted")));
    EXPECT_THAT(lines_of(commands), ElementsAre(2, 3));
}

TEST(ShellCommands, ScansCommandSubstitutionsAsCommandsOfTheirOwn) {
    const auto commands = shell_commands(
        "dirname \"$(/tmp/bw/scripts/build)\" >> \"$GITHUB_PATH\"\n"
        "echo \"$(benchwatch compare --format json | jq -r '.x')\" `benchwatch site`\n");
    EXPECT_THAT(words_of(commands),
                ElementsAre(ElementsAre("/tmp/bw/scripts/build"),
                            ElementsAre("dirname", "$(/tmp/bw/scripts/build)"),
                            ElementsAre("benchwatch", "compare", "--format", "json"),
                            ElementsAre("jq", "-r", ".x"), ElementsAre("benchwatch", "site"),
                            ElementsAre("echo", "$(benchwatch compare --format json | jq -r '.x')",
                                        "`benchwatch site`")));
}

TEST(ShellCommands, LeavesOutAssignmentsRedirectionsAndReservedWords) {
    const auto commands = shell_commands(
        "FOO=1 BAR=\"a b\" benchwatch compare 2>&1 | tee out\n"
        "if env X=2 benchwatch site out; then echo ok >&2; fi\n"
        "cat < in > out\n");
    EXPECT_THAT(words_of(commands),
                ElementsAre(ElementsAre("benchwatch", "compare"), ElementsAre("tee", "out"),
                            ElementsAre("benchwatch", "site", "out"), ElementsAre("echo", "ok"),
                            ElementsAre("cat")));
}

TEST(ShellCommands, SkipsHereDocumentBodies) {
    const auto commands = shell_commands(
        "cat > benchwatch.toml <<'EOF'\n"  // 1
        "benchwatch = --not-a-command\n"   // 2
        "EOF\n"                            // 3
        "cat <<-END\n"                     // 4
        "\tbenchwatch --neither\n"         // 5
        "\tEND\n"                          // 6
        "benchwatch compare\n");           // 7
    EXPECT_THAT(words_of(commands), ElementsAre(ElementsAre("cat"), ElementsAre("cat"),
                                                ElementsAre("benchwatch", "compare")));
    EXPECT_THAT(lines_of(commands), ElementsAre(1, 4, 7));
}

TEST(ShellCommands, KeepsGitHubExpressionsWholeAndCountsLinesFromTheFirst) {
    const auto commands = shell_commands(
        "echo start\n"  // 10
        "\n"            // 11
        "benchwatch compare --head \"${{ github.event.pull_request.head.sha }}\" \\\n"
        "  --format ${{ inputs.json && 'json' || 'markdown' }}\n"  // 13
        "echo end\n",                                              // 14
        10);
    EXPECT_THAT(words_of(commands),
                ElementsAre(ElementsAre("echo", "start"),
                            ElementsAre("benchwatch", "compare", "--head",
                                        "${{ github.event.pull_request.head.sha }}", "--format",
                                        "${{ inputs.json && 'json' || 'markdown' }}"),
                            ElementsAre("echo", "end")));
    EXPECT_THAT(lines_of(commands), ElementsAre(10, 12, 14));
}

TEST(ParseHelp, ReadsOptionsOfEveryGroupSubcommandsAndPositionals) {
    const auto top = parse_help(fake_help_texts.at({}));
    EXPECT_THAT(top.options, ElementsAre("--help", "--version", "-h"));
    EXPECT_THAT(top.subcommands, ElementsAre("compare", "github", "site"));
    EXPECT_FALSE(top.takes_positionals);

    const auto comment = parse_help(fake_help_texts.at({"github", "comment"}));
    EXPECT_THAT(comment.options, ElementsAre("--head", "--help", "--report", "-h"));
    EXPECT_THAT(comment.subcommands, IsEmpty());

    EXPECT_TRUE(parse_help(fake_help_texts.at({"site"})).takes_positionals);
}

TEST(CheckBenchwatchCommand, AcceptsListedOptionsInEveryForm) {
    EXPECT_THAT(check_benchwatch_command({"benchwatch", "compare", "--project", "p",
                                          "--format=json", "--fail-on-regression", "-h"},
                                         fake_help),
                IsEmpty());
    EXPECT_THAT(check_benchwatch_command({"./build/src/cli/benchwatch", "github", "comment",
                                          "--head", "abc", "--report", "r.md"},
                                         fake_help),
                IsEmpty());
    EXPECT_THAT(check_benchwatch_command({"benchwatch", "site", "public/"}, fake_help), IsEmpty());
}

TEST(CheckBenchwatchCommand, IgnoresTheHarnessOptionsAfterDoubleDash) {
    EXPECT_THAT(check_benchwatch_command({"benchwatch", "compare", "--project", "p", "--",
                                          "./bench", "--benchmark_format=json", "-x"},
                                         fake_help),
                IsEmpty());
}

TEST(CheckBenchwatchCommand, NamesEachUnknownOptionAndItsCommand) {
    EXPECT_THAT(check_benchwatch_command(
                    {"benchwatch", "github", "comment", "--event", "e.json", "--report=r.md", "-q"},
                    fake_help),
                ElementsAre("`benchwatch github comment --event e.json --report=r.md -q`: "
                            "unknown option --event of `benchwatch github comment`",
                            "`benchwatch github comment --event e.json --report=r.md -q`: "
                            "unknown option -q of `benchwatch github comment`"));
}

TEST(CheckBenchwatchCommand, NamesAnUnknownSubcommandAtAnyDepth) {
    EXPECT_THAT(check_benchwatch_command({"benchwatch", "comprae", "--project", "p"}, fake_help),
                ElementsAre("`benchwatch comprae --project p`: unknown subcommand \"comprae\" of "
                            "`benchwatch` (its help lists: compare, github, site)"));
    EXPECT_THAT(check_benchwatch_command({"benchwatch", "github", "status"}, fake_help),
                ElementsAre("`benchwatch github status`: unknown subcommand \"status\" of "
                            "`benchwatch github` (its help lists: comment)"));
}

// A complete workflow of one job; yaml-cpp keeps the key `on` a string (YAML 1.1 parsers may
// read it as true), which this test would notice by calling it neither GitHub's nor GitLab's.
constexpr const char* good_workflow =
    "```yaml\n"                                      // 1
    "name: benchmarks\n"                             // 2
    "on:\n"                                          // 3
    "  pull_request:\n"                              // 4
    "jobs:\n"                                        // 5
    "  benchmark:\n"                                 // 6
    "    runs-on: ubuntu-24.04\n"                    // 7
    "    steps:\n"                                   // 8
    "      - uses: actions/checkout@v4\n"            // 9
    "      - run: benchwatch site out\n"             // 10
    "      - run: |\n"                               // 11
    "          echo compare\n"                       // 12
    "          benchwatch compare --project p \\\n"  // 13
    "            --format markdown\n"                // 14
    "```\n";

TEST(CheckDocument, FindsNothingWrongInACompleteWorkflow) {
    const auto check = check_document(good_workflow, "docs/x.md", fake_help);
    EXPECT_THAT(check.problems, IsEmpty());
    EXPECT_EQ(check.yaml_blocks, 1);
    EXPECT_EQ(check.github_workflows, 1);
    EXPECT_EQ(check.benchwatch_commands, 2);
}

TEST(CheckDocument, NamesAnInputThatTheActionDoesNotDeclare) {
    std::string markdown = good_workflow;
    markdown.replace(markdown.find("      - uses: actions/checkout@v4\n"), 0,
                     "      - uses: OWNER/benchwatch@v0.1.0\n"   // 9
                     "        with:\n"                           // 10
                     "          run: ./bench\n"                  // 11
                     "          comments: 'true'\n");            // 12
    const std::set<std::string> inputs{"run", "comment"};
    const auto check = check_document(markdown, "docs/x.md", fake_help, &inputs);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:12: step 1 of job \"benchmark\" passes \"comments\", which "
                            "action.yml does not declare as an input"));
    EXPECT_EQ(check.action_steps, 1);
}

// A composite action of two steps, with a problem on each of lines 9, 11 and 12.
constexpr const char* action_with_problems =
    "name: benchwatch\n"                                    // 1
    "description: d\n"                                      // 2
    "inputs:\n"                                             // 3
    "  run:\n"                                              // 4
    "    description: a command\n"                          // 5
    "runs:\n"                                               // 6
    "  using: composite\n"                                  // 7
    "  steps:\n"                                            // 8
    "    - run: benchwatch compare --fromat text\n"         // 9
    "      shell: bash\n"                                   // 10
    "    - run: echo ${{ inputs.runs }}\n"                  // 11
    "    - run: benchwatch site out\n";                     // 12

TEST(CheckAction, NamesEachProblemWithItsLine) {
    const auto check = check_action(action_with_problems, "action.yml", fake_help);
    EXPECT_EQ(check.inputs, std::set<std::string>{"run"});
    EXPECT_EQ(check.benchwatch_commands, 2);
    EXPECT_THAT(check.problems,
                ElementsAre("action.yml:9: `benchwatch compare --fromat text`: unknown option "
                            "--fromat of `benchwatch compare`",
                            "action.yml:11: step 2 runs a script without \"shell\", which a "
                            "composite action needs",
                            "action.yml:12: step 3 runs a script without \"shell\", which a "
                            "composite action needs",
                            "action.yml:11: uses inputs.runs, which the action does not declare"));
}

TEST(CheckDocument, NamesTheDocumentLineOfAnUnknownOption) {
    std::string markdown = good_workflow;
    markdown.replace(markdown.find("--format markdown"), 8, "--fromat");
    const auto check = check_document(markdown, "docs/x.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:13: `benchwatch compare --project p --fromat markdown`: "
                            "unknown option --fromat of `benchwatch compare`"));
}

TEST(CheckDocument, NamesTheFileAndLineOfInvalidYaml) {
    const auto check = check_document(
        "text\n"       // 1
        "```yaml\n"    // 2
        "on: push\n"   // 3
        "jobs: [a,\n"  // 4
        "steps: b\n"   // 5
        "```\n",
        "docs/bad.md", fake_help);
    EXPECT_THAT(check.problems, ElementsAre("docs/bad.md:6: invalid YAML in the block opened on "
                                            "line 2: end of sequence flow not found"));
}

TEST(CheckDocument, RefusesAFragmentThatIsNoCompleteCiFile) {
    const auto check = check_document(
        "```yaml\n"
        "      - run: benchwatch site public/\n"
        "      - uses: actions/deploy-pages@v4\n"
        "```\n",
        "docs/dashboard.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/dashboard.md:1: the ```yaml block is neither a GitHub Actions "
                            "workflow (top-level \"on\" and \"jobs\"), a GitLab CI file (jobs "
                            "with \"script\") nor a Buildkite pipeline (top-level \"steps\" "
                            "list); show a complete file that can be copied as it is"));
    // Its commands are still checked, and counted.
    EXPECT_EQ(check.benchwatch_commands, 1);
}

TEST(CheckDocument, RefusesJobsWithoutRunnerOrStepsAndStepsWithBothRunAndUses) {
    const auto check = check_document(
        "```yaml\n"                         // 1
        "on: push\n"                        // 2
        "jobs:\n"                           // 3
        "  nowhere:\n"                      // 4
        "    steps:\n"                      // 5
        "      - run: echo\n"               // 6
        "  empty:\n"                        // 7
        "    runs-on: ubuntu-24.04\n"       // 8
        "  both:\n"                         // 9
        "    runs-on: ubuntu-24.04\n"       // 10
        "    steps:\n"                      // 11
        "      - run: echo\n"               // 12
        "        uses: actions/cache@v4\n"  // 13
        "  reusable:\n"                     // 14
        "    uses: ./.github/workflows/x.yml\n"
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:4: job \"nowhere\" has neither \"runs-on\" nor \"uses\"",
                            "docs/x.md:7: job \"empty\" has no \"steps\" list",
                            "docs/x.md:12: step 1 of job \"both\" must have exactly one of \"run\" "
                            "and \"uses\""));
}

// A workflow triggered by `trigger` whose one step pastes a pull request's branch name.
std::string workflow_pasting_head_branch(const std::string& trigger) {
    return "```yaml\n"  // 1
           "on:\n"      // 2
           "  " +
           trigger +
           ":\n"                                                               // 3
           "jobs:\n"                                                           // 4
           "  post:\n"                                                         // 5
           "    runs-on: ubuntu-24.04\n"                                       // 6
           "    steps:\n"                                                      // 7
           "      - env:\n"                                                    // 8
           "          BRANCH: ${{ github.event.workflow_run.head_branch }}\n"  // 9
           "        run: |\n"                                                  // 10
           "          echo \"$BRANCH\"\n"                                      // 11
           "          echo ${{ github.event.workflow_run.head_branch }}\n"     // 12
           "          echo ${{github.head_ref}} ${{ github.event_name }}\n"    // 13
           "```\n";
}

TEST(CheckDocument, RefusesEventFieldsPastedIntoScriptsOfPrivilegedTriggers) {
    const auto check =
        check_document(workflow_pasting_head_branch("workflow_run"), "docs/x.md", fake_help);
    EXPECT_THAT(
        check.problems,
        ElementsAre("docs/x.md:12: run: pastes ${{ github.event.workflow_run.head_branch }} into "
                    "the script of a workflow triggered by workflow_run, where a pull request's "
                    "author controls it (script injection); pass it through env: and use the "
                    "variable",
                    "docs/x.md:13: run: pastes ${{github.head_ref}} into the script of a workflow "
                    "triggered by workflow_run, where a pull request's author controls it "
                    "(script injection); pass it through env: and use the variable"));
    EXPECT_EQ(
        check_document(workflow_pasting_head_branch("pull_request_target"), "docs/x.md", fake_help)
            .problems.size(),
        2U);
}

TEST(CheckDocument, LetsWorkflowsWithoutSecretsOnForkCodePasteEventFields) {
    // A pull_request workflow of a fork runs with a read-only token: nothing to steal.
    EXPECT_THAT(check_document(workflow_pasting_head_branch("pull_request"), "docs/x.md", fake_help)
                    .problems,
                IsEmpty());
}

TEST(CheckDocument, ChecksEveryScriptOfAGitLabFile) {
    const auto check = check_document(
        "```yaml\n"                                        // 1
        "stages: [benchmark]\n"                            // 2
        "default:\n"                                       // 3
        "  before_script:\n"                               // 4
        "    - benchwatch site out\n"                      // 5
        "benchmark:\n"                                     // 6
        "  stage: benchmark\n"                             // 7
        "  script:\n"                                      // 8
        "    - benchwatch compare --project p\n"           // 9
        "    - |\n"                                        // 10
        "      echo report\n"                              // 11
        "      benchwatch github coment --report r.md\n"   // 12
        "  after_script: benchwatch compare --projet p\n"  // 13
        "```\n",
        "docs/gitlab.md", fake_help);
    EXPECT_EQ(check.gitlab_files, 1);
    EXPECT_EQ(check.benchwatch_commands, 4);
    EXPECT_THAT(
        check.problems,
        ElementsAre("docs/gitlab.md:12: `benchwatch github coment --report r.md`: unknown "
                    "subcommand \"coment\" of `benchwatch github` (its help lists: comment)",
                    "docs/gitlab.md:13: `benchwatch compare --projet p`: unknown option "
                    "--projet of `benchwatch compare`"));
}

TEST(CheckDocument, RefusesDispatchPayloadsPastedIntoScripts) {
    // A repository_dispatch payload is written by the build of a pull request.
    EXPECT_THAT(
        check_document(workflow_pasting_head_branch("repository_dispatch"), "docs/x.md", fake_help)
            .problems,
        ElementsAre(::testing::HasSubstr("triggered by repository_dispatch"),
                    ::testing::HasSubstr("triggered by repository_dispatch")));
}

TEST(CheckDocument, ChecksABuildkitePipeline) {
    const auto check = check_document(
        "```yaml\n"                                            // 1
        "steps:\n"                                             // 2
        "  - label: bench\n"                                   // 3
        "    key: bench\n"                                     // 4
        "    if: build.message !~ /\\[skip benchmarks\\]/\n"   // 5
        "    agents:\n"                                        // 6
        "      queue: cuda\n"                                  // 7
        "    commands:\n"                                      // 8
        "      - benchwatch compare --project p\n"             // 9
        "      - benchwatch github comment --report r.json\n"  // 10
        "  - wait\n"                                           // 11
        "  - depends_on: bench\n"                              // 12
        "    command: echo \"$$BUILDKITE_BRANCH\"\n"           // 13
        "```\n",
        "docs/buildkite.md", fake_help);
    EXPECT_EQ(check.buildkite_pipelines, 1);
    EXPECT_EQ(check.benchwatch_commands, 2);
    EXPECT_THAT(check.problems, IsEmpty());
}

TEST(CheckDocument, RefusesAMalformedBuildkitePipeline) {
    const auto check = check_document(
        "```yaml\n"                                                                 // 1
        "steps:\n"                                                                  // 2
        "  - label: bench\n"                                                        // 3
        "    agents: [cuda]\n"                                                      // 4
        "    command: benchwatch compare --projet p\n"                              // 5
        "  - waitt\n"                                                               // 6
        "  - label: nothing to do\n"                                                // 7
        "  - depends_on: benchmarks\n"                                              // 8
        "    commands:\n"                                                           // 9
        "      - echo $BUILDKITE_BRANCH ${BUILDKITE_MESSAGE} $$BUILDKITE_COMMIT\n"  // 10
        "      - [nested]\n"                                                        // 11
        "```\n",
        "docs/buildkite.md", fake_help);
    EXPECT_EQ(check.buildkite_pipelines, 1);
    EXPECT_THAT(
        check.problems,
        ElementsAre(
            "docs/buildkite.md:4: \"agents\" of step 1 must map agent tags to values (queue: NAME)",
            "docs/buildkite.md:5: `benchwatch compare --projet p`: unknown option --projet of "
            "`benchwatch compare`",
            "docs/buildkite.md:6: step 2 \"waitt\" is neither \"wait\" nor a step mapping",
            "docs/buildkite.md:7: step 3 must be exactly one of a command step (\"command\" or "
            "\"commands\"), wait, block, input, trigger or group",
            "docs/buildkite.md:8: step 4 depends on \"benchmarks\", which no step has as its "
            "\"key\"",
            "docs/buildkite.md:10: $BUILDKITE_BRANCH is pasted into the command when the pipeline "
            "is uploaded, before the shell quotes it (script injection); write $$BUILDKITE_BRANCH "
            "so that the shell reads it when the step runs",
            "docs/buildkite.md:10: $BUILDKITE_MESSAGE is pasted into the command when the "
            "pipeline is uploaded, before the shell quotes it (script injection); write "
            "$$BUILDKITE_MESSAGE so that the shell reads it when the step runs",
            "docs/buildkite.md:11: \"commands\" of step 4 must be a string or a list of "
            "strings"));
}

// The build rules' messages, for the expected problems below.
std::string unbuilt(const std::string& job, const std::string& path, const std::string& folder) {
    return "job \"" + job + "\" uses " + path + " before building it: no earlier command of the "
           "job configures \"" + folder + "\" with -DCMAKE_BUILD_TYPE=Release (or RelWithDebInfo) "
           "and then runs `cmake --build " + folder + "`";
}

constexpr const char* github_submodules_fix =
    "give the actions/checkout step before it \"with: submodules: recursive\"";

TEST(CheckDocument, RefusesARecipeThatRunsTheBenchmarksWithoutBuildingThem) {
    const auto check = check_document(
        "```yaml\n"                                           // 1
        "on: push\n"                                          // 2
        "jobs:\n"                                             // 3
        "  benchmark:\n"                                      // 4
        "    runs-on: ubuntu-24.04\n"                         // 5
        "    steps:\n"                                        // 6
        "      - uses: actions/checkout@v4\n"                 // 7
        "        with:\n"                                     // 8
        "          submodules: recursive\n"                   // 9
        "      - run: ./build/bench --benchmark_format=json\n"  // 10
        "      - uses: OWNER/benchwatch@v0.1.0\n"             // 11
        "        with:\n"                                     // 12
        "          run: build/bench\n"                        // 13
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:10: " + unbuilt("benchmark", "./build/bench", "build"),
                            "docs/x.md:13: " + unbuilt("benchmark", "build/bench", "build")));
}

TEST(CheckDocument, RefusesAConfigureWithoutAnOptimisedBuildType) {
    const auto check = check_document(
        "```yaml\n"                                                  // 1
        "on: push\n"                                                 // 2
        "jobs:\n"                                                    // 3
        "  benchmark:\n"                                             // 4
        "    runs-on: ubuntu-24.04\n"                                // 5
        "    steps:\n"                                               // 6
        "      - uses: actions/checkout@v4\n"                        // 7
        "        with:\n"                                            // 8
        "          submodules: recursive\n"                          // 9
        "      - run: cmake -S . -B build && cmake --build build\n"  // 10
        "      - run: |\n"                                           // 11
        "          cmake -B build -DCMAKE_BUILD_TYPE=Debug\n"        // 12
        "          cmake --build build\n"                            // 13
        "          ./build/bench\n"                                  // 14
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:10: `cmake -S . -B build`: configures without "
                            "CMAKE_BUILD_TYPE, which compiles without optimisation when the "
                            "project sets no default; add -DCMAKE_BUILD_TYPE=Release (or "
                            "RelWithDebInfo)",
                            "docs/x.md:12: `cmake -B build -DCMAKE_BUILD_TYPE=Debug`: "
                            "CMAKE_BUILD_TYPE=Debug is not an optimised build; benchmark a "
                            "Release (or RelWithDebInfo) build",
                            "docs/x.md:14: " + unbuilt("benchmark", "./build/bench", "build")));
}

TEST(CheckDocument, RefusesABuildBeforeTheSubmodulesAreCheckedOut) {
    const auto check = check_document(
        "```yaml\n"                                   // 1
        "on: push\n"                                  // 2
        "jobs:\n"                                     // 3
        "  none:\n"                                   // 4
        "    runs-on: ubuntu-24.04\n"                 // 5
        "    steps:\n"                                // 6
        "      - uses: actions/checkout@v4\n"         // 7
        "        with:\n"                             // 8
        "          fetch-depth: 0\n"                  // 9
        "      - run: cmake -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build\n"  // 10
        "      - run: ./build/bench\n"                // 11
        "  late:\n"                                   // 12
        "    runs-on: ubuntu-24.04\n"                 // 13
        "    steps:\n"                                // 14
        "      - run: cmake -B build -DCMAKE_BUILD_TYPE=Release\n"  // 15
        "      - uses: actions/checkout@v4\n"         // 16
        "        with:\n"                             // 17
        "          submodules: true\n"                // 18
        "      - uses: actions/checkout@v4\n"         // 19
        "        with:\n"                             // 20
        "          submodules: recursive\n"           // 21
        "      - run: cmake --build build && ./build/bench\n"  // 22
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre(std::string("docs/x.md:10: job \"none\" builds without checking out "
                                        "its submodules; ") +
                                github_submodules_fix,
                            std::string("docs/x.md:15: job \"late\" builds without checking out "
                                        "its submodules; ") +
                                github_submodules_fix));
}

TEST(CheckDocument, AcceptsOptimisedBuildsWithSubmodulesBeforeTheirPrograms) {
    const auto check = check_document(
        "```yaml\n"                                                                  // 1
        "on: push\n"                                                                 // 2
        "jobs:\n"                                                                    // 3
        "  benchmark:\n"                                                             // 4
        "    runs-on: ubuntu-24.04\n"                                                // 5
        "    steps:\n"                                                               // 6
        "      - uses: actions/checkout@v4\n"                                        // 7
        "        with:\n"                                                            // 8
        "          fetch-depth: 0\n"                                                 // 9
        "          submodules: recursive\n"                                          // 10
        "      - run: |\n"                                                           // 11
        "          cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build\n"
        "          cmake -S . -B ./out/ -D CMAKE_BUILD_TYPE:STRING=relwithdebinfo\n"  // 13
        "          cmake --build out --parallel\n"                                   // 14
        "          cmake -E make_directory build/results\n"                          // 15
        "      - run: |\n"                                                           // 16
        "          ./build/bench --benchmark_format=json\n"                          // 17
        "          taskset -c 0 out/bench\n"                                         // 18
        "          benchwatch compare --project p -- ./out/bench\n"                  // 19
        "      - uses: OWNER/benchwatch@v0.1.0\n"                                    // 20
        "        with:\n"                                                            // 21
        "          run: ./build/bench --benchmark_format=json\n"                     // 22
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_THAT(check.problems, IsEmpty());
}

TEST(CheckDocument, KnowsEveryFolderThatCmakeNamesAndPathsInsideWords) {
    const auto check = check_document(
        "```yaml\n"                                                               // 1
        "on: push\n"                                                              // 2
        "jobs:\n"                                                                 // 3
        "  benchmark:\n"                                                          // 4
        "    runs-on: ubuntu-24.04\n"                                             // 5
        "    steps:\n"                                                            // 6
        "      - uses: actions/checkout@v4\n"                                     // 7
        "        with:\n"                                                         // 8
        "          submodules: recursive\n"                                       // 9
        "      - run: |\n"                                                        // 10
        "          cmake -B out -DCMAKE_BUILD_TYPE=Release\n"                     // 11
        "          ./out/bench\n"                                                 // 12
        "          cmake --build out\n"                                           // 13
        "          ./out/bench --benchmark_out=build/results.json\n"              // 14
        "          benchwatch compare --project p -- sh -c \"cd x && ./build/bench\"\n"  // 15
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:12: " + unbuilt("benchmark", "./out/bench", "out"),
                            "docs/x.md:14: " + unbuilt("benchmark", "build/results.json", "build"),
                            "docs/x.md:15: " + unbuilt("benchmark", "./build/bench", "build")));
}

TEST(CheckDocument, AppliesTheBuildRulesToGitLabJobsWithTheirTemplates) {
    const auto check = check_document(
        "```yaml\n"                                                   // 1
        "variables:\n"                                                // 2
        "  GIT_SUBMODULE_STRATEGY: recursive\n"                       // 3
        ".build:\n"                                                   // 4
        "  before_script:\n"                                          // 5
        "    - cmake -S . -B build -DCMAKE_BUILD_TYPE=Release\n"      // 6
        "    - cmake --build build\n"                                 // 7
        "built:\n"                                                    // 8
        "  extends: .build\n"                                         // 9
        "  script:\n"                                                 // 10
        "    - ./build/bench\n"                                       // 11
        "unbuilt:\n"                                                  // 12
        "  extends: .build\n"                                         // 13
        "  before_script: []\n"                                       // 14
        "  script:\n"                                                 // 15
        "    - >\n"                                                   // 16
        "      ./build/bench\n"                                       // 17
        "      --benchmark_format=json\n"                             // 18
        "no-submodules:\n"                                            // 19
        "  extends: [.build]\n"                                       // 20
        "  variables:\n"                                              // 21
        "    GIT_SUBMODULE_STRATEGY: none\n"                          // 22
        "  script: ./build/bench\n"                                   // 23
        "```\n",
        "docs/gitlab.md", fake_help);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/gitlab.md:17: " + unbuilt("unbuilt", "./build/bench", "build"),
                            "docs/gitlab.md:6: job \"no-submodules\" builds without checking out "
                            "its submodules; set GIT_SUBMODULE_STRATEGY: recursive in its "
                            "variables or the file's"));
}

TEST(CheckDocument, RefusesAMeasureRecipeThatBuildsUnoptimised) {
    const auto check = check_document(
        "```toml\n"                                                                    // 1
        "[run]\n"                                                                      // 2
        "build = \"cmake -S . -B build\"\n"                                            // 3
        "[measure]\n"                                                                  // 4
        "build = \"cmake -S . -B build && cmake --build build\"\n"                     // 5
        "run = \"build/bench\"\n"                                                      // 6
        "```\n"                                                                        // 7
        "```toml\n"                                                                    // 8
        "measure.build = 'cmake -B build -DCMAKE_BUILD_TYPE=Debug'\n"                  // 9
        "```\n"                                                                        // 10
        "```toml\n"                                                                    // 11
        "[measure]\n"                                                                  // 12
        "build = \"cmake -B build \\\"-DCMAKE_BUILD_TYPE=Release\\\" && cmake --build build\"\n"
        "```\n"                                                                        // 14
        "```toml\n"                                                                    // 15
        "[measure]\n"                                                                  // 16
        "build = \"\"\"\n"                                                             // 17
        "cmake -B build\"\"\"\n"                                                       // 18
        "```\n",
        "docs/x.md", fake_help);
    EXPECT_EQ(check.measure_builds, 4);
    EXPECT_THAT(check.problems,
                ElementsAre("docs/x.md:5: [measure] build: `cmake -S . -B build`: configures "
                            "without CMAKE_BUILD_TYPE, which compiles without optimisation when "
                            "the project sets no default; add -DCMAKE_BUILD_TYPE=Release (or "
                            "RelWithDebInfo)",
                            "docs/x.md:9: [measure] build: `cmake -B build "
                            "-DCMAKE_BUILD_TYPE=Debug`: CMAKE_BUILD_TYPE=Debug is not an "
                            "optimised build; benchmark a Release (or RelWithDebInfo) build",
                            "docs/x.md:17: [measure] build is not a one-line TOML string, the "
                            "only kind this check reads; write it as one"));
}

TEST(BinaryHelp, AsksTheRealBinaryOncePerChain) {
    BinaryHelp help(benchwatch_binary());
    EXPECT_TRUE(help({}).subcommands.contains("compare"));
    EXPECT_TRUE(help({"compare"}).options.contains("--fail-on-regression"));
    EXPECT_TRUE(help({"compare"}).options.contains("--project"));
    EXPECT_EQ(help.runs(), 2);
}

TEST(BinaryHelp, LetsTheCheckerRefuseWhatTheRealBinaryLacks) {
    BinaryHelp binary_help(benchwatch_binary());
    const HelpLookup help = [&binary_help](const auto& chain) { return binary_help(chain); };
    EXPECT_THAT(check_benchwatch_command({"benchwatch", "compare", "--no-such-option"}, help),
                ElementsAre("`benchwatch compare --no-such-option`: unknown option "
                            "--no-such-option of `benchwatch compare`"));
    const auto unknown = check_benchwatch_command({"benchwatch", "no-such-command"}, help);
    ASSERT_EQ(unknown.size(), 1U);
    EXPECT_THAT(unknown[0], ::testing::StartsWith("`benchwatch no-such-command`: unknown "
                                                  "subcommand \"no-such-command\" of `benchwatch` "
                                                  "(its help lists: "));
}

}  // namespace
}  // namespace benchwatch::testing::docs
