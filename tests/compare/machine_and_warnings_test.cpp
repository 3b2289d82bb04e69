// What could break: machine keys diffed every run like toolchain keys, a machine change claimed
// against a baseline that never described its machine, or warnings taken from the wrong attempt
// or the wrong side, or lost on their way through the SQLite store.
#include <gtest/gtest.h>

#include "compare/compare.hpp"
#include "recording.hpp"
#include "store/sqlite_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::timed;

const model::Environment kEpyc7402 = {
    {"os", "Debian GNU/Linux 12 (bookworm)"}, {"cpu", "AMD EPYC 7402"}, {"cores", "2"}};

TEST(MachineKeys, AreShownOnceAndKeptOutOfTheEnvironmentChanges) {
    Recorder recorder;
    auto base_environment = kEpyc7402;
    base_environment["compiler.gcc"] = "gcc (Debian 12.2.0-14) 12.2.0";
    auto head_environment = kEpyc7402;
    head_environment["compiler.gcc"] = "gcc (Debian 13.1.0-1) 13.1.0";
    head_environment["memory"] = "23.4 GiB";
    head_environment["cores"] = "4";
    recorder.record("base", "main", {timed("a", 1)}, base_environment);
    recorder.record("pr", "feature", {timed("a", 1)}, head_environment);
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    EXPECT_EQ(comparison.environment_changes,
              (std::vector<model::EnvironmentChange>{{"compiler.gcc", "12.2.0", "13.1.0"}}));
    EXPECT_EQ(comparison.machine_environment, (model::Environment{
                                                  {"os", "Debian GNU/Linux 12 (bookworm)"},
                                                  {"cpu", "AMD EPYC 7402"},
                                                  {"cores", "4"},
                                                  {"memory", "23.4 GiB"},
                                              }));
    // The base did not record its memory: no change, only the cores.
    EXPECT_EQ(comparison.machine_changes, (std::vector<model::EnvironmentChange>{
                                              {"cores", "2", "4"},
                                          }));
}

TEST(MachineKeys, ABaselineThatNeverDescribedItsMachineIsNoMachineChange) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 1)}, {{"julia", "1.10"}});
    recorder.record("pr", "feature", {timed("a", 1)}, [] {
        auto environment = kEpyc7402;
        environment["julia"] = "1.10";
        return environment;
    }());
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    EXPECT_TRUE(comparison.environment_changes.empty());
    EXPECT_TRUE(comparison.machine_changes.empty());
    EXPECT_EQ(comparison.machine_environment, kEpyc7402);
}

TEST(MachineKeys, AHeadWithoutABaselineStillDescribesItsMachine) {
    Recorder recorder;
    recorder.record("pr", "feature", {timed("a", 1)}, kEpyc7402,
                    {{"high-load", "The load average was 3.00 at start on 2 cores."}});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    ASSERT_EQ(comparison.baseline.kind, model::BaselineKind::None);
    EXPECT_EQ(comparison.machine_environment, kEpyc7402);
    EXPECT_EQ(comparison.head_warnings,
              (std::vector<model::Warning>{
                  {"high-load", "The load average was 3.00 at start on 2 cores."}}));
    EXPECT_TRUE(comparison.baseline_warnings.empty());
}

TEST(Warnings, ComeFromTheLatestAttemptOfEachSide) {
    Recorder recorder;
    const model::Warning governor{"cpu-governor", "1 of 2 CPUs use the 'powersave' governor."};
    const model::Warning debug{"debug-harness", "Google Benchmark is a debug build."};
    const model::Warning samples{"few-samples", "1 benchmark has fewer than 5 samples (a)."};
    recorder.record("base", "main", {timed("a", 1)}, {}, {governor, samples});
    recorder.record("pr", "feature", {timed("a", 2)}, {}, {debug});
    // The latest attempt of the head had none: its earlier attempt's warning is not shown.
    recorder.record("pr", "feature", {timed("a", 1)}, {}, {});
    auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_TRUE(comparison.head_warnings.empty());
    EXPECT_EQ(comparison.baseline_warnings, (std::vector<model::Warning>{governor, samples}));

    recorder.record("pr", "feature", {timed("a", 3)}, {}, {debug, governor});
    comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(comparison.head_warnings, (std::vector<model::Warning>{debug, governor}));
}

TEST(ThroughTheSqliteStore, WarningsAndMachineKeysReachTheComparison) {
    const benchwatch::testing::TemporaryDirectory directory("bw-compare-");
    const auto store = store::open_sqlite_store((directory.path() / "history.db").string());
    model::Run run;
    run.project = "p";
    run.machine = "m";
    run.branch = "main";
    run.commit = "base";
    run.content_hash = "1";
    run.environment = kEpyc7402;
    run.results = {timed("a", 1)};
    store->record(run);
    run.branch = "feature";
    run.commit = "pr";
    run.environment["cpu"] = "AMD EPYC 7B13";
    run.warnings = {{"few-samples", "1 benchmark has fewer than 5 samples (a)."},
                    {"high-load", "The load average was 3.00 at start on 2 cores."}};
    store->record(run);
    auto options = Recorder().options("pr");
    const auto comparison = compare(*store, nullptr, options);

    EXPECT_EQ(comparison.head_warnings, run.warnings);
    EXPECT_TRUE(comparison.baseline_warnings.empty());
    EXPECT_EQ(comparison.machine_environment, run.environment);
    EXPECT_EQ(comparison.machine_changes,
              (std::vector<model::EnvironmentChange>{{"cpu", "AMD EPYC 7402", "AMD EPYC 7B13"}}));
    EXPECT_TRUE(comparison.environment_changes.empty());
}

}  // namespace
}  // namespace benchwatch::compare
