// What could break: the GitHub Action's installer (scripts/install-action) failing to install a
// benchwatch package it is given, putting a folder on the job's PATH that holds no working
// binary, leaving the step outputs unset, or taking a file that is not benchwatch's package, or
// no file, for one; and using a binary kept from an earlier build that was changed since, does
// not start, or was built on another runner image. The package is made here from the test
// build's binary with dpkg-deb, so nothing is downloaded, and the build from source is a stand-in
// script that copies that binary, so nothing is compiled.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
        fs::copy_file(benchwatch_binary(), root / "usr" / "bin" / "benchwatch");
        const auto architecture = run_checked({"dpkg", "--print-architecture"}, root).out;
        write_text(root / "DEBIAN" / "control",
                   "Package: " + name + "\nVersion: " + version + "\nArchitecture: " +
                       architecture + "Maintainer: tests <tests@benchwatch.invalid>\n" +
                       "Depends: libc6\nDescription: benchwatch for the installer's test\n");
        const auto deb = directory_.path() / (name + ".deb");
        run_checked(
            {"dpkg-deb", "--root-owner-group", "-Znone", "--build", root.string(), deb.string()},
            directory_.path());
        return deb;
    }

    vcs::ProcessOutput install(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv{(source_dir / "scripts" / "install-action").string()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return run(
            argv, directory_.path(),
            {{"GITHUB_PATH", github_path_.string()}, {"GITHUB_OUTPUT", github_output_.string()}});
    }

    // A copy of the action's scripts whose scripts/build copies the test build's binary instead
    // of compiling, counting its calls in the file `builds`; returns the copy's install-action.
    fs::path action_with_stand_in_build() {
        const auto scripts = directory_.path() / "action" / "scripts";
        if (fs::exists(scripts / "build")) return scripts / "install-action";
        fs::create_directories(scripts);
        for (const char* name : {"install-action", "lib.sh"})
            fs::copy_file(source_dir / "scripts" / name, scripts / name);
        write_text(scripts / "build", "#!/bin/sh\nset -e\necho x >> " + builds_.string() +
                                          "\nmkdir -p \"$1\"\ncp " + benchwatch_binary() +
                                          " \"$1/benchwatch\"\necho \"$1/benchwatch\"\n");
        fs::permissions(scripts / "build", fs::perms::owner_all);
        return scripts / "install-action";
    }

    // Runs the copy's install-action with --source-key `key` into tools_, on the runner image
    // that ImageOS and ImageVersion name.
    vcs::ProcessOutput install_from_source(const std::string& key, const std::string& image_os) {
        return run(
            {action_with_stand_in_build().string(), "--dir", tools_.string(), "--source-key", key},
            directory_.path(),
            {{"GITHUB_PATH", github_path_.string()},
             {"GITHUB_OUTPUT", github_output_.string()},
             {"ImageOS", image_os},
             {"ImageVersion", "20250105.1.0"}});
    }

    // How many times the stand-in build ran.
    std::size_t builds() const {
        if (!fs::exists(builds_)) return 0;
        return read_text(builds_).size() / 2;
    }

    TemporaryDirectory directory_{"benchwatch-install-action"};
    fs::path builds_ = directory_.path() / "builds";
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
    EXPECT_EQ(read_text(github_output_), "version=" + version_line + "from=deb\n");
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

TEST_F(InstallActionTest, AKeptBuildIsUsedAgainOnlyForTheSameSourcesAndRunnerImage) {
    auto output = install_from_source("k1", "ubuntu24");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(builds(), 1U);
    const auto kept = tools_ / "source-binary";
    EXPECT_EQ(read_text(kept / "runner-image"), "ubuntu24-20250105.1.0\n");
    EXPECT_THAT(read_text(github_output_), ::testing::EndsWith("from=source\n"));

    output = install_from_source("k1", "ubuntu24");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(builds(), 1U);
    EXPECT_THAT(read_text(github_output_), ::testing::EndsWith("from=cache\n"));

    // Ubuntu 22.04's runner restoring 24.04's build, or a newer action's sources: built again.
    output = install_from_source("k1", "ubuntu22");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(builds(), 2U);
    EXPECT_THAT(output.out,
                ::testing::HasSubstr("the benchwatch kept in " + kept.string() +
                                     " was built from other sources or on another runner image; "
                                     "building it again\n"));
    EXPECT_EQ(read_text(kept / "runner-image"), "ubuntu22-20250105.1.0\n");
    ASSERT_EQ(install_from_source("k2", "ubuntu22").exit_code, 0);
    EXPECT_EQ(builds(), 3U);
}

TEST_F(InstallActionTest, AKeptBinaryChangedSinceItsBuildIsBuiltAgain) {
    ASSERT_EQ(install_from_source("k1", "ubuntu24").exit_code, 0);
    const auto binary = tools_ / "source-binary" / "benchwatch";
    // Another program put in its place: it starts and says it is benchwatch, but is not the
    // file built.
    fs::remove(binary);
    write_text(binary, "#!/bin/sh\necho 'benchwatch 0.1.0 (planted)'\n");
    fs::permissions(binary, fs::perms::owner_all);

    const auto output = install_from_source("k1", "ubuntu24");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(builds(), 2U);
    EXPECT_EQ(output.err, "warning: the benchwatch kept in " + binary.parent_path().string() +
                              " is not the file built there (its SHA-256 differs from the one "
                              "recorded); building it again\n");
    EXPECT_TRUE(read_text(binary) == read_text(benchwatch_binary()));
    EXPECT_THAT(read_text(github_output_), ::testing::EndsWith("from=source\n"));
}

TEST_F(InstallActionTest, AKeptBinaryThatNoLongerStartsIsBuiltAgain) {
    ASSERT_EQ(install_from_source("k1", "ubuntu24").exit_code, 0);
    const auto kept = tools_ / "source-binary";
    // Cut short, with a hash recorded to match: as a cache restored on a runner whose
    // libraries it lacks, it does not start.
    fs::resize_file(kept / "benchwatch", 4096);
    const auto hash = run_checked({"sha256sum", (kept / "benchwatch").string()}, kept).out;
    write_text(kept / "benchwatch.sha256", hash.substr(0, 64) + "\n");

    const auto output = install_from_source("k1", "ubuntu24");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(builds(), 2U);
    EXPECT_EQ(output.err, "warning: the benchwatch kept in " + kept.string() +
                              " does not start as it did when built ('benchwatch --version' fails "
                              "or prints another line); building it again\n");
    EXPECT_EQ(run({(kept / "benchwatch").string(), "--version"}, kept).exit_code, 0);
}

TEST_F(InstallActionTest, TheRunnerImageIsGitHubsImageElseTheSystemsRelease) {
    const auto script = (source_dir / "scripts" / "install-action").string();
    auto output = run({script, "--runner-image"}, directory_.path(),
                      {{"ImageOS", "ubuntu22"}, {"ImageVersion", "20250105.1.0"}});
    EXPECT_EQ(output.out, "ubuntu22-20250105.1.0\n");
    output = run({script, "--runner-image"}, directory_.path(),
                 {{"ImageOS", "ubuntu22"}, {"ImageVersion", "1 2/3"}});
    EXPECT_EQ(output.out, "ubuntu22-1_2_3\n");
    // Elsewhere (a self-hosted runner, a container): ID and VERSION_ID of /etc/os-release.
    const auto release =
        run_checked({"sh", "-c", ". /etc/os-release && printf '%s-%s\\n' \"$ID\" \"$VERSION_ID\""},
                    directory_.path());
    output = run({script, "--runner-image"}, directory_.path(), {{"ImageOS", ""}});
    EXPECT_EQ(output.out, release.out);
}

}  // namespace
}  // namespace benchwatch::testing
