// What could break: `benchwatch copy` holding on to the results of runs it has copied (a cleared
// vector keeps its capacity), or loading more runs at once than its batch of results allows, so
// that its memory grows with the history instead of staying near one batch's size. Measured as a
// ratio of two copies' peak memory in the same test run, so that neither the machine nor the
// build type decides the outcome.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"
#include "vcs/process.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// Below copy's batch of 50,000 results, so that each run is a batch of its own, and big enough
// that a run's results outweigh the rest of the process.
constexpr int kResultsPerRun = 40'000;
constexpr int kManyRuns = 8;

model::Run big_run(int position) {
    model::Run run;
    run.project = "p";
    run.machine = "m";
    run.commit = fake_commit("c" + std::to_string(position));
    run.branch = "main";
    run.recorded_at_ms = 1'790'000'000'000 + position;
    run.format = "googlebenchmark";
    run.content_hash = "h" + std::to_string(position);
    run.results.reserve(kResultsPerRun);
    for (int b = 0; b < kResultsPerRun; ++b) {
        model::Result& result = run.results.emplace_back();
        result.benchmark = fmt::format("group/benchmark_{:06}", b);
        result.value = 1000.0 + b % 97 + position;
    }
    return run;
}

// The peak resident memory in KiB of `benchwatch copy --from FROM --to TO`, failing the test
// when it does not succeed.
long copy_peak_kib(const fs::path& from, const std::string& to) {
    vcs::SpawnRequest request;
    request.argv = benchwatch_command({"copy", "--from", from.string(), "--to", to});
    const vcs::SpawnOutcome outcome = vcs::spawn_and_collect(request);
    EXPECT_TRUE(outcome.started) << outcome.start_error;
    EXPECT_TRUE(WIFEXITED(outcome.wait_status) && WEXITSTATUS(outcome.wait_status) == 0)
        << outcome.err;
    return outcome.usage.ru_maxrss;
}

// From SQLite to the test's store: SQLite, and PostgreSQL in the PostgreSQL pass.
TEST(CopyMemoryTest, PeakMemoryStaysThatOfOneRunWhateverTheNumberOfRuns) {
    const TemporaryDirectory directory("benchwatch-copy-memory");
    const fs::path one = directory.path() / "one.db";
    const fs::path many = directory.path() / "many.db";
    store::open_store(one.string())->record(big_run(0));
    {
        const auto store = store::open_store(many.string());
        for (int position = 0; position < kManyRuns; ++position) store->record(big_run(position));
    }

    const std::string many_copy = test_store_url(directory.path(), "many_copy");
    const long one_kib = copy_peak_kib(one, test_store_url(directory.path(), "one_copy"));
    const long many_kib = copy_peak_kib(many, many_copy);
    // Before, every copied run kept its results' memory: 8 runs took about 4 times 1 run's peak.
    EXPECT_LE(static_cast<double>(many_kib), 1.5 * static_cast<double>(one_kib))
        << fmt::format("copy of 1 run: {} MiB at peak, of {} runs: {} MiB", one_kib / 1024,
                       kManyRuns, many_kib / 1024);
    EXPECT_EQ(store::open_store(many_copy)->list_runs({}).size(),
              static_cast<std::size_t>(kManyRuns));
}

}  // namespace
}  // namespace benchwatch::testing
