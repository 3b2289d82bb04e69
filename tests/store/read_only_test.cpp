// What could break: a store opened for reading created where there was none (a mistyped path then
// reads as an empty history), a store in a folder the user may only read refused with "attempt to
// write a readonly database", a read-only open that migrates or changes the file, an older schema
// that cannot be migrated reported as anything but one line naming the file and the fix, or
// result counts that disagree with the stored results.
#include <fmt/format.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "store/store.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

namespace fs = std::filesystem;

using testing::BackendTest;
using testing::make_run;
using testing::StoreTest;

// The message of the StoreError that `open` throws, or "" when it throws none.
template <class Open>
std::string store_error_of(Open&& open) {
    try {
        open();
    } catch (const StoreError& error) {
        return error.what();
    }
    return "";
}

// What `body` returns when run in a child process as the unprivileged user "nobody" (as this
// user when not root): root writes any file whatever its mode, so a read-only store is only
// read-only to someone else. Exceptions come back as "exception: what()".
std::string as_nobody(const std::function<std::string()>& body) {
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) return "pipe failed";
    const pid_t child = fork();
    if (child == 0) {
        close(pipe_ends[0]);
        std::string said;
        if (geteuid() == 0 &&
            (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            said = "could not become nobody";
        else
            try {
                said = body();
            } catch (const std::exception& error) {
                said = std::string("exception: ") + error.what();
            }
        const ssize_t written = write(pipe_ends[1], said.data(), said.size());
        _exit(written == static_cast<ssize_t>(said.size()) ? 0 : 1);
    }
    close(pipe_ends[1]);
    std::string said;
    std::array<char, 4096> buffer{};
    for (ssize_t got; (got = read(pipe_ends[0], buffer.data(), buffer.size())) > 0;)
        said.append(buffer.data(), static_cast<std::size_t>(got));
    close(pipe_ends[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return said;
}

class ReadOnlyTest : public StoreTest {
  protected:
    void SetUp() override {
        StoreTest::SetUp();
        // nobody must reach the folder that holds the store.
        fs::permissions(directory_, fs::perms::owner_all | fs::perms::group_read |
                                        fs::perms::group_exec | fs::perms::others_read |
                                        fs::perms::others_exec);
        folder_ = directory_ / "store";
        store_path_ = (folder_ / "history.db").string();
        auto store = open_store(store_path_);
        store->record(make_run("c1", "h1"));
        store->record(make_run("c2", "h2"));
    }
    void TearDown() override {
        fs::permissions(folder_, fs::perms::owner_all);
        StoreTest::TearDown();
    }

    // Makes the store's file and folder readable and not writable by anyone but root.
    void make_read_only() const {
        fs::permissions(store_path_,
                        fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        fs::permissions(folder_, fs::perms::owner_read | fs::perms::owner_exec |
                                     fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
    }

    // Takes the store back to schema version 4, as an older benchwatch left it: undoes the
    // fifth and sixth steps.
    void make_version_four() const {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(store_path_.c_str(), &db), SQLITE_OK);
        const std::string sql =
            "DROP TABLE cached_calibrations; ALTER TABLE results DROP COLUMN sample_values; "
            "PRAGMA user_version = 4";
        EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }

    fs::path folder_;
    std::string store_path_;
};

TEST_F(ReadOnlyTest, MissingFileIsNamedAndNothingIsCreated) {
    const std::string missing = path("nowhere/history.db");
    for (const Access access : {Access::ReadOnly, Access::ReadCache}) {
        EXPECT_EQ(
            store_error_of([&] { open_store(missing, access); }),
            "no store at " + missing + "; record a run first (benchwatch record) or pass --store");
        EXPECT_EQ(
            store_error_of([&] { open_store("sqlite:" + missing, access); }),
            "no store at " + missing + "; record a run first (benchwatch record) or pass --store");
    }
    EXPECT_FALSE(fs::exists(path("nowhere")));
    // Writing creates it, as before.
    EXPECT_TRUE(open_store(missing, Access::ReadWrite)->record(make_run("c1", "h1")).inserted);
}

TEST_F(ReadOnlyTest, EmptyFileIsNoStoreAndStaysEmpty) {
    const std::string empty = path("empty.db");
    std::ofstream(empty).close();
    EXPECT_EQ(store_error_of([&] { open_store(empty, Access::ReadOnly); }),
              "no store at " + empty + "; record a run first (benchwatch record) or pass --store");
    EXPECT_EQ(fs::file_size(empty), 0u);
}

TEST_F(ReadOnlyTest, StoreInAReadOnlyFolderIsReadWithoutWritingAnything) {
    make_read_only();
    const auto before = fs::last_write_time(store_path_);
    for (const Access access : {Access::ReadOnly, Access::ReadCache}) {
        const std::string said = as_nobody([&] {
            const auto store = open_store(store_path_, access);
            const auto runs = store->list_runs({});
            std::vector<std::int64_t> ids;
            for (const auto& run : runs) ids.push_back(run.id);
            const std::string cache = store_error_of([&] {
                store->cache_calibration({"cuda", "ci-1", "s", "h"}, "value");
            });
            return fmt::format("{} runs, {} results of the first, newest id {}; caching: {}",
                               runs.size(), store->results(ids).at(ids.front()).size(),
                               store->last_run_id(), cache.empty() ? "stored" : "refused");
        });
        EXPECT_EQ(said, "2 runs, 2 results of the first, newest id 2; caching: refused");
    }
    EXPECT_EQ(fs::last_write_time(store_path_), before);
    EXPECT_FALSE(fs::exists(store_path_ + "-wal"));
}

TEST_F(ReadOnlyTest, ReadOnlyFileInAWritableFolderIsRead) {
    fs::permissions(store_path_,
                    fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(folder_, fs::perms::all);
    const std::string said = as_nobody([&] {
        return std::to_string(open_store(store_path_, Access::ReadOnly)->list_runs({}).size());
    });
    EXPECT_EQ(said, "2");
}

TEST_F(ReadOnlyTest, OlderSchemaThatCannotBeMigratedSaysWhatToDo) {
    make_version_four();
    make_read_only();
    const std::string said = as_nobody([&] {
        open_store(store_path_, Access::ReadOnly);
        return std::string("opened");
    });
    EXPECT_EQ(said, fmt::format("exception: store {} has schema version 4, older than this "
                                "benchwatch ({}), and cannot be migrated here: it is read-only; "
                                "run benchwatch migrate --store {} as a user who may write it",
                                store_path_, current_schema_version(), store_path_));
    EXPECT_EQ(stored_schema_version(store_path_), 4);
}

TEST_F(ReadOnlyTest, OlderSchemaThatCanBeWrittenIsMigratedAndRead) {
    make_version_four();
    EXPECT_EQ(open_store(store_path_, Access::ReadOnly)->list_runs({}).size(), 2u);
    EXPECT_EQ(stored_schema_version(store_path_), current_schema_version());
}

using ReadOnlyEveryBackendTest = BackendTest;

TEST_P(ReadOnlyEveryBackendTest, StoreWithoutTablesIsNoStoreAndGetsNone) {
    for (const Access access : {Access::ReadOnly, Access::ReadCache})
        EXPECT_EQ(store_error_of([&] { open_store(store_url_, access); }),
                  "no store at " + shown_url() +
                      "; record a run first (benchwatch record) or pass --store");
    EXPECT_EQ(stored_schema_version(store_url_), 0);
}

TEST_P(ReadOnlyEveryBackendTest, ResultCountsAreThoseOfTheStoredResults) {
    auto store = open();
    const std::int64_t first = store->record(make_run("c1", "h1")).run_id;
    model::Run bigger = make_run("c2", "h2");
    bigger.results.push_back(testing::time_result("extra", 3.0));
    const std::int64_t second = store->record(bigger).run_id;
    const std::array<std::int64_t, 3> ids = {first, second, second + 100};
    const auto counts = open_store(store_url_, Access::ReadOnly)->result_counts(ids);
    EXPECT_EQ(counts, (std::unordered_map<std::int64_t, std::size_t>{
                          {first, make_run("c1", "h1").results.size()},
                          {second, bigger.results.size()},
                          {second + 100, 0}}));
}

BENCHWATCH_ON_EVERY_BACKEND(ReadOnlyEveryBackendTest);

}  // namespace
}  // namespace benchwatch::store
