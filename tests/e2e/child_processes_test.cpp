// What could break: benchwatch holding everything a harness or a build prints, so that a command
// printing hundreds of MB takes as much memory and writes a build log as large; a finished suite
// whose background process keeps the output pipes open making benchwatch wait until its timeout
// (or forever without one); and a process a suite started with setsid, outside its process
// group, still running after benchwatch has returned.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "support/test_store.hpp"
#include "support/test_support.hpp"
#include "vcs/process.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// One Google Benchmark result, as a suite prints it.
constexpr std::string_view results_json =
    "{\"context\": {\"library_build_type\": \"release\"}, \"benchmarks\": [{\"name\": \"a\", "
    "\"run_type\": \"iteration\", \"real_time\": 100, \"time_unit\": \"ns\"}]}";

// 300,000,000 bytes of one letter on standard output, fast: well past every cap.
constexpr std::string_view flood = "head -c 300000000 /dev/zero | tr '\\0' x";

// Whether this build runs under AddressSanitizer, which makes benchwatch take more memory.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool address_sanitized = true;
#else
constexpr bool address_sanitized = false;
#endif

// False once `pid` has ended: no such process, or a zombie ('Z' after the name in its stat).
bool process_alive(int pid) {
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto name_end = line.rfind(')');
    return name_end == std::string::npos || line.substr(name_end + 2, 1) != "Z";
}

// What a test run of benchwatch did: its output, exit code, peak memory and time taken.
struct Finished {
    vcs::SpawnOutcome outcome;
    int exit_code = -1;
    long peak_mib = 0;  // wait4's ru_maxrss: benchwatch, or the largest child it waited for
    double seconds = 0;
};

class ChildProcessesTest : public ::testing::Test {
  protected:
    // An executable shell script in the temporary directory.
    fs::path script(const std::string& name, const std::string& body) {
        const auto path = directory_.path() / name;
        write_text(path, "#!/bin/sh\n" + body);
        fs::permissions(path, fs::perms::owner_all);
        return path;
    }

    // Runs benchwatch with `arguments` in `folder` (default: the temporary directory), killed
    // after 90 s so that a hang fails the test instead of stalling the whole test run. Not in a
    // process group of its own, so that what benchwatch leaves running is seen afterwards.
    Finished benchwatch(const std::vector<std::string>& arguments, fs::path folder = {}) {
        vcs::SpawnRequest request;
        request.argv = benchwatch_command(arguments);
        request.directory = folder.empty() ? directory_.path() : folder;
        request.environment = without_ci_variables();
        request.timeout = 90s;
        const auto started = std::chrono::steady_clock::now();
        Finished finished;
        finished.outcome = vcs::spawn_and_collect(request);
        finished.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        EXPECT_TRUE(finished.outcome.started) << finished.outcome.start_error;
        EXPECT_FALSE(finished.outcome.timed_out) << "benchwatch still ran after 90 s";
        if (WIFEXITED(finished.outcome.wait_status))
            finished.exit_code = WEXITSTATUS(finished.outcome.wait_status);
        finished.peak_mib = finished.outcome.usage.ru_maxrss / 1024;
        return finished;
    }

    // The most memory, in MiB, benchwatch may peak at where the normal build's bound is `bound`.
    // Under AddressSanitizer the same work takes more: its shadow memory adds a byte for every
    // eight used (a factor of 9/8), and its runtime, instrumented code and padded globals take
    // some 90 MiB before benchwatch does anything (against 14 MiB without it). A process spawned
    // there also reports this test's own peak as its own when that is larger (some 100 MiB at
    // the start, more after other tests in the same process). Both are measured here as the
    // peak of a `benchwatch --version` that this test spawns.
    long peak_bound_mib(long bound) {
        if constexpr (!address_sanitized) return bound;
        return bound * 9 / 8 + benchwatch({"--version"}).peak_mib;
    }

    std::vector<std::string> run_arguments(std::vector<std::string> extra) {
        std::vector<std::string> arguments = {
            "run",      "--store",         store_,     "--project", "p", "--machine", "m",
            "--commit", fake_commit("c1"), "--branch", "main"};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return arguments;
    }

