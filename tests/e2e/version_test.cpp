// What could break: `benchwatch --version` naming no commit, or a commit other than the one the
// binary was built from (a rebuild after a commit that kept the old one), or the generator
// taking the commit of a repository the source folder merely sits inside, or rewriting its
// source on every build so that every build relinks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = BENCHWATCH_SOURCE_DIR;
const std::string version = BENCHWATCH_VERSION;

std::string without_final_newline(std::string text) {
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

// The line the generated version.cpp of `output` returns.
std::string generated_line(const fs::path& output) {
    static const std::regex line(R"re(return "([^"]*)";)re");
    std::smatch match;
    const std::string text = read_text(output);
    if (!std::regex_search(text, match, line)) return "no version line in:\n" + text;
    return match[1];
}

// Runs cmake/build_version.cmake for `source` into `output`; returns its exit code.
int generate(const fs::path& source, const fs::path& output) {
    return run({BENCHWATCH_CMAKE, "-DSOURCE_DIR=" + source.string(), "-DVERSION=" + version,
                "-DOUTPUT=" + output.string(), "-P",
                (source_dir / "cmake" / "build_version.cmake").string()},
               fs::temp_directory_path())
        .exit_code;
}

TEST(VersionTest, BinaryNamesTheVersionAndTheCommitOfItsSource) {
    const auto output = run(benchwatch_command({"--version"}), fs::temp_directory_path());
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto top = run({"git", "-C", source_dir.string(), "rev-parse", "--show-toplevel"},
                         fs::temp_directory_path());
    if (top.exit_code != 0 || !fs::equivalent(without_final_newline(top.out), source_dir)) {
        EXPECT_EQ(output.out, "benchwatch " + version + " (unknown commit)\n");
        return;
    }
    const std::regex line("benchwatch " +
                          std::regex_replace(version, std::regex(R"(\.)"), R"(\.)") +
                          R"( \(commit ([0-9a-f]{7,40})\)\n)");
    std::smatch match;
    ASSERT_TRUE(std::regex_match(output.out, match, line)) << output.out;
    const std::string head = without_final_newline(
        run_checked({"git", "-C", source_dir.string(), "rev-parse", "HEAD"}, source_dir).out);
    EXPECT_TRUE(head.starts_with(match[1].str()))
        << "built from " << match[1] << ", the source is at " << head << "; rebuild";
}

TEST(VersionTest, GeneratorFollowsHeadAndRewritesOnlyOnChange) {
    ScratchRepository repository;
    repository.write_file("a.txt", "one\n");
    const std::string first = repository.commit("first");
    TemporaryDirectory build("benchwatch-version");
    const fs::path output = build.path() / "version.cpp";

    ASSERT_EQ(generate(repository.directory(), output), 0);
    EXPECT_EQ(generated_line(output),
              "benchwatch " + version + " (commit " + first.substr(0, 7) + ")");
    // Set the file's time back: a run at the same commit must leave it alone.
    const auto old_time = fs::last_write_time(output) - std::chrono::hours(1);
    fs::last_write_time(output, old_time);
    ASSERT_EQ(generate(repository.directory(), output), 0);
    EXPECT_EQ(fs::last_write_time(output), old_time);

    repository.write_file("a.txt", "two\n");
    const std::string second = repository.commit("second");
    ASSERT_EQ(generate(repository.directory(), output), 0);
    EXPECT_EQ(generated_line(output),
              "benchwatch " + version + " (commit " + second.substr(0, 7) + ")");
    EXPECT_NE(fs::last_write_time(output), old_time);
}

TEST(VersionTest, GeneratorSaysUnknownCommitOutsideAWorkTreeTop) {
    TemporaryDirectory plain("benchwatch-version");
    ASSERT_EQ(generate(plain.path(), plain.path() / "version.cpp"), 0);
    EXPECT_EQ(generated_line(plain.path() / "version.cpp"),
              "benchwatch " + version + " (unknown commit)");

    // A source folder inside someone else's repository is not that repository's commit.
    ScratchRepository outer;
    outer.write_file("README", "outer\n");
    outer.commit("outer");
    fs::create_directories(outer.directory() / "benchwatch-0.1.0");
    ASSERT_EQ(generate(outer.directory() / "benchwatch-0.1.0", plain.path() / "inner.cpp"), 0);
    EXPECT_EQ(generated_line(plain.path() / "inner.cpp"),
              "benchwatch " + version + " (unknown commit)");
}

}  // namespace
}  // namespace benchwatch::testing
