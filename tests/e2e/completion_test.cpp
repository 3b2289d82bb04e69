// What could break: the packaged bash completion (packaging/benchwatch.bash-completion) missing
// a subcommand, a nested subcommand or a flag the binary has, offering flags of the wrong
// subcommand, or offering words where a flag's value (a file) is expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// The words bash's completion offers for the command line `words` (words[0] is the binary under
// test), the cursor on the last word.
std::vector<std::string> complete(std::vector<std::string> words) {
    words.insert(words.begin(), benchwatch_binary());
    std::string script =
        "source \"$0\"; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _benchwatch; "
        "printf '%s\\n' \"${COMPREPLY[@]}\"";
    std::vector<std::string> argv{
        "bash", "-c", script,
        (fs::path(BENCHWATCH_SOURCE_DIR) / "packaging" / "benchwatch.bash-completion").string()};
    argv.insert(argv.end(), words.begin(), words.end());
    const auto output = run_checked(argv, fs::temp_directory_path());
    std::vector<std::string> offered;
    std::istringstream lines(output.out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) offered.push_back(line);
    return offered;
}

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(CompletionTest, OffersSubcommandsAndTheirOwn) {
    EXPECT_THAT(complete({""}), Contains("history-branch"));
    EXPECT_THAT(complete({""}), Contains("backtest"));
    EXPECT_THAT(complete({"co"}), ElementsAre("compare", "copy", "confirm"));
    EXPECT_THAT(complete({"github", ""}), ElementsAre("comment", "summary", "status", "alert"));
    EXPECT_THAT(complete({"history-branch", "p"}), ElementsAre("pull", "push"));
    EXPECT_THAT(complete({"help", "gi"}), ElementsAre("github", "gitlab"));
    EXPECT_THAT(complete({"help", "gitlab", ""}), ElementsAre("comment", "alert"));
}

TEST(CompletionTest, OffersTheFlagsOfTheSubcommandTyped) {
    EXPECT_THAT(complete({"compare", "--fail"}), ElementsAre("--fail-on-regression"));
    EXPECT_THAT(complete({"compare", "-"}), Contains("-o"));
    EXPECT_THAT(complete({"record", "--"}), Contains("--allow-dirty"));
    EXPECT_THAT(complete({"record", "--"}), Not(Contains("--fail-on-regression")));
    EXPECT_THAT(complete({"github", "comment", "--pro"}), ElementsAre("--project"));
    EXPECT_THAT(complete({"-"}), ElementsAre("-h", "--help", "-v", "--version"));
}

TEST(CompletionTest, LeavesValuesAndHarnessCommandsToBash) {
    // A flag's value, a subcommand's files and the harness after -- are bash's default
    // completion (files), not benchwatch's words.
    EXPECT_THAT(complete({"record", "--store", ""}), IsEmpty());
    EXPECT_THAT(complete({"compare", "--format", ""}), IsEmpty());
    EXPECT_THAT(complete({"record", "--allow-dirty", ""}), IsEmpty());
    EXPECT_THAT(complete({"run", "--", "./bench", "--f"}), IsEmpty());
    // After a flag without a value, flags still complete.
    EXPECT_THAT(complete({"record", "--allow-dirty", "--pro"}), ElementsAre("--project"));
}

}  // namespace
}  // namespace benchwatch::testing
