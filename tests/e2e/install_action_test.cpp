// What could break: the GitHub Action's installer (scripts/install-action) failing to install a
// benchwatch package it is given, putting a folder on the job's PATH that holds no working
// binary, leaving the step outputs unset, or taking a file that is not benchwatch's package, or
// no file, for one. The package is made here from the test build's binary with dpkg-deb, so
// nothing is downloaded.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = BENCHWATCH_SOURCE_DIR;
const std::string version = BENCHWATCH_VERSION;

class InstallActionTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (run({"dpkg-deb", "--version"}, directory_.path()).exit_code != 0)
            GTEST_SKIP() << "dpkg-deb is not installed: not a Debian system";
    }

    // A Debian package named `name` holding the test build's binary in /usr/bin, depending on
    // libc6 only (installed on every Debian system).
    fs::path make_package(const std::string& name) {
        const auto root = directory_.path() / ("root-" + name);
        fs::create_directories(root / "DEBIAN");
        fs::create_directories(root / "usr" / "bin");
        fs::copy_file(BENCHWATCH_BINARY, root / "usr" / "bin" / "benchwatch");
        const auto architecture = run_checked({"dpkg", "--print-architecture"}, root).out;
        write_text(root / "DEBIAN" / "control",
                   "Package: " + name + "\nVersion: " + version + "\nArchitecture: " +
                       architecture + "Maintainer: tests <tests@benchwatch.invalid>\n" +
                       "Depends: libc6\nDescription: benchwatch for the installer's test\n");
        const auto deb = directory_.path() / (name + ".deb");
        run_checked({"dpkg-deb", "--root-owner-group", "-Znone", "--build", root.string(),
                     deb.string()},
                    directory_.path());
        return deb;
    }

    vcs::ProcessOutput install(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv{(source_dir / "scripts" / "install-action").string()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return run(argv, directory_.path(),
                   {{"GITHUB_PATH", github_path_.string()},
                    {"GITHUB_OUTPUT", github_output_.string()}});
    }

    TemporaryDirectory directory_{"benchwatch-install-action"};
    fs::path github_path_ = directory_.path() / "github_path";
    fs::path github_output_ = directory_.path() / "github_output";
    fs::path tools_ = directory_.path() / "tools";
};

TEST_F(InstallActionTest, InstallsALocalPackageAndPutsItsBinaryOnThePath) {
    const auto deb = make_package("benchwatch");
    const auto output = install({"--deb", deb.string(), "--dir", tools_.string()});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto bin = tools_ / version / "usr" / "bin";
    EXPECT_EQ(read_text(github_path_), bin.string() + "\n");
    const auto version_line =
        run_checked({(bin / "benchwatch").string(), "--version"}, directory_.path()).out;
    EXPECT_THAT(version_line, ::testing::StartsWith("benchwatch " + version + " ("));
    EXPECT_EQ(read_text(github_output_),
              "version=" + version_line + "from=deb\n");
    EXPECT_THAT(output.out, ::testing::HasSubstr("(from deb) at " + (bin / "benchwatch").string()));
}

TEST_F(InstallActionTest, InstallingAgainReplacesTheEarlierCopy) {
    const auto deb = make_package("benchwatch");
    ASSERT_EQ(install({"--deb", deb.string(), "--dir", tools_.string()}).exit_code, 0);
    write_text(tools_ / version / "usr" / "bin" / "stale", "left from before");
    ASSERT_EQ(install({"--deb", deb.string(), "--dir", tools_.string()}).exit_code, 0);
    EXPECT_FALSE(fs::exists(tools_ / version / "usr" / "bin" / "stale"));
}

TEST_F(InstallActionTest, RefusesAnotherPackageAndAMissingFile) {
    const auto other = make_package("not-benchwatch");
    auto output = install({"--deb", other.string(), "--dir", tools_.string()});
    EXPECT_EQ(output.exit_code, 1);
    EXPECT_EQ(output.err, "error: " + other.string() + ": not the benchwatch package\n");
    output = install({"--deb", (directory_.path() / "nope.deb").string()});
    EXPECT_EQ(output.exit_code, 1);
    EXPECT_EQ(output.err, "error: --deb " + (directory_.path() / "nope.deb").string() +
                              ": no such file; pass a benchwatch_VERSION_ARCH.deb\n");
    EXPECT_FALSE(fs::exists(github_path_));
}

}  // namespace
}  // namespace benchwatch::testing
