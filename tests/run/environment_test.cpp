// What could break: a key read from the wrong line or file, a compiler or GPU tool that hangs
// or fails stopping the capture, or a malformed --env-command line accepted silently.

#include "run/environment.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>

#include "support/test_support.hpp"

namespace benchwatch::run {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path fixtures = std::filesystem::path(BENCHWATCH_TEST_DATA) / "run";

// Replaces PATH with one folder of shell-script shims for the life of the object.
class ShimPath {
  public:
    ShimPath() : folder_("benchwatch-shims") {
        if (const char* path = ::getenv("PATH")) saved_ = path;
        ::setenv("PATH", folder_.path().c_str(), 1);
    }
    ShimPath(const ShimPath&) = delete;
    ShimPath& operator=(const ShimPath&) = delete;
    ~ShimPath() { ::setenv("PATH", saved_.c_str(), 1); }

    // An executable `name` whose body is the shell script `script`.
    void add(const std::string& name, const std::string& script) const {
        const auto path = folder_.path() / name;
        testing::write_text(path, "#!/bin/sh\n" + script + "\n");
        ::chmod(path.c_str(), 0755);
    }

  private:
    testing::TemporaryDirectory folder_;
    std::string saved_;
};

TEST(Environment, MachineKeysComeFromTheFixtureFolders) {
    const SystemPaths paths{.proc = fixtures / "machine/proc",
                            .sys = fixtures / "machine/sys",
                            .etc = fixtures / "machine/etc"};
    auto environment = machine_environment(paths);
    ASSERT_TRUE(environment.contains("arch"));
    EXPECT_FALSE(environment["arch"].empty());
    environment.erase("arch");  // the real machine's, from uname
    EXPECT_EQ(environment, (model::Environment{
                               {"os", "Debian GNU/Linux 12 (bookworm)"},
                               {"kernel", "6.1.0-18-amd64"},
                               {"cpu", "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz"},
                               {"cores", "5"},          // 0-3 and 10
                               {"memory", "23.4 GiB"},  // 24536780 / 1048576 = 23.40009…
                           }));
}

TEST(Environment, MissingFilesLeaveTheirKeysOut) {
    testing::TemporaryDirectory empty("benchwatch-env");
    const auto environment =
        machine_environment({.proc = empty.path(), .sys = empty.path(), .etc = empty.path()});
    // Only uname's answers remain.
    EXPECT_EQ(environment.size(), 2U);
    EXPECT_TRUE(environment.contains("arch"));
    EXPECT_TRUE(environment.contains("kernel"));
}

TEST(Environment, OsReleaseValuesLoseTheirQuotes) {
    const std::string text = "NAME='Arch Linux'\nPRETTY_NAME=\"Arch Linux\"\nID=arch\n";
    EXPECT_EQ(os_release_value(text, "PRETTY_NAME"), "Arch Linux");
    EXPECT_EQ(os_release_value(text, "NAME"), "Arch Linux");
    EXPECT_EQ(os_release_value(text, "ID"), "arch");
    EXPECT_EQ(os_release_value(text, "VERSION_ID"), std::nullopt);
}

TEST(Environment, MemoryIsShownInGibibytes) {
    EXPECT_EQ(memory_in_gib("16777216 kB"), "16.0 GiB");  // 16 × 1024 × 1024 kB
    EXPECT_EQ(memory_in_gib("  1572864 kB"), "1.5 GiB");  // 1.5 × 1048576
    EXPECT_EQ(memory_in_gib("lots"), std::nullopt);
    EXPECT_EQ(memory_in_gib("1024 MB"), std::nullopt);
}

TEST(Environment, CpuListsAreCounted) {
    EXPECT_EQ(count_cpu_list("0\n"), 1);
    EXPECT_EQ(count_cpu_list("0-3,8-11\n"), 8);
    EXPECT_EQ(count_cpu_list("0,2,4-5"), 4);
    EXPECT_EQ(count_cpu_list(""), std::nullopt);
    EXPECT_EQ(count_cpu_list("3-1"), std::nullopt);
    EXPECT_EQ(count_cpu_list("x"), std::nullopt);
}

TEST(Environment, CompilersOnPathGiveTheVersionTheyName) {
    ShimPath shims;
    shims.add("g++", "echo 'g++ (Shim 12.2.0-14) 99.1.0'; echo 'Copyright 2024'");
    shims.add("go", "[ \"$1\" = version ] && echo 'go version go1.99 linux/amd64'");
    shims.add("julia", "echo 'julia version 1.10.4' >&2");  // stderr only
    shims.add("nvcc",
              "echo 'nvcc: NVIDIA (R) Cuda compiler driver'; echo 'Built on Tue_Aug_15_22:02:13'; "
              "echo 'Cuda compilation tools, release 12.2, V12.2.140'");
    shims.add("java", "[ \"$1\" = -version ] && echo 'openjdk version \"17.0.9\" 2023-10-17' >&2");
    shims.add("banner", "echo 'Banner tool, no number here'");  // names no version: left out
    shims.add("clang", "exit 1");                                // fails: left out
    shims.add("rustc", "exec /bin/sleep 30");  // hangs: left out after the timeout
    const std::vector<std::string> compilers = {"g++",  "go",    "julia", "nvcc",  "java",
                                                "banner", "clang", "rustc", "absent"};
    EXPECT_EQ(compiler_environment(compilers, 2s), (model::Environment{
                                                       {"compiler.g++", "99.1.0"},
                                                       {"compiler.go", "1.99"},
                                                       {"compiler.java", "17.0.9"},
                                                       {"compiler.julia", "1.10.4"},
                                                       {"compiler.nvcc", "12.2.140"},
                                                   }));
}

TEST(Environment, DefaultCompilersFollowTheHarnessProgram) {
    using Commands = std::vector<std::vector<std::string>>;
    EXPECT_EQ(default_compilers(Commands{{"go", "test", "-bench", "."}}),
              (std::vector<std::string>{"go"}));
    EXPECT_EQ(default_compilers(Commands{{"/usr/bin/cargo", "bench"}, {"pytest"}}),
              (std::vector<std::string>{"python3", "rustc"}));
    EXPECT_EQ(default_compilers(Commands{{"build/bench", "--benchmark_format=json"}}),
              (std::vector<std::string>{"clang", "clang++", "g++", "gcc"}));
    EXPECT_EQ(default_compilers(Commands{{"julia", "--project", "bench.jl"}, {"mvn", "verify"}}),
              (std::vector<std::string>{"java", "julia"}));
    EXPECT_TRUE(default_compilers(Commands{}).empty());
}

TEST(Environment, NvidiaGpuAndDriver) {
    ShimPath shims;
    shims.add("nvidia-smi", "echo 'NVIDIA A100-SXM4-40GB, 535.104.05'");
    EXPECT_EQ(gpu_environment(5s),
              (model::Environment{{"gpu", "NVIDIA A100-SXM4-40GB"}, {"gpu.driver", "535.104.05"}}));
}

TEST(Environment, RocmGpu) {
    ShimPath shims;
    shims.add("rocm-smi",
              "echo '======= ROCm System Management Interface ======='\n"
              "echo 'GPU[0]\t\t: Card series: \t\tInstinct MI210'\n"
              "echo 'GPU[0]\t\t: Card model: \t\t0x0c34'");
    EXPECT_EQ(gpu_environment(5s), (model::Environment{{"gpu", "Instinct MI210"}}));
}

TEST(Environment, NoGpuToolsNoGpuKeys) {
    ShimPath shims;
    EXPECT_EQ(gpu_environment(5s), model::Environment{});
}

TEST(Environment, GitDirtyFollowsTrackedFiles) {
    testing::ScratchRepository repository;
    repository.write_file("a.txt", "one\n");
    repository.commit("first");
    EXPECT_EQ(git_environment(repository.directory()), (model::Environment{{"git.dirty", "no"}}));
    testing::write_text(repository.directory() / "a.txt", "two\n");
    EXPECT_EQ(git_environment(repository.directory()), (model::Environment{{"git.dirty", "yes"}}));
}

TEST(Environment, OutsideARepositoryThereIsNoGitKey) {
    testing::TemporaryDirectory folder("benchwatch-env");
    EXPECT_EQ(git_environment(folder.path()), model::Environment{});
}

TEST(Environment, EnvCommandLinesAreKeyValuePairs) {
    EXPECT_EQ(parse_environment_lines("CUDA=12.4\n\n  LLVM = 15.0.7 \nflags=-O2=fast\n"),
              (model::Environment{{"CUDA", "12.4"}, {"LLVM", "15.0.7"}, {"flags", "-O2=fast"}}));
    EXPECT_EQ(parse_environment_lines(""), model::Environment{});
}

TEST(Environment, AnEnvCommandLineWithoutEqualsIsNamed) {
    try {
        parse_environment_lines("A=1\nB=2\nhello world\n");
        FAIL() << "expected EnvCommandError";
    } catch (const EnvCommandError& error) {
        EXPECT_STREQ(error.what(), "--env-command output line 3 is not KEY=VALUE: 'hello world'");
    }
    EXPECT_THROW(parse_environment_lines("=value\n"), EnvCommandError);
}

TEST(Environment, EnvCommandOutputBecomesKeys) {
    testing::TemporaryDirectory folder("benchwatch-env");
    testing::write_text(folder.path() / "versions.txt", "CUDA=12.4\nLLVM=15.0.7\n");
    EXPECT_EQ(environment_from_command("cat versions.txt", folder.path()),
              (model::Environment{{"CUDA", "12.4"}, {"LLVM", "15.0.7"}}));
}

TEST(Environment, AFailingEnvCommandSaysHowItFailed) {
    const auto message = [](std::string_view command) -> std::string {
        try {
            environment_from_command(command, ".", 0.2s);
        } catch (const EnvCommandError& error) {
            return error.what();
        }
        return "no EnvCommandError";
    };
    EXPECT_EQ(message("echo 'no manifest here' >&2; echo more >&2; exit 3"),
              "--env-command 'echo 'no manifest here' >&2; echo more >&2; exit 3' failed: exit 3: "
              "no manifest here");
    EXPECT_EQ(message("exec sleep 30"),
              "--env-command 'exec sleep 30' failed: timed out after 0.2 s");
    EXPECT_EQ(message("echo A=1; echo oops"),
              "--env-command output line 2 is not KEY=VALUE: 'oops'");
}

TEST(Environment, MachineKeysAreToldApartFromToolchainKeys) {
    EXPECT_TRUE(is_machine_key("cpu"));
    EXPECT_TRUE(is_machine_key("gpu.driver"));
    EXPECT_FALSE(is_machine_key("compiler.g++"));
    EXPECT_FALSE(is_machine_key("git.dirty"));
}

}  // namespace
}  // namespace benchwatch::run
