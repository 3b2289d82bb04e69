// What could break: a results reader that copies a long name once per level of nesting, or once
// per result that shares it, before it checks the name's length, so that a file of a few MB
// takes GBs (12.5 MB of BenchmarkTools groups 250 deep took 2 GB) before its one-line error.
// `record` and the two-file `compare` are run on such a file and their peak memory (wait4's
// ru_maxrss) is held to a bound far below what the copies took.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/test_store.hpp"
#include "support/test_support.hpp"
#include "vcs/process.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kDepth = 250;
constexpr std::size_t kKeyBytes = 50'000;
// The file is 12.5 MB; reading it whole with simdjson's index takes a few times that.
constexpr long kPeakBoundKib = 200 * 1024;

// A BenchmarkTools.save file whose one TrialEstimate lies `depth` groups deep, every group's key
// `key_bytes` letters long.
std::string deep_groups(int depth, std::size_t key_bytes) {
    const std::string key(key_bytes, 'g');
    std::string text = R"([{"Julia":"1.10.0","BenchmarkTools":"1.0.0"},[)";
    for (int level = 0; level < depth; ++level)
        text += R"(["BenchmarkGroup",{"data":{")" + key + R"(":)";
    text += R"(["TrialEstimate",{"time":2.0}])";
    for (int level = 0; level < depth; ++level) text += "}}]";
    return text + "]]";
}

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
    long peak_kib = 0;
};

Outcome benchwatch(const fs::path& directory, const std::vector<std::string>& arguments) {
    vcs::SpawnRequest request;
    request.argv = benchwatch_command(arguments);
    request.directory = directory;
    request.environment = {{"NO_COLOR", "1"}};
    const vcs::SpawnOutcome spawned = vcs::spawn_and_collect(request);
    EXPECT_TRUE(spawned.started) << spawned.start_error;
    Outcome outcome;
    if (WIFEXITED(spawned.wait_status)) outcome.exit_code = WEXITSTATUS(spawned.wait_status);
    outcome.out = spawned.out;
    outcome.err = spawned.err;
    outcome.peak_kib = spawned.usage.ru_maxrss;
    return outcome;
}

TEST(DeepGroupsMemoryTest, LongNamesNestedDeeplyAreRefusedAtTheFirstLevelWithLittleMemory) {
    const TemporaryDirectory directory("benchwatch-deep-groups");
    write_text(directory.path() / "deep.json", deep_groups(kDepth, kKeyBytes));
    // The first group's key is already longer than a name may be: refused there, before the
    // reader descends, with the message a long name gets anywhere.
    const std::string expected =
        "error: deep.json: benchmark name of 50000 bytes is longer than "
        "the 4096 allowed: \"" +
        std::string(60, 'g') + "…\"\n";

    const Outcome record =
        benchwatch(directory.path(), {"record", "--store", test_store_url(directory.path(), "h"),
                                      "--project", "p", "--machine", "m", "--commit",
                                      fake_commit("deep"), "--branch", "main", "deep.json"});
    EXPECT_EQ(record.exit_code, 2);
    EXPECT_EQ(record.err, expected);
    EXPECT_EQ(record.out, "");
    // Before, 1.9 GiB: 250 levels each holding its own copy of the path so far.
    EXPECT_LT(record.peak_kib, kPeakBoundKib)
        << fmt::format("record took {} MiB at its peak", record.peak_kib / 1024);

    const Outcome compare = benchwatch(directory.path(), {"compare", "deep.json", "deep.json"});
    EXPECT_EQ(compare.exit_code, 2);
    EXPECT_EQ(compare.err, expected);
    EXPECT_LT(compare.peak_kib, kPeakBoundKib)
        << fmt::format("compare took {} MiB at its peak", compare.peak_kib / 1024);
}

}  // namespace
}  // namespace benchwatch::testing
