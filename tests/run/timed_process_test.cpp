// What could break: timing or rusage read from the wrong place, a timeout that leaves the
// command's children running, pipes that deadlock on large output, or exit codes and signals
// mistaken for each other.

#include "run/timed_process.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "support/test_support.hpp"

namespace benchwatch::run {
namespace {

using namespace std::chrono_literals;

// False once `pid` has ended: no such process, or a zombie ('Z' after the name in its stat).
bool process_alive(int pid) {
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto name_end = line.rfind(')');
    return name_end == std::string::npos || line.substr(name_end + 2, 1) != "Z";
}

Command shell(std::string_view text) {
    return Command{.argv = shell_argv(text)};
}

TEST(TimedProcess, ShellArgvRunsTheTextWithBinSh) {
    EXPECT_EQ(shell_argv("echo hi"), (std::vector<std::string>{"/bin/sh", "-c", "echo hi"}));
    EXPECT_EQ(command_text(shell_argv("a | b")), "a | b");
    EXPECT_EQ(command_text({"sleep", "0.05"}), "sleep 0.05");
}

TEST(TimedProcess, WallTimeCoversASleep) {
    const auto result = run_timed(Command{.argv = {"sleep", "0.05"}});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_TRUE(result.succeeded());
    // Loose bounds only: the machine is shared, so nothing tighter than "slept, did not hang".
    EXPECT_GE(result.wall_seconds, 0.05);
    EXPECT_LT(result.wall_seconds, 0.5);
}

TEST(TimedProcess, UserTimeOfACpuBoundLoopIsCounted) {
    const auto result = run_timed(shell("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"));
    ASSERT_TRUE(result.succeeded()) << result.err;
    EXPECT_GT(result.user_seconds, 0.0);
    EXPECT_GE(result.system_seconds, 0.0);
}

TEST(TimedProcess, PeakMemoryOfA200MebibyteBufferIsWithinFivePercent) {
    // dd allocates one 200 MiB block and fills it from /dev/zero, touching every page:
    // 200 × 1024 × 1024 = 209,715,200 bytes, plus dd's own baseline of a few MiB, which the
    // upper bound of 5% (220,200,960 bytes) leaves room for.
    const auto result = run_timed(Command{
        .argv = {"dd", "if=/dev/zero", "of=/dev/null", "bs=200M", "count=1", "iflag=fullblock"}});
    ASSERT_TRUE(result.succeeded()) << result.err;
    EXPECT_GE(result.max_rss_bytes, 209'715'200);
    EXPECT_LE(result.max_rss_bytes, 220'200'960);
}

TEST(TimedProcess, TimeoutKillsTheWholeProcessGroup) {
    testing::TemporaryDirectory folder("benchwatch-run");
    auto command = shell("sleep 30 & echo $! > background.pid; sleep 30");
    command.directory = folder.path();
    command.timeout = 0.2s;
    const auto result = run_timed(command);
    EXPECT_TRUE(result.timed_out);
    EXPECT_FALSE(result.succeeded());
    EXPECT_EQ(result.signal, SIGKILL);
    EXPECT_LT(result.wall_seconds, 10.0);
    EXPECT_EQ(describe_failure(result, command), "timed out after 0.2 s");

    // The background sleep was in the group too: it is dead, either gone or a zombie waiting
    // for whichever process adopted it to reap it.
    const auto background = testing::read_text(folder.path() / "background.pid");
    bool dead = false;
    for (int attempt = 0; attempt < 500 && !dead; ++attempt) {
        dead = !process_alive(std::stoi(background));
        if (!dead) std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(dead) << "process " << background << " outlived the timeout";
}

TEST(TimedProcess, ExitCodesAreReportedAndDescribed) {
    const auto command = shell("echo oops >&2; exit 3");
    const auto result = run_timed(command);
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_FALSE(result.signal);
    EXPECT_FALSE(result.succeeded());
    EXPECT_EQ(result.err, "oops\n");
    EXPECT_EQ(describe_failure(result, command), "exit 3");
}

TEST(TimedProcess, SignalsAreReportedByName) {
    const auto command = shell("kill -SEGV $$");
    const auto result = run_timed(command);
    EXPECT_FALSE(result.exit_code);
    EXPECT_EQ(result.signal, SIGSEGV);
    EXPECT_EQ(describe_failure(result, command), "killed by SIGSEGV");
}

TEST(TimedProcess, SuccessHasNoFailureDescription) {
    const auto command = shell("true");
    EXPECT_EQ(describe_failure(run_timed(command), command), "");
}

TEST(TimedProcess, LargeOutputOnBothStreamsDoesNotDeadlock) {
    // 3,000,000 bytes on stderr first, then on stdout: far more than a pipe holds, so a reader
    // that waits for one stream to end before reading the other would hang (the timeout then
    // fails the test instead).
    auto command =
        shell("head -c 3000000 /dev/zero | tr '\\0' e >&2; head -c 3000000 /dev/zero | tr '\\0' o");
    command.timeout = 60s;
    const auto result = run_timed(command);
    ASSERT_TRUE(result.succeeded()) << describe_failure(result, command);
    // Standard error keeps its first and last MiB: 3,000,000 − 2 × 1,048,576 = 902,848 bytes
    // dropped. Standard output, read as results, is kept whole.
    EXPECT_TRUE(result.err == std::string(1 << 20, 'e') + "\n… 902848 bytes dropped …\n" +
                                  std::string(1 << 20, 'e'));
    EXPECT_EQ(result.out, std::string(3'000'000, 'o'));
}

TEST(TimedProcess, OutputOnlyLoggedKeepsItsFirstAndLastMebibyte) {
    auto command = shell(
        "head -c 1048576 /dev/zero | tr '\\0' a; printf 'middle'; "
        "head -c 1048576 /dev/zero | tr '\\0' z");
    command.stdout_mode = OutputMode::log;
    const auto result = run_timed(command);
    ASSERT_TRUE(result.succeeded()) << describe_failure(result, command);
    EXPECT_TRUE(result.out ==
                std::string(1 << 20, 'a') + "\n… 6 bytes dropped …\n" + std::string(1 << 20, 'z'));
}

TEST(TimedProcess, AFinishedCommandsBackgroundProcessesAreEndedWithIt) {
    // The background sleep holds stdout and stderr open; its setsid neighbour leaves the group.
    testing::TemporaryDirectory folder("benchwatch-run");
    auto command = shell(
        "sleep 30 & echo $! > background.pid; "
        "setsid sh -c 'echo $$ > escaped.pid; exec sleep 30' </dev/null >/dev/null 2>&1 & "
        "while [ ! -s escaped.pid ]; do sleep 0.01; done; echo done");
    command.directory = folder.path();
    command.timeout = 20s;
    const auto result = run_timed(command);
    ASSERT_TRUE(result.succeeded()) << describe_failure(result, command);
    EXPECT_EQ(result.out, "done\n");
    EXPECT_LT(result.wall_seconds, 10.0);
    for (const char* name : {"background.pid", "escaped.pid"}) {
        const auto pid = std::stoi(testing::read_text(folder.path() / name));
        EXPECT_FALSE(process_alive(pid)) << name << ": " << pid << " outlived the command";
    }
}

TEST(TimedProcess, AChildStartedEarlierByOtherMeansOutlivesTheCommand) {
    // A caller's own long-running child (a server a test runs alongside) is not the command's.
    const pid_t neighbour = ::fork();
    ASSERT_GE(neighbour, 0);
    if (neighbour == 0) {
        ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::this_thread::sleep_for(50ms);  // start times count in ticks of 10 ms
    auto command = shell("sleep 30 & echo done");
    command.timeout = 20s;
    const auto result = run_timed(command);
    const bool survived = process_alive(neighbour);
    ::kill(neighbour, SIGKILL);
    ::waitpid(neighbour, nullptr, 0);
    ASSERT_TRUE(result.succeeded()) << describe_failure(result, command);
    EXPECT_TRUE(survived);
}

TEST(TimedProcess, StandardOutputPastTheCapStopsTheCommand) {
    auto command = shell("yes");
    command.timeout = 60s;
    const auto result = run_timed(command);
    EXPECT_TRUE(result.output_overflowed);
    EXPECT_FALSE(result.succeeded());
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(describe_failure(result, command),
              "printed more than 256 MiB on standard output, the most benchwatch reads; have it "
              "write its results to a file and name that file instead");
}

TEST(TimedProcess, RunsInTheDirectoryWithTheExtraEnvironment) {
    testing::TemporaryDirectory folder("benchwatch-run");
    auto command = shell("printf '%s %s' \"$BENCHWATCH_RUN_TEST\" \"$(pwd -P)\"");
    command.directory = folder.path();
    command.environment = {{"BENCHWATCH_RUN_TEST", "set"}};
    const auto result = run_timed(command);
    EXPECT_EQ(result.out, "set " + std::filesystem::canonical(folder.path()).string());
}

TEST(TimedProcess, StdinIsEmpty) {
    auto command = Command{.argv = {"cat"}};
    command.timeout = 10s;
    const auto result = run_timed(command);
    EXPECT_TRUE(result.succeeded());
    EXPECT_EQ(result.out, "");
}

TEST(TimedProcess, DiscardedOutputIsNotCaptured) {
    auto command = shell("echo to-null; echo to-err >&2");
    command.stdout_mode = OutputMode::discard;
    const auto result = run_timed(command);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "to-err\n");
}

TEST(TimedProcess, AMissingProgramIsAStartError) {
    try {
        run_timed(Command{.argv = {"benchwatch-no-such-program"}});
        FAIL() << "expected StartError";
    } catch (const StartError& error) {
        EXPECT_STREQ(error.what(),
                     "cannot run 'benchwatch-no-such-program': No such file or directory");
    }
}

TEST(CommandWords, AreAShellTextsWordsOrTheArgumentsThemselves) {
    EXPECT_EQ(command_words(shell_argv(" build/bench  --fast ")),
              (std::vector<std::string>{"build/bench", "--fast"}));
    EXPECT_EQ(command_words({"build/bench", "a b"}),
              (std::vector<std::string>{"build/bench", "a b"}));
    EXPECT_TRUE(is_shell_argv(shell_argv("x")));
    EXPECT_FALSE(is_shell_argv({"/bin/sh", "x"}));
}

TEST(ErrorTail, IsTheLastLinesWhereATracebackNamesItsCause) {
    const std::string traceback =
        "Traceback (most recent call last):\n  File \"bench.py\", line 3, in <module>\n"
        "    import psutil\nModuleNotFoundError: No module named 'psutil'\n\n";
    EXPECT_EQ(error_tail(traceback, "ignored"),
              "File \"bench.py\", line 3, in <module> | import psutil | ModuleNotFoundError: No "
              "module named 'psutil'");
    // Standard output where standard error says nothing; one line as it is.
    EXPECT_EQ(error_tail(" \n", "FAILED test_a.py\r\n"), "FAILED test_a.py");
    EXPECT_EQ(error_tail("", ""), "");
}

TEST(ErrorTail, IsBoundedAndPrintable) {
    // 400 bytes of é: cut to the last 300 bytes or fewer, at a character.
    std::string long_line;
    for (int i = 0; i < 200; ++i) long_line += "é";
    const auto tail = error_tail(long_line, "");
    EXPECT_EQ(tail, "…" + long_line.substr(100));
    EXPECT_EQ(error_tail("a\x1b[2J\n##[error]b\n", ""), "a\\u{1b}[2J | ##\\u{5b}error]b");
}

}  // namespace
}  // namespace benchwatch::run
