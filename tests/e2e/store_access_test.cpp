// What could break: a reading command (history, compare, site, backtest, serve, history-branch
// push) creating an empty store at a mistyped path instead of saying there is none, a store the
// user may only read refused with "attempt to write a readonly database" or changed by reading
// it, or a writing command no longer creating its store.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "store/store.hpp"
#include "store/store_url.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

constexpr fs::perms kReadAndEnter = fs::perms::owner_read | fs::perms::owner_exec |
                                    fs::perms::group_read | fs::perms::group_exec |
                                    fs::perms::others_read | fs::perms::others_exec;

model::Run run_of(int position, const std::string& branch) {
    model::Run run;
    run.project = "p";
    run.machine = "m";
    run.commit = fake_commit("c" + std::to_string(position));
    run.branch = branch;
    run.recorded_at_ms = 1'790'000'000'000 + position * 3'600'000;
    run.format = "googlebenchmark";
    run.content_hash = "h" + std::to_string(position);
    for (int b = 0; b < 3; ++b) {
        model::Result result;
        result.benchmark = "b" + std::to_string(b);
        result.value = 1000 + ((position * 7 + b * 3) % 11) + (branch == "main" ? 0 : 200 * b);
        run.results.push_back(result);
    }
    return run;
}

// Every file in `folder` with its size and modification time, one a line: what reading changes.
std::string folder_state(const fs::path& folder) {
    std::vector<std::string> lines;
    for (const auto& entry : fs::directory_iterator(folder))
        lines.push_back(fmt::format("{} {} {}", entry.path().filename().string(), entry.file_size(),
                                    entry.last_write_time().time_since_epoch().count()));
    std::sort(lines.begin(), lines.end());
    return fmt::format("{}", fmt::join(lines, "\n"));
}

class StoreAccessTest : public ::testing::Test {
  protected:
    void SetUp() override { ::setenv("NO_COLOR", "1", 1); }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments,
                                  const std::vector<std::string>& prefix = {}) const {
        std::vector<std::string> argv = prefix;
        for (std::string& part : benchwatch_command(arguments)) argv.push_back(std::move(part));
        return run(argv, directory_.path(), without_ci_variables());
    }

    // The reading commands, each on the store `store`, writing what they write into `out`.
    std::vector<std::vector<std::string>> reading_commands(const std::string& store,
                                                           const fs::path& out) const {
        const std::string repo = directory_.path().string();
        return {
            {"history", "--store", store, "--project", "p", "--machine", "m", "--repo", repo},
            {"compare", "--store", store, "--project", "p", "--machine", "m", "--head",
             fake_commit("pr"), "--repo", repo, "--format", "json"},
            {"site", "--store", store, "--repo", repo, (out / "site").string()},
            {"backtest", "--store", store, "--project", "p", "--machine", "m", "--repo", repo},
            {"serve", "--store", store, "--repo", repo, "--project", "p", "--listen",
             "127.0.0.1:0"},
        };
    }

    TemporaryDirectory directory_{"benchwatch-store-access"};
};

