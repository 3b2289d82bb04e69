// What could break: the tests' bound on a command that might never exit: a command that exits
// in time reported as killed, one that hangs waited for anyway, or its children left running
// (holding the test's pipes open) after it was killed.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

TEST(RunWithTimeout, ACommandThatExitsInTimeIsNotKilled) {
    const TemporaryDirectory directory("benchwatch-timeout");
    const auto output = run_with_timeout({"sh", "-c", "echo out; echo err >&2; exit 3"},
                                         directory.path(), {}, std::chrono::seconds(30));
    EXPECT_FALSE(output.timed_out);
    EXPECT_EQ(output.timeout_message, "");
    EXPECT_EQ(output.exit_code, 3);
    EXPECT_EQ(output.out, "out\n");
    EXPECT_EQ(output.err, "err\n");
}

TEST(RunWithTimeout, AHangingCommandAndItsChildrenAreKilledAtTheTimeout) {
    const TemporaryDirectory directory("benchwatch-timeout");
    const auto marker = directory.path() / "child-still-ran";
    const std::vector<std::string> argv = {
        "sh", "-c", "(sleep 2; touch " + marker.string() + ") & echo started; sleep 60"};
    const auto started = std::chrono::steady_clock::now();
    const auto output = run_with_timeout(argv, directory.path(), {}, std::chrono::seconds(1));
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
    EXPECT_TRUE(output.timed_out);
    EXPECT_EQ(output.timeout_message,
              describe(argv) +
                  " was still running after 1 s, so it and its process group were "
                  "killed");
    EXPECT_EQ(output.exit_code, -1);
    EXPECT_EQ(output.out, "started\n");
    // The background child was in the killed group: it never reaches its touch.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    EXPECT_FALSE(fs::exists(marker));
}

}  // namespace
}  // namespace benchwatch::testing
