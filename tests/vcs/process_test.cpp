// What could break: a child that fills one pipe while we wait on the other deadlocks us, exit
// codes get lost, or a program that cannot be started is mistaken for one that failed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "vcs/git.hpp"

namespace benchwatch::vcs {
namespace {

TEST(RunProcess, CollectsLargeOutputOnBothStreamsWithoutDeadlock) {
    // stderr first: a reader that waited for stdout to end would block once stderr's pipe
    // buffer (64 KiB) is full.
    const auto output = run_process(
        {"sh", "-c", "head -c 3000000 /dev/zero >&2; head -c 2000000 /dev/zero; exit 0"}, ".");
    EXPECT_EQ(output.exit_code, 0);
    // Standard error keeps its first and last MiB around a line saying how much was dropped:
    // 3,000,000 − 2,097,152 = 902,848 bytes.
    EXPECT_TRUE(output.err == std::string(1 << 20, '\0') + "\n… 902848 bytes dropped …\n" +
                                  std::string(1 << 20, '\0'));
    EXPECT_EQ(output.out.size(), 2000000u);
}

TEST(RunProcess, StandardOutputPastTheCapIsAFailureThatSaysSo) {
    const auto output = run_process({"sh", "-c", "yes"}, ".");
    EXPECT_EQ(output.exit_code, 1);
    EXPECT_EQ(output.out, "");
    EXPECT_EQ(output.err,
              "'sh' printed more than 256 MiB on standard output, the most benchwatch reads from "
              "a command\n");
}

TEST(RunProcess, APipeHeldOpenAfterTheExitIsReadOnlyHalfASecondMore) {
    // The background sleep keeps both pipes open for 5 s after sh has exited.
    const auto started = std::chrono::steady_clock::now();
    const auto output = run_process({"sh", "-c", "sleep 5 & echo done"}, ".");
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.out, "done\n");
    EXPECT_LT(took.count(), 3.0);
}

TEST(RunProcess, ReportsTheExitCode) {
    const auto output = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, ".");
    EXPECT_EQ(output.exit_code, 3);
    EXPECT_EQ(output.out, "out\n");
    EXPECT_EQ(output.err, "err\n");
}

TEST(RunProcess, KilledBySignalIsMinusOne) {
    EXPECT_EQ(run_process({"sh", "-c", "kill -9 $$"}, ".").exit_code, -1);
}

TEST(RunProcess, StandardInputIsEmpty) {
    // cat would wait forever on an inherited terminal; /dev/null ends it at once.
    const auto output = run_process({"cat"}, ".");
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.out, "");
}

TEST(RunProcess, ArgumentsAreNotInterpretedByAShell) {
    const auto output = run_process({"echo", "$HOME", "a;b", "*"}, ".");
    EXPECT_EQ(output.out, "$HOME a;b *\n");
}

TEST(RunProcess, RunsInTheGivenDirectory) {
    const auto directory = std::filesystem::canonical(std::filesystem::temp_directory_path());
    EXPECT_EQ(run_process({"pwd", "-P"}, directory).out, directory.string() + "\n");
}

TEST(RunProcess, EnvironmentOverridesReplaceInheritedValues) {
    ::setenv("BENCHWATCH_PROCESS_TEST", "inherited", 1);
    const auto inherited = run_process({"sh", "-c", "echo $BENCHWATCH_PROCESS_TEST"}, ".");
    EXPECT_EQ(inherited.out, "inherited\n");
    const auto replaced = run_process({"sh", "-c", "echo $BENCHWATCH_PROCESS_TEST"}, ".",
                                      {{"BENCHWATCH_PROCESS_TEST", "replaced"}});
    EXPECT_EQ(replaced.out, "replaced\n");
    ::unsetenv("BENCHWATCH_PROCESS_TEST");
}

TEST(RunProcess, MissingProgramSaysSo) {
    const auto output = run_process({"benchwatch-no-such-program"}, ".");
    EXPECT_EQ(output.exit_code, -1);
    EXPECT_EQ(output.err, "cannot run 'benchwatch-no-such-program': No such file or directory");
}

TEST(RunProcess, MissingDirectorySaysSo) {
    const auto output = run_process({"pwd"}, "/nonexistent/benchwatch");
    EXPECT_EQ(output.exit_code, -1);
    EXPECT_EQ(output.err, "cannot run 'pwd' in /nonexistent/benchwatch: no such directory");
}

}  // namespace
}  // namespace benchwatch::vcs