// A missing SQLite file; in the PostgreSQL pass, a schema without benchwatch tables.
TEST_F(StoreAccessTest, ReadingCommandsOnAMissingStoreSaySoAndCreateNothing) {
    const fs::path missing = directory_.path() / "typo" / "history.db";
    const std::string url =
        stores_on_postgres() ? test_store_url(directory_.path(), "missing") : missing.string();
    for (const auto& command : reading_commands(url, directory_.path())) {
        SCOPED_TRACE(command.front());
        const auto output = benchwatch(command);
        EXPECT_EQ(output.exit_code, 2);
        EXPECT_EQ(output.out, "");
        EXPECT_EQ(output.err, "error: no store at " + store::without_credentials(url) +
                                  "; record a run first (benchwatch record) or pass --store\n");
        EXPECT_FALSE(fs::exists(missing.parent_path()));
        EXPECT_EQ(store::stored_schema_version(url), 0);
    }

    // The default store too, as a first `history` in a fresh checkout meets it.
    const auto output = benchwatch({"history", "--project", "p", "--machine", "m"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: no store at " +
                              (directory_.path() / ".benchwatch" / "history.db").string() +
                              "; record a run first (benchwatch record) or pass --store\n");
    EXPECT_FALSE(fs::exists(directory_.path() / ".benchwatch"));
}

TEST_F(StoreAccessTest, WritingCommandsStillCreateTheStore) {
    const fs::path results = directory_.path() / "results.json";
    write_text(results, R"({"context": {}, "benchmarks": [{"name": "b0", "run_type": "iteration",
        "iterations": 1, "real_time": 10, "cpu_time": 10, "time_unit": "ns"}]})");
    const fs::path store = directory_.path() / "new" / "history.db";
    const auto recorded =
        benchwatch({"record", "--store", store.string(), "--project", "p", "--machine", "m",
                    "--commit", fake_commit("c1"), "--branch", "main", results.string()});
    EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
    EXPECT_TRUE(fs::is_regular_file(store));

    const fs::path copied = directory_.path() / "copied" / "history.db";
    const auto copy = benchwatch({"copy", "--from", store.string(), "--to", copied.string()});
    EXPECT_EQ(copy.exit_code, 0) << copy.err;
    EXPECT_TRUE(fs::is_regular_file(copied));
}

TEST_F(StoreAccessTest, ReadingCommandsReadAStoreInAReadOnlyFolder) {
    if (stores_on_postgres()) GTEST_SKIP() << "about a SQLite file and its folder";
    const fs::path folder = directory_.path() / "store";
    const std::string path = (folder / "history.db").string();
    {
        const auto opened = store::open_store(path);
        for (int position = 0; position < 20; ++position) opened->record(run_of(position, "main"));
        opened->record(run_of(20, "feature"));
        auto head = run_of(21, "feature");
        head.commit = fake_commit("pr");
        opened->record(head);
    }
    // What each command prints on the store while it can still be written, to compare with.
    const fs::path writable_out = directory_.path() / "writable";
    fs::create_directories(writable_out);
    std::vector<std::string> expected;
    for (const auto& command : reading_commands(path, writable_out)) {
        if (command.front() == "serve") continue;
        const auto output = benchwatch(command);
        ASSERT_EQ(output.exit_code, 0) << command.front() << ": " << output.err;
        expected.push_back(output.out);
    }
    fs::remove_all(writable_out / "site");

    // Root writes whatever the modes say: the commands run as nobody, who may enter the
    // temporary folders, write only `out`, and neither write the store nor its folder.
    std::vector<std::string> prefix;
    if (geteuid() == 0) prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    const fs::path out = directory_.path() / "out";
    fs::create_directories(out);
    fs::permissions(directory_.path(), fs::perms::all);
    fs::permissions(out, fs::perms::all);
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(folder, kReadAndEnter);
    const std::string before = folder_state(folder);

    std::size_t next = 0;
    for (const auto& command : reading_commands(path, out)) {
        SCOPED_TRACE(command.front());
        if (command.front() == "serve") {
            // serve runs until stopped: its ready line shows it opened the store and loaded it.
            std::vector<std::string> timed = {"timeout", "--signal=TERM", "5"};
            timed.insert(timed.end(), prefix.begin(), prefix.end());
            const auto output = benchwatch(command, timed);
            EXPECT_EQ(output.err, "");
            EXPECT_TRUE(output.out.starts_with("serving http://127.0.0.1:")) << output.out;
            continue;
        }
        const auto output = benchwatch(command, prefix);
        EXPECT_EQ(output.exit_code, 0) << output.err;
        EXPECT_EQ(output.err, "");
        std::string want = expected[next];
        if (command.front() == "site")
            want.replace(want.find(writable_out.string()), writable_out.string().size(),
                         out.string());
        // One of the two compares of the same runs read the calibration the other cached.
        EXPECT_EQ(without_cache_origin(output.out), without_cache_origin(want))
            << unified_diff(want, output.out);
        ++next;
    }
    EXPECT_TRUE(fs::is_regular_file(out / "site" / "index.html"));
    EXPECT_EQ(folder_state(folder), before);
    fs::permissions(folder, fs::perms::owner_all);
}

}  // namespace
}  // namespace benchwatch::testing
