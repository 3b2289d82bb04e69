// What could break, on SQLite and on PostgreSQL alike: processes racing to create and migrate one
// new store, a run stored twice, lost or given a duplicate attempt number when several record at
// once, or a process killed mid-write leaving half a run.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "store/store.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using testing::make_run;
using ConcurrencyTest = testing::BackendTest;

// Runs `body` in a child process; the child exits 0 when it returns, 1 when it throws.
template <class Body>
pid_t spawn(Body&& body) {
    const pid_t pid = fork();
    if (pid != 0) return pid;
    try {
        body();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "child %d: %s\n", getpid(), error.what());
        _exit(1);
    }
    _exit(0);
}

// The exit status of `pid`, or 128 + the signal that ended it.
int wait_for(pid_t pid) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_P(ConcurrencyTest, EightProcessesCreatingOneNewStoreAtOnceStoreEveryRunOnce) {
    constexpr int kProcesses = 8;
    for (int round = 0; round < 3; ++round) {
        SCOPED_TRACE(fmt::format("round {}", round));
        // The directory does not exist yet either: the processes race to create it too.
        const std::string store_path = fresh_store_url(fmt::format("round{}", round));
        int start[2];
        ASSERT_EQ(pipe(start), 0);
        std::vector<pid_t> children;
        for (int i = 0; i < kProcesses; ++i) {
            children.push_back(spawn([&, i] {
                close(start[1]);
                char byte;
                // Blocks until the parent closes its end, releasing all children at once.
                while (read(start[0], &byte, 1) > 0) {
                }
                if (!open_store(store_path)->record(make_run(fmt::format("c{}", i), "h")).inserted)
                    throw std::runtime_error("run was not inserted");
            }));
        }
        close(start[0]);
        close(start[1]);
        for (const pid_t child : children) EXPECT_EQ(wait_for(child), 0);

        auto store = open_store(store_path);
        const std::vector<model::Run> runs = store->list_runs({});
        std::set<std::string> commits;
        std::vector<std::int64_t> ids;
        for (const model::Run& run : runs) {
            commits.insert(run.commit);
            ids.push_back(run.id);
            EXPECT_EQ(run.attempt, 1);
        }
        EXPECT_EQ(runs.size(), 8u);
        EXPECT_EQ(commits, (std::set<std::string>{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}));
        for (const auto& [id, results] : store->results(ids)) EXPECT_EQ(results.size(), 2u);
    }
}

// A run of `commit` with kResultsPerRun results whose values encode the commit and position
// (from 1: a time of 0 is refused).
constexpr int kResultsPerRun = 2000;
model::Run large_run(int commit_number) {
    model::Run run = make_run(fmt::format("k{}", commit_number), "h");
    run.results.clear();
    for (int i = 0; i < kResultsPerRun; ++i)
        run.results.push_back(testing::time_result(fmt::format("group/benchmark-{:04}", i),
                                                   commit_number * 10'000.0 + i + 1));
    return run;
}

TEST_P(ConcurrencyTest, ProcessKilledWhileRecordingLeavesOnlyWholeRuns) {
    const std::string store_path = store_url_;
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE(fmt::format("random seed {}", seed));
    std::mt19937 random(seed);
    int next_commit = 0;

    for (int round = 0; round < 4; ++round) {
        int ready[2];
        ASSERT_EQ(pipe(ready), 0);
        const pid_t child = spawn([&] {
            close(ready[0]);
            auto store = open_store(store_path);
            store->record(large_run(next_commit));
            const char byte = 1;
            if (write(ready[1], &byte, 1) != 1) throw std::runtime_error("pipe");
            for (int commit = next_commit + 1;; ++commit) store->record(large_run(commit));
        });
        close(ready[1]);
        char byte;
        ASSERT_EQ(read(ready[0], &byte, 1), 1);  // the child has recorded one whole run
        close(ready[0]);
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 400)(random)));
        ASSERT_EQ(kill(child, SIGKILL), 0);
        ASSERT_EQ(wait_for(child), 128 + SIGKILL);

        if (GetParam() == testing::Backend::Sqlite) {
            EXPECT_EQ(query_text("PRAGMA integrity_check"), "ok");
        }
        auto store = open_store(store_path);
        const std::vector<model::Run> runs = store->list_runs({});
        ASSERT_GT(static_cast<int>(runs.size()), next_commit);
        std::vector<std::int64_t> ids;
        for (const model::Run& run : runs) ids.push_back(run.id);
        const auto results = store->results(ids);
        // Runs k0, k1, … in order, none missing, each with every result and its own values.
        for (std::size_t n = 0; n < runs.size(); ++n) {
            ASSERT_EQ(runs[n].commit, fmt::format("k{}", n));
            const std::vector<model::Result>& stored = results.at(runs[n].id);
            ASSERT_EQ(stored.size(), static_cast<std::size_t>(kResultsPerRun));
            EXPECT_EQ(stored.front().value, static_cast<double>(n) * 10'000.0 + 1);
            EXPECT_EQ(stored.back().value, static_cast<double>(n) * 10'000.0 + kResultsPerRun);
        }
        next_commit = static_cast<int>(runs.size());
    }
}

TEST_P(ConcurrencyTest, SixteenProcessesRecordingTheSameRunsAtOnceStoreEachOnce) {
    // Each process records, for commits s0…s4, the run every process has (content "shared") and
    // one of its own (content "own-P"), in an order of its own. Per commit that is 1 shared + 16
    // own = 17 runs, whose attempts must be exactly 1…17.
    constexpr int kProcesses = 16;
    constexpr int kCommits = 5;
    open();  // migrated once, so that the processes race on recording alone
    int start[2];
    ASSERT_EQ(pipe(start), 0);
    std::vector<pid_t> children;
    for (int process = 0; process < kProcesses; ++process) {
        children.push_back(spawn([&, process] {
            close(start[1]);
            char byte;
            while (read(start[0], &byte, 1) > 0) {
            }
            std::vector<model::Run> runs;
            for (int commit = 0; commit < kCommits; ++commit) {
                runs.push_back(make_run(fmt::format("s{}", commit), "shared"));
                runs.push_back(
                    make_run(fmt::format("s{}", commit), fmt::format("own-{}", process)));
            }
            std::shuffle(runs.begin(), runs.end(), std::mt19937(static_cast<unsigned>(process)));
            auto store = open_store(store_url_);
            for (const model::Run& run : runs) store->record(run);
        }));
    }
    close(start[0]);
    close(start[1]);
    for (const pid_t child : children) EXPECT_EQ(wait_for(child), 0);

    const std::vector<model::Run> runs = open()->list_runs({});
    EXPECT_EQ(runs.size(), static_cast<std::size_t>(kCommits * (kProcesses + 1)));
    std::map<std::string, std::multiset<int>> attempts_by_commit;
    std::set<std::pair<std::string, std::string>> stored;
    for (const model::Run& run : runs) {
        attempts_by_commit[run.commit].insert(run.attempt);
        EXPECT_TRUE(stored.emplace(run.commit, run.content_hash).second)
            << run.commit << " " << run.content_hash << " is stored twice";
    }
    std::multiset<int> one_to_seventeen;
    for (int attempt = 1; attempt <= kProcesses + 1; ++attempt) one_to_seventeen.insert(attempt);
    for (int commit = 0; commit < kCommits; ++commit)
        EXPECT_EQ(attempts_by_commit[fmt::format("s{}", commit)], one_to_seventeen);
}

BENCHWATCH_ON_EVERY_BACKEND(ConcurrencyTest);

}  // namespace
}  // namespace benchwatch::store