    // Waits up to 5 s for `pid` to end; false when it is still alive then.
    static bool ends(int pid) {
        for (int attempt = 0; attempt < 500; ++attempt) {
            if (!process_alive(pid)) return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    }

    // The process id a script wrote to `name` in the temporary directory.
    int written_pid(const std::string& name) {
        return std::stoi(read_text(directory_.path() / name));
    }

    TemporaryDirectory directory_{"benchwatch-children"};
    std::string store_ = test_store_url(directory_.path());
};

// The harness prints 300 MB of results: past the 256 MiB benchwatch reads, it is stopped with
// one line, and benchwatch never holds more than that cap.
TEST_F(ChildProcessesTest, AHarnessPrintingPastTheCapFailsWithOneLineAndBoundedMemory) {
    const auto harness = script("flood", std::string(flood) + "\n");
    const auto finished = benchwatch(run_arguments({"--", harness.string()}));
    EXPECT_EQ(finished.exit_code, 2);
    // After the progress lines, one line says what happened.
    const auto& err = finished.outcome.err;
    const auto last_line = err.substr(err.rfind('\n', err.size() - 2) + 1);
    EXPECT_EQ(last_line,
              fmt::format("error: harness '{}' printed more than 256 MiB on standard output, the "
                          "most benchwatch reads; have it write its results to a file and name "
                          "that file instead; nothing was recorded\n",
                          harness.string()));
    // Now the cap's 256 MiB and benchwatch's own few tens of MiB. Before, all 300 MB was held,
    // and with the copy a growing string makes, more: 300 MB (286 MiB) and more at the least.
    EXPECT_LT(finished.peak_mib, peak_bound_mib(320)) << "peak memory of benchwatch run";
}

// The harness prints 300 MB on standard error before its results: the run is recorded, and only
// the first and last MiB of standard error were kept.
TEST_F(ChildProcessesTest, AHarnessFloodingStandardErrorIsRecordedInLittleMemory) {
    const auto harness = script(
        "noisy", std::string(flood) + " >&2\nprintf '%s' '" + std::string(results_json) + "'\n");
    const auto finished = benchwatch(run_arguments({"--", harness.string()}));
    ASSERT_EQ(finished.exit_code, 0) << finished.outcome.err.substr(0, 2000);
    // Before, all 300 MB were held: over 300 MiB at peak.
    EXPECT_LT(finished.peak_mib, peak_bound_mib(100)) << "peak memory of benchwatch run";
}

// A build printing 150 MB on each stream fails: its log holds each stream's first and last MiB
// with the number of bytes left out between them, and benchwatch's memory stays small.
TEST_F(ChildProcessesTest, AFailingBuildsLogKeepsTheFirstAndLastMebibyteOfEachStream) {
    ScratchRepository repository;
    repository.write_file("build.sh",
                          "head -c 150000000 /dev/zero | tr '\\0' o\n"
                          "head -c 150000000 /dev/zero | tr '\\0' e >&2\nexit 2\n");
    repository.write_file("benchwatch.toml",
                          "project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"sh build.sh\"\n"
                          "run = \"true\"\n");
    repository.commit("a build that prints too much");
    const auto finished =
        benchwatch({"backfill", "--store", store_, "--no-progress"}, repository.directory());
    EXPECT_EQ(finished.exit_code, 1) << finished.outcome.err;
    const auto& err = finished.outcome.err;
    const auto start = err.find("output is in ");
    const auto end = err.find("; skipped", start);
    ASSERT_NE(end, std::string::npos) << err;
    const fs::path log = err.substr(start + 13, end - start - 13);
    const std::size_t mib = 1 << 20;
    // 150,000,000 − 2 × 1,048,576 = 147,902,848 bytes of each stream left out.
    const std::string expected = std::string(mib, 'o') + "\n… 147902848 bytes dropped …\n" +
                                 std::string(mib, 'o') + std::string(mib, 'e') +
                                 "\n… 147902848 bytes dropped …\n" + std::string(mib, 'e');
    EXPECT_EQ(fs::file_size(log), expected.size());
    EXPECT_TRUE(read_text(log) == expected) << "the log is not the streams' first and last MiB";
    // Before, both streams were held whole and written whole: 300 MB of log, 300 MiB of memory.
    EXPECT_LT(finished.peak_mib, peak_bound_mib(100)) << "peak memory of benchwatch backfill";
}

// The suite leaves a process running in the background that holds its output open: benchwatch
// records the results as soon as the suite has exited, and ends that process.
TEST_F(ChildProcessesTest, ABackgroundProcessHoldingTheOutputOpenDoesNotHoldUpTheRun) {
    const auto harness =
        script("leaves-one", "sleep 60 &\necho $! > background.pid\nprintf '%s' '" +
                                 std::string(results_json) + "'\n");
    const auto finished = benchwatch(run_arguments({"--timeout", "30", "--", harness.string()}));
    // Reading until the pipes closed would outlast --timeout (the background process sleeps for
    // 60 s), and a run that times out fails: success means the results were taken at the suite's
    // exit.
    ASSERT_EQ(finished.exit_code, 0) << finished.outcome.err;
    const int background = written_pid("background.pid");
    EXPECT_TRUE(ends(background)) << "the background process " << background << " outlived the run";
    if (process_alive(background)) ::kill(background, SIGKILL);
}

// The suite starts a process in a session of its own (setsid), out of its process group: it is
// ended before benchwatch returns.
TEST_F(ChildProcessesTest, AProcessStartedWithSetsidIsEndedWithTheRun) {
    const auto harness =
        script("escapes",
               "setsid sh -c 'echo $$ > escaped.pid; exec sleep 60' </dev/null >/dev/null 2>&1 &\n"
               "while [ ! -s escaped.pid ]; do sleep 0.01; done\n"
               "printf '%s' '" +
                   std::string(results_json) + "'\n");
    const auto finished = benchwatch(run_arguments({"--timeout", "30", "--", harness.string()}));
    ASSERT_EQ(finished.exit_code, 0) << finished.outcome.err;
    const int escaped = written_pid("escaped.pid");
    // Not waited for: benchwatch has returned, so whatever it ended is already gone.
    const bool alive = process_alive(escaped);
    EXPECT_FALSE(alive) << "the setsid process " << escaped << " outlived benchwatch";
    if (alive) ::kill(escaped, SIGKILL);
}

// benchwatch is stopped with SIGTERM while its harness runs: the harness's group and the process
// it started with setsid both end with it.
TEST_F(ChildProcessesTest, AnInterruptedRunEndsTheProcessesThatLeftTheGroupToo) {
    const auto harness =
        script("waits",
               "setsid sh -c 'echo $$ > escaped.pid; exec sleep 60' </dev/null >/dev/null 2>&1 &\n"
               "echo $$ > harness.pid\nexec sleep 60\n");
    vcs::SpawnRequest request;
    request.argv = benchwatch_command(run_arguments({"--", harness.string()}));
    request.directory = directory_.path();
    request.environment = without_ci_variables();
    request.timeout = 90s;
    std::thread stopper([&] {
        for (int attempt = 0; attempt < 3000; ++attempt) {
            if (fs::exists(directory_.path() / "harness.pid") &&
                fs::exists(directory_.path() / "escaped.pid") &&
                fs::file_size(directory_.path() / "escaped.pid") > 0)
                break;
            std::this_thread::sleep_for(10ms);
        }
        std::this_thread::sleep_for(50ms);
        // The benchwatch process: the parent of the harness.
        std::ifstream stat(fmt::format("/proc/{}/stat", written_pid("harness.pid")));
        std::string line;
        std::getline(stat, line);
        const auto parent = std::stoi(line.substr(line.rfind(')') + 4));
        ::kill(parent, SIGTERM);
    });
    const auto outcome = vcs::spawn_and_collect(request);
    stopper.join();
    ASSERT_TRUE(WIFSIGNALED(outcome.wait_status)) << outcome.err;
    EXPECT_EQ(WTERMSIG(outcome.wait_status), SIGTERM);
    const int escaped = written_pid("escaped.pid");
    // Adopted by init once benchwatch ended, so possibly not reaped at once: waited for.
    EXPECT_TRUE(ends(escaped)) << "the setsid process " << escaped << " outlived benchwatch";
    if (process_alive(escaped)) ::kill(escaped, SIGKILL);
}

}  // namespace
}  // namespace benchwatch::testing
