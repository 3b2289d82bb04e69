#include "store/sqlite_store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <future>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "store/store_core.hpp"

namespace benchwatch::store {
namespace {

// The most ids or commits bound into one IN (...) list; far below SQLite's variable limit.
constexpr std::size_t kMaxValuesPerQuery = 500;
// The fewest run ids whose results are read as one range of ids when they lie close together:
// below it, finding each run's results costs less than preparing a second kind of query.
constexpr std::size_t kMinRunsReadAsRange = 16;

const std::string_view kWritableHint =
    "check that the directory exists and is writable, or pass --store";

// A failed SQLite call: its (extended) result code and SQLite's message at that moment. Caught
// at the Store boundary and turned into a StoreError naming the store and the operation.
class SqliteFailure : public BackendFailure {
  public:
    SqliteFailure(int code, const std::string& message) : BackendFailure(message), code_(code) {}
    int primary_code() const { return code_ & 0xff; }

  private:
    int code_;
};

// An open database handle; closes it on destruction.
class Connection {
  public:
    // Opens `path` (a file: URI when `flags` has SQLITE_OPEN_URI) with `flags` and
    // SQLITE_OPEN_NOMUTEX.
    Connection(const std::string& path, int flags) {
        const int code = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
        if (code != SQLITE_OK) {
            SqliteFailure failure(code, db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code));
            sqlite3_close_v2(db_);
            throw failure;
        }
        sqlite3_extended_result_codes(db_, 1);
    }
    ~Connection() { sqlite3_close_v2(db_); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    sqlite3* handle() const { return db_; }

    // Runs one or more statements that return no rows.
    void execute(const std::string& sql) {
        const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
        if (code != SQLITE_OK) fail(code);
    }

    [[noreturn]] void fail(int code) const { throw SqliteFailure(code, sqlite3_errmsg(db_)); }

  private:
    sqlite3* db_ = nullptr;
};

// A prepared statement. Parameters are numbered from 1 and columns from 0, as in SQLite; bound
// text is not copied and must outlive the next step().
class Statement {
  public:
    Statement(Connection& connection, std::string_view sql) : connection_(connection) {
        const int code = sqlite3_prepare_v2(connection.handle(), sql.data(),
                                            static_cast<int>(sql.size()), &statement_, nullptr);
        if (code != SQLITE_OK) connection.fail(code);
    }
    ~Statement() { sqlite3_finalize(statement_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind_integer(int index, std::int64_t value) {
        check(sqlite3_bind_int64(statement_, index, value));
    }
    void bind_real(int index, double value) {
        check(sqlite3_bind_double(statement_, index, value));
    }
    void bind_text(int index, std::string_view text) {
        check(sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()),
                                SQLITE_STATIC));
    }
    void bind_null(int index) { check(sqlite3_bind_null(statement_, index)); }
    void bind_optional_real(int index, std::optional<double> value) {
        value ? bind_real(index, *value) : bind_null(index);
    }

    // Advances to the next row; false when there are no more.
    bool step() {
        const int code = sqlite3_step(statement_);
        if (code == SQLITE_ROW) return true;
        if (code == SQLITE_DONE) return false;
        connection_.fail(code);
    }
    // Runs a statement that returns no rows.
    void run() {
        if (step()) connection_.fail(SQLITE_MISUSE);
    }
    // Makes the statement ready to run again with new parameters.
    void reset() {
        sqlite3_reset(statement_);
        sqlite3_clear_bindings(statement_);
    }

    bool is_null(int column) const {
        return sqlite3_column_type(statement_, column) == SQLITE_NULL;
    }
    std::int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }
    double real(int column) const { return sqlite3_column_double(statement_, column); }
    std::string text(int column) const {
        const auto* characters = sqlite3_column_text(statement_, column);
        const int size = sqlite3_column_bytes(statement_, column);
        return {reinterpret_cast<const char*>(characters), static_cast<std::size_t>(size)};
    }
    std::optional<double> optional_real(int column) const {
        if (is_null(column)) return std::nullopt;
        return real(column);
    }

  private:
    void check(int code) const {
        if (code != SQLITE_OK) connection_.fail(code);
    }

    Connection& connection_;
    sqlite3_stmt* statement_ = nullptr;
};

// A transaction that rolls back unless commit() is called. A write transaction takes the write
// lock at once (BEGIN IMMEDIATE), so it never fails half-way for lack of the lock.
class Transaction {
  public:
    enum class Kind { Read, Write };

    Transaction(Connection& connection, Kind kind) : connection_(connection) {
        connection.execute(kind == Kind::Write ? "BEGIN IMMEDIATE" : "BEGIN");
    }
    ~Transaction() {
        if (open_) sqlite3_exec(connection_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit() {
        connection_.execute("COMMIT");
        open_ = false;
    }

  private:
    Connection& connection_;
    bool open_ = true;
};

// The schema version of the store `connection` has open: PRAGMA user_version, 0 for a new file.
int read_user_version(Connection& connection) {
    Statement select(connection, "PRAGMA user_version");
    select.step();
    return static_cast<int>(select.integer(0));
}

// "?3, ?4, ?5" for `count` parameters numbered from `first`.
std::string parameter_list(int first, std::size_t count) {
    std::string list;
    for (std::size_t i = 0; i < count; ++i)
        list += fmt::format("{}?{}", i == 0 ? "" : ", ", first + static_cast<int>(i));
    return list;
}

// Calls `body(batch)` for consecutive slices of `values` of at most kMaxValuesPerQuery each.
template <class T, class Body>
void for_each_batch(const std::vector<T>& values, Body&& body) {
    for (std::size_t start = 0; start < values.size(); start += kMaxValuesPerQuery) {
        const std::size_t size = std::min(kMaxValuesPerQuery, values.size() - start);
        body(std::span<const T>(values.data() + start, size));
    }
}

// "file:/a/b%20c.db?mode=ro": `path` made absolute as a SQLite URI, every byte but letters,
// digits and "/-._~" percent-encoded, followed by `query`.
std::string file_uri(const std::string& path, std::string_view query) {
    std::string uri = "file:";
    for (const char c : std::filesystem::absolute(path).string()) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) || std::string_view("/-._~").find(c) != std::string_view::npos)
            uri += c;
        else
            uri += fmt::format("%{:02X}", byte);
    }
    return uri.append("?").append(query);
}

// Whether this process may write `path` and create files beside it (SQLite's journal and
// shared-memory files).
bool may_write(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return ::access(path.c_str(), W_OK) == 0 &&
           ::access(parent.empty() ? "." : parent.c_str(), W_OK) == 0;
}

// Whether a write-ahead log with content lies beside `path`: writes not yet in the file itself.
bool has_pending_log(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path + "-wal", error);
    return !error && size > 0;
}

template <class T>
std::vector<T> sorted_unique(std::vector<T> values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

class SqliteStore final : public CoreStore {
  public:
    SqliteStore(std::string path, std::chrono::milliseconds busy_timeout, Access access)
        : path_(std::move(path)), busy_timeout_(busy_timeout) {
        if (access == Access::ReadWrite) {
            create_parent_directory();
            open_for_writing(SQLITE_OPEN_CREATE);
            return;
        }
        std::error_code error;
        if (!std::filesystem::exists(path_, error)) throw no_store_error(path_);
        const int version = open_read_only();
        if (version == 0) throw no_store_error(path_);
        const bool writable = may_write(path_);
        if (access == Access::ReadCache && writable) {
            connection_.reset();
            open_for_writing(0);
            return;
        }
        if (version == current_schema_version()) return;
        if (!writable)
            throw StoreError(fmt::format(
                "store {} has schema version {}, older than this benchwatch ({}), and cannot be "
                "migrated here: it is read-only; run benchwatch migrate --store {} as a user who "
                "may write it",
                path_, version, current_schema_version(), path_));
        connection_.reset();
        open_for_writing(0);
        connection_.reset();
        open_read_only();
    }

    void cache_calibration(const CalibrationKey& key, const std::string& value) override {
        const std::string_view operation = "caching a calibration";
        const auto wait = std::min(busy_timeout_, kCacheWriteWait);
        try {
            const ShortBusyTimeout short_wait(*this, wait);
            Transaction transaction(*connection_, Transaction::Kind::Write);
            Statement upsert(
                *connection_,
                "INSERT INTO cached_calibrations (project, machine, settings, history, value, "
                "written) VALUES (?1, ?2, ?3, ?4, ?5, "
                "(SELECT coalesce(max(written), 0) + 1 FROM cached_calibrations)) "
                "ON CONFLICT (project, machine, settings) DO UPDATE SET "
                "history = excluded.history, value = excluded.value, written = excluded.written");
            upsert.bind_text(1, key.project);
            upsert.bind_text(2, key.machine);
            upsert.bind_text(3, key.settings);
            upsert.bind_text(4, key.history);
            upsert.bind_text(5, value);
            upsert.run();
            Statement prune(*connection_,
                            "DELETE FROM cached_calibrations WHERE project = ?1 AND machine = ?2 "
                            "AND written <= (SELECT written FROM cached_calibrations "
                            "WHERE project = ?1 AND machine = ?2 "
                            "ORDER BY written DESC LIMIT 1 OFFSET ?3)");
            prune.bind_text(1, key.project);
            prune.bind_text(2, key.machine);
            prune.bind_integer(3, kCachedCalibrationsPerMachine);
            prune.run();
            transaction.commit();
        } catch (const SqliteFailure& failure) {
            if (failure.primary_code() != SQLITE_BUSY)
                throw StoreError(describe(operation, failure));
            throw StoreError(
                fmt::format("store {}: {}: database is locked by another process for over {:g} s",
                            path_, operation, static_cast<double>(wait.count()) / 1000.0));
        }
    }

  protected:
    const std::string& shown_name() const override { return path_; }

    std::string describe_failure(std::string_view operation,
                                 const BackendFailure& failure) const override {
        // This store calls no other backend, so every BackendFailure it catches is a SqliteFailure.
        return describe(operation, static_cast<const SqliteFailure&>(failure));
    }

    std::vector<RecordOutcome> insert_runs(std::span<const model::Run> runs) override {
        std::vector<RecordOutcome> outcomes;
        retrying_while_busy([&] {
            outcomes.clear();
            Transaction transaction(*connection_, Transaction::Kind::Write);
            for (const model::Run& run : runs) outcomes.push_back(insert_run(run));
            transaction.commit();
        });
        return outcomes;
    }

    ResultValues select_result_values(std::span<const std::int64_t> run_ids,
                                      const std::function<bool(std::int64_t)>& known) override {
        const std::vector<std::int64_t> ids =
            sorted_unique(std::vector<std::int64_t>(run_ids.begin(), run_ids.end()));
        ResultValues read;
        Transaction snapshot(*connection_, Transaction::Kind::Read);
        std::unordered_set<std::int64_t> unknown;
        select_by_runs(
            ids, "SELECT run_id, benchmark_id, value FROM results",
            [&](Statement& select, const auto& wanted) {
                while (select.step()) {
                    if (!wanted(select.integer(0))) continue;
                    const std::int64_t benchmark_id = select.integer(1);
                    read.values.push_back({select.integer(0), benchmark_id, select.real(2)});
                    if (!(known && known(benchmark_id))) unknown.insert(benchmark_id);
                }
            });
        read.benchmarks = benchmarks_by_ids(unknown);
        snapshot.commit();
        return read;
    }

    std::unordered_map<std::int64_t, std::size_t> count_results(
        std::span<const std::int64_t> run_ids) override {
        const std::vector<std::int64_t> ids =
            sorted_unique(std::vector<std::int64_t>(run_ids.begin(), run_ids.end()));
        std::unordered_map<std::int64_t, std::size_t> counts;
        for (const std::int64_t id : ids) counts[id] = 0;
        Transaction snapshot(*connection_, Transaction::Kind::Read);
        for_each_batch(ids, [&](std::span<const std::int64_t> batch) {
            Statement select(*connection_,
                             fmt::format("SELECT run_id, count(*) FROM results WHERE run_id "
                                         "IN ({}) GROUP BY run_id",
                                         parameter_list(1, batch.size())));
            for (std::size_t i = 0; i < batch.size(); ++i)
                select.bind_integer(1 + static_cast<int>(i), batch[i]);
            while (select.step())
                counts[select.integer(0)] = static_cast<std::size_t>(select.integer(1));
        });
        snapshot.commit();
        return counts;
    }

    std::vector<std::string> select_projects() override {
        // Each name found by one search of the index that starts with the project, rather
        // than a walk over every run's entry in it: a long history has few projects.
        Statement select(*connection_,
                         "WITH RECURSIVE found(name) AS (SELECT min(project) FROM runs "
                         "UNION ALL SELECT (SELECT min(project) FROM runs WHERE project > name) "
                         "FROM found WHERE name IS NOT NULL) "
                         "SELECT name FROM found WHERE name IS NOT NULL");
        std::vector<std::string> names;
        while (select.step()) names.push_back(select.text(0));
        return names;
    }

    std::vector<std::string> select_machines(const std::string& project) override {
        // As select_projects(): one search of the index per machine.
        Statement select(
            *connection_,
            "WITH RECURSIVE found(name) AS (SELECT min(machine) FROM runs WHERE project = ?1 "
            "UNION ALL SELECT (SELECT min(machine) FROM runs WHERE project = ?1 AND machine > "
            "name) "
            "FROM found WHERE name IS NOT NULL) "
            "SELECT name FROM found WHERE name IS NOT NULL");
        select.bind_text(1, project);
        std::vector<std::string> names;
        while (select.step()) names.push_back(select.text(0));
        return names;
    }

    std::vector<std::string> select_benchmark_names(const std::string& project) override {
        Statement select(*connection_,
                         "SELECT DISTINCT name FROM benchmarks WHERE project = ?1 ORDER BY name");
        select.bind_text(1, project);
        std::vector<std::string> names;
        while (select.step()) names.push_back(select.text(0));
        return names;
    }

    int read_schema_version() override { return read_user_version(*connection_); }

    std::int64_t select_last_run_id() override {
        Statement select(*connection_, "SELECT coalesce(max(id), 0) FROM runs");
        select.step();
        return select.integer(0);
    }

    std::int64_t count_runs() override {
        Statement select(*connection_, "SELECT count(*) FROM runs");
        select.step();
        return select.integer(0);
    }

    std::optional<std::string> select_cached_calibration(const CalibrationKey& key) override {
        Statement select(*connection_,
                         "SELECT value FROM cached_calibrations WHERE project = ?1 AND "
                         "machine = ?2 AND settings = ?3 AND history = ?4");
        select.bind_text(1, key.project);
        select.bind_text(2, key.machine);
        select.bind_text(3, key.settings);
        select.bind_text(4, key.history);
        if (!select.step()) return std::nullopt;
        return select.text(0);
    }

  private:
    // Opens the file for reading and writing (`create`: SQLITE_OPEN_CREATE or 0), in WAL mode,
    // and migrates it.
    void open_for_writing(int create) {
        guarded("opening", [&] {
            connection_.emplace(path_, SQLITE_OPEN_READWRITE | create);
            sqlite3_busy_timeout(connection_->handle(), static_cast<int>(busy_timeout_.count()));
            retrying_while_busy([&] { configure(); });
        });
        guarded(migrating_operation(), [&] {
            retrying_while_busy([&] {
                Migration target{*connection_};
                migrate(target, kSqliteDialect, path_);
            });
        });
    }

    // Opens the existing file read-only and returns its schema version, refusing a newer one.
    // SQLite reads a WAL-mode file only where it can make the shared-memory file beside it; in
    // a folder it may not write, the file is read as immutable when no log is pending, which
    // is then also true of every other process.
    int open_read_only() {
        const auto open_with = [&](std::string_view query) {
            connection_.emplace(file_uri(path_, query), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
            sqlite3_busy_timeout(connection_->handle(), static_cast<int>(busy_timeout_.count()));
            int version = 0;
            retrying_while_busy([&] { version = read_schema_version(); });
            return version;
        };
        return guarded("opening read-only", [&] {
            int version = 0;
            try {
                version = open_with("mode=ro");
            } catch (const SqliteFailure& failure) {
                const bool cannot_share = failure.primary_code() == SQLITE_READONLY ||
                                          failure.primary_code() == SQLITE_CANTOPEN;
                if (!cannot_share) throw;
                if (has_pending_log(path_))
                    throw StoreError(fmt::format(
                        "store {}: opening read-only: its write-ahead log {}-wal holds writes "
                        "that can be read only where its folder may be written; run benchwatch "
                        "migrate --store {} there once, which moves them into the file",
                        path_, path_, path_));
                version = open_with("mode=ro&immutable=1");
            }
            refuse_newer_schema(path_, version);
            return version;
        });
    }

    // Sets the connection's busy timeout to `wait` while it lives, then back to the store's.
    class ShortBusyTimeout {
      public:
        ShortBusyTimeout(SqliteStore& store, std::chrono::milliseconds wait) : store_(store) {
            sqlite3_busy_timeout(store_.connection_->handle(), static_cast<int>(wait.count()));
        }
        ~ShortBusyTimeout() {
            sqlite3_busy_timeout(store_.connection_->handle(),
                                 static_cast<int>(store_.busy_timeout_.count()));
        }
        ShortBusyTimeout(const ShortBusyTimeout&) = delete;
        ShortBusyTimeout& operator=(const ShortBusyTimeout&) = delete;

      private:
        SqliteStore& store_;
    };

    std::string describe(std::string_view operation, const SqliteFailure& failure) const {
        switch (failure.primary_code()) {
            case SQLITE_CANTOPEN:
            case SQLITE_READONLY:
            case SQLITE_PERM:
                return fmt::format("store {}: {}: {}; {}", path_, operation, failure.what(),
                                   kWritableHint);
            case SQLITE_BUSY:
                return fmt::format(
                    "store {}: {}: database is locked by another process for over "
                    "{:g} s; try again when it has finished",
                    path_, operation, static_cast<double>(busy_timeout_.count()) / 1000.0);
            case SQLITE_NOTADB:
                return fmt::format(
                    "store {}: {}: {}; pass --store with the path of a benchwatch "
                    "store",
                    path_, operation, failure.what());
            default:
                return fmt::format("store {}: {}: {}", path_, operation, failure.what());
        }
    }

    void create_parent_directory() const {
        const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
        if (parent.empty()) return;
        std::error_code error;
        std::filesystem::create_directories(parent, error);
        if (error)
            throw StoreError(fmt::format("store {}: creating directory {}: {}; {}", path_,
                                         parent.string(), error.message(), kWritableHint));
    }

    // Runs `body` again while it fails with SQLITE_BUSY, for up to the busy timeout in all.
    // Switching a new file to WAL can report SQLITE_BUSY at once, without waiting in SQLite's
    // busy handler, while another process is switching it too.
    template <class Body>
    void retrying_while_busy(Body&& body) {
        const auto deadline = std::chrono::steady_clock::now() + busy_timeout_;
        auto pause = std::chrono::milliseconds(1);
        for (;;) {
            try {
                body();
                return;
            } catch (const SqliteFailure& failure) {
                if (failure.primary_code() != SQLITE_BUSY ||
                    std::chrono::steady_clock::now() + pause > deadline)
                    throw;
            }
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::milliseconds(100));
        }
    }

    void configure() {
        // A new store's pages are 16 KiB rather than SQLite's 4 KiB: recording a run of 100,000
        // results then writes and rereads a quarter as many pages, one system call each. A store
        // that holds anything keeps the size it was made with.
        connection_->execute("PRAGMA page_size = 16384");
        // Returns the resulting mode; a file system without WAL support keeps its own mode.
        Statement journal_mode(*connection_, "PRAGMA journal_mode = WAL");
        while (journal_mode.step()) {
        }
        connection_->execute("PRAGMA foreign_keys = ON");
        // In WAL mode NORMAL still never corrupts the store or leaves half a transaction; only a
        // power loss may undo the last commits. It saves an fsync per recorded run.
        connection_->execute("PRAGMA synchronous = NORMAL");
    }

    // The connection as migrate() uses it. BEGIN IMMEDIATE takes the write lock, which is what
    // keeps a second process from migrating at the same time.
    struct Migration {
        Connection& connection;

        int read_schema_version() { return read_user_version(connection); }
        Transaction begin_migration() { return {connection, Transaction::Kind::Write}; }
        void execute(const std::string& sql) { connection.execute(sql); }
        void write_schema_version(int version) {
            connection.execute(fmt::format("PRAGMA user_version = {}", version));
        }
    };

    // Inserts `run` inside the caller's write transaction.
    RecordOutcome insert_run(const model::Run& run) {
        if (run.commit_info) insert_commit_info(run.project, run.commit, *run.commit_info);

        Statement existing(*connection_,
                           "SELECT id, attempt FROM runs WHERE project = ?1 AND machine = ?2 "
                           "AND commit_id = ?3 AND content_hash = ?4");
        existing.bind_text(1, run.project);
        existing.bind_text(2, run.machine);
        existing.bind_text(3, run.commit);
        existing.bind_text(4, run.content_hash);
        if (existing.step())
            return {existing.integer(0), false, static_cast<int>(existing.integer(1))};

        Statement earlier(*connection_,
                          "SELECT count(*) FROM runs WHERE project = ?1 AND machine = ?2 AND "
                          "commit_id = ?3");
        earlier.bind_text(1, run.project);
        earlier.bind_text(2, run.machine);
        earlier.bind_text(3, run.commit);
        earlier.step();
        const int attempt = 1 + static_cast<int>(earlier.integer(0));

        Statement add_run(*connection_,
                          "INSERT INTO runs (project, machine, commit_id, branch, pull_request, "
                          "recorded_at_ms, attempt, format, content_hash) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        add_run.bind_text(1, run.project);
        add_run.bind_text(2, run.machine);
        add_run.bind_text(3, run.commit);
        add_run.bind_text(4, run.branch);
        if (run.pull_request) add_run.bind_integer(5, *run.pull_request);
        add_run.bind_integer(6, run.recorded_at_ms);
        add_run.bind_integer(7, attempt);
        add_run.bind_text(8, run.format);
        add_run.bind_text(9, run.content_hash);
        add_run.run();
        const std::int64_t run_id = sqlite3_last_insert_rowid(connection_->handle());

        Statement add_environment(
            *connection_, "INSERT INTO environment (run_id, key, value) VALUES (?1, ?2, ?3)");
        for (const auto& [key, value] : run.environment) {
            add_environment.reset();
            add_environment.bind_integer(1, run_id);
            add_environment.bind_text(2, key);
            add_environment.bind_text(3, value);
            add_environment.run();
        }

        Statement add_warning(*connection_,
                              "INSERT INTO run_warnings (run_id, position, kind, message) "
                              "VALUES (?1, ?2, ?3, ?4)");
        for (std::size_t position = 0; position < run.warnings.size(); ++position) {
            add_warning.reset();
            add_warning.bind_integer(1, run_id);
            add_warning.bind_integer(2, static_cast<std::int64_t>(position));
            add_warning.bind_text(3, run.warnings[position].kind);
            add_warning.bind_text(4, run.warnings[position].message);
            add_warning.run();
        }

        insert_results(run, run_id);
        return {run_id, true, attempt};
    }

    void insert_commit_info(const std::string& project, const std::string& commit,
                            const model::CommitInfo& info) {
        Statement add_commit(*connection_,
                             "INSERT INTO commits (project, commit_id, message, author, "
                             "timestamp, url) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                             "ON CONFLICT (project, commit_id) DO NOTHING");
        add_commit.bind_text(1, project);
        add_commit.bind_text(2, commit);
        add_commit.bind_text(3, info.message);
        add_commit.bind_text(4, info.author);
        add_commit.bind_text(5, info.timestamp);
        add_commit.bind_text(6, info.url);
        add_commit.run();
    }

    // The ids of the project's known benchmarks, by "name\nmetric\nunit\ndirection": one scan
    // instead of one lookup per result.
    std::unordered_map<std::string, std::int64_t> benchmark_ids(const std::string& project) {
        Statement select(*connection_,
                         "SELECT id, name, metric, unit, direction FROM benchmarks "
                         "WHERE project = ?1");
        select.bind_text(1, project);
        std::unordered_map<std::string, std::int64_t> ids;
        while (select.step())
            ids.emplace(
                benchmark_key(select.text(1), select.text(2), select.text(3), select.text(4)),
                select.integer(0));
        return ids;
    }

    static std::string benchmark_key(std::string_view name, std::string_view metric,
                                     std::string_view unit, std::string_view direction) {
        std::string key;
        benchmark_key(name, metric, unit, direction, key);
        return key;
    }

    // The same, written over `key`.
    static void benchmark_key(std::string_view name, std::string_view metric, std::string_view unit,
                              std::string_view direction, std::string& key) {
        key.clear();
        key.reserve(name.size() + metric.size() + unit.size() + direction.size() + 3);
        key.append(name).append(1, '\n').append(metric).append(1, '\n').append(unit);
        key.append(1, '\n').append(direction);
    }

    // What insert_results() works out for a stretch of a run's results before writing them: each
    // one's benchmark id (0 for a benchmark the store does not know yet) and its sample text.
    struct PreparedResults {
        std::vector<std::int64_t> benchmark_ids;
        std::vector<std::string> sample_values;
    };

    // Results prepared at once: while SQLite writes one stretch, another thread prepares the next
    // (or, where no thread can be started, the writing thread itself, when it needs the stretch).
    static constexpr std::size_t prepared_at_once = 4096;

    static void prepare_results(std::span<const model::Result> results,
                                const std::unordered_map<std::string, std::int64_t>& known_ids,
                                PreparedResults& prepared) {
        prepared.benchmark_ids.resize(results.size());
        prepared.sample_values.resize(results.size());
        std::string key;
        for (std::size_t i = 0; i < results.size(); ++i) {
            const model::Result& result = results[i];
            benchmark_key(result.benchmark, result.metric, result.unit,
                          model::to_string(result.direction), key);
            const auto known = known_ids.find(key);
            prepared.benchmark_ids[i] = known == known_ids.end() ? 0 : known->second;
            if (result.samples && !result.samples->values.empty())
                encode_sample_values(result.samples->values, prepared.sample_values[i]);
            else
                prepared.sample_values[i].clear();
        }
    }

    void insert_results(const model::Run& run, std::int64_t run_id) {
        const auto known_ids = benchmark_ids(run.project);
        Statement add_benchmark(*connection_,
                                "INSERT INTO benchmarks (project, name, metric, unit, direction) "
                                "VALUES (?1, ?2, ?3, ?4, ?5)");
        Statement add_result(*connection_,
                             "INSERT INTO results (run_id, benchmark_id, value, allocations, "
                             "memory, sample_count, sample_median, sample_mean, sample_stddev, "
                             "user_time, system_time, gc_time, sample_values) "
                             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
        const std::span<const model::Result> results(run.results);
        const auto stretch = [&](std::size_t begin) {
            return results.subspan(begin, std::min(prepared_at_once, results.size() - begin));
        };
        std::array<PreparedResults, 2> prepared;
        const auto start_preparing = [&](std::size_t begin, PreparedResults& into) {
            return std::async(std::launch::async | std::launch::deferred, prepare_results,
                              stretch(begin), std::cref(known_ids), std::ref(into));
        };
        std::future<void> next;
        if (!results.empty()) next = start_preparing(0, prepared[0]);
        for (std::size_t begin = 0, turn = 0; begin < results.size();
             begin += prepared_at_once, ++turn) {
            next.get();
            const PreparedResults& current = prepared[turn % 2];
            if (begin + prepared_at_once < results.size())
                next = start_preparing(begin + prepared_at_once, prepared[(turn + 1) % 2]);
            const auto part = stretch(begin);
            for (std::size_t i = 0; i < part.size(); ++i) {
                const model::Result& result = part[i];
                // Each benchmark appears once in a run (check_storable), so one the store did
                // not know is added once.
                std::int64_t benchmark_id = current.benchmark_ids[i];
                if (benchmark_id == 0) {
                    add_benchmark.reset();
                    add_benchmark.bind_text(1, run.project);
                    add_benchmark.bind_text(2, result.benchmark);
                    add_benchmark.bind_text(3, result.metric);
                    add_benchmark.bind_text(4, result.unit);
                    add_benchmark.bind_text(5, model::to_string(result.direction));
                    add_benchmark.run();
                    benchmark_id = sqlite3_last_insert_rowid(connection_->handle());
                }
                add_result.reset();
                add_result.bind_integer(1, run_id);
                add_result.bind_integer(2, benchmark_id);
                add_result.bind_real(3, result.value);
                add_result.bind_optional_real(4, result.allocations);
                add_result.bind_optional_real(5, result.memory);
                add_result.bind_optional_real(10, result.user_time);
                add_result.bind_optional_real(11, result.system_time);
                add_result.bind_optional_real(12, result.gc_time);
                if (result.samples) {
                    add_result.bind_integer(6, result.samples->count);
                    add_result.bind_real(7, result.samples->median);
                    add_result.bind_real(8, result.samples->mean);
                    add_result.bind_real(9, result.samples->stddev);
                    if (!result.samples->values.empty())
                        add_result.bind_text(13, current.sample_values[i]);
                }
                add_result.run();
            }
        }
    }

    std::vector<model::Run> select_runs(const RunFilter& filter) override {
        std::string conditions;
        int next_parameter = 1;
        std::vector<std::pair<int, const std::string*>> field_parameters;
        for (const auto& [column, value] :
             {std::pair{"project", &filter.project}, std::pair{"machine", &filter.machine},
              std::pair{"branch", &filter.branch}}) {
            if (value->empty()) continue;
            conditions += fmt::format(" AND r.{} = ?{}", column, next_parameter);
            field_parameters.emplace_back(next_parameter++, value);
        }
        if (filter.after_id > 0) conditions += fmt::format(" AND r.id > {}", filter.after_id);
        const std::vector<std::string> commits = sorted_unique(filter.commits);

        // Runs `select_from` (which names the runs table `r`) restricted to the filter, one query
        // per batch of commits, handing each prepared statement to `read`.
        const auto query_matching = [&](const std::string& select_from, std::string_view order_by,
                                        const auto& read) {
            const auto sql = [&](std::string_view commit_condition) {
                return fmt::format("{} WHERE 1{}{}{}", select_from, conditions, commit_condition,
                                   order_by);
            };
            const auto bind_fields = [&](Statement& select) {
                for (const auto& [index, value] : field_parameters) select.bind_text(index, *value);
            };
            if (commits.empty()) {
                Statement select(*connection_, sql(""));
                bind_fields(select);
                read(select);
                return;
            }
            for_each_batch(commits, [&](std::span<const std::string> batch) {
                Statement select(*connection_,
                                 sql(fmt::format(" AND r.commit_id IN ({})",
                                                 parameter_list(next_parameter, batch.size()))));
                bind_fields(select);
                for (std::size_t i = 0; i < batch.size(); ++i)
                    select.bind_text(next_parameter + static_cast<int>(i), batch[i]);
                read(select);
            });
        };

        std::vector<model::Run> runs;
        std::unordered_map<std::int64_t, std::size_t> position_of_run;
        Transaction snapshot(*connection_, Transaction::Kind::Read);
        if (filter.outline) {
            // A run's other columns, its commit's message and its whole environment were most
            // of the time of listing a long history that needs none of them.
            const std::string outline = fmt::format(
                "SELECT r.id, r.project, r.machine, r.commit_id, r.branch, r.pull_request, "
                "r.recorded_at_ms, r.attempt, c.timestamp, d.value FROM runs AS r "
                "LEFT JOIN commits AS c ON c.project = r.project AND c.commit_id = r.commit_id "
                "LEFT JOIN environment AS d ON d.run_id = r.id AND d.key = '{}'",
                model::dirty_key);
            query_matching(outline, "", [&](Statement& select) {
                while (select.step()) {
                    model::Run& run = runs.emplace_back();
                    run.id = select.integer(0);
                    run.project = select.text(1);
                    run.machine = select.text(2);
                    run.commit = select.text(3);
                    run.branch = select.text(4);
                    if (!select.is_null(5)) run.pull_request = select.integer(5);
                    run.recorded_at_ms = select.integer(6);
                    run.attempt = static_cast<int>(select.integer(7));
                    if (!select.is_null(8))
                        run.commit_info = model::CommitInfo{{}, {}, select.text(8), {}};
                    if (!select.is_null(9))
                        run.environment.emplace(model::dirty_key, select.text(9));
                }
            });
            snapshot.commit();
            const auto by_id = [](const model::Run& a, const model::Run& b) { return a.id < b.id; };
            if (!std::is_sorted(runs.begin(), runs.end(), by_id))
                std::sort(runs.begin(), runs.end(), by_id);
            return runs;
        }
        // One row per run and environment entry, the entry's key and value after the run's. No
        // ORDER BY: the runs come in the order of the index that finds them, and sorting every
        // row by run id was most of the time of listing a long history; they are put in order
        // here.
        constexpr int key = kRunColumnCount, value = kRunColumnCount + 1;
        const std::string runs_with_environment = fmt::format(
            "SELECT {}, e.key, e.value FROM {} LEFT JOIN environment AS e ON e.run_id = r.id",
            kRunColumns, kRunsWithCommits);
        query_matching(runs_with_environment, "", [&](Statement& select) {
            while (select.step()) {
                const std::int64_t id = select.integer(0);
                auto [position, added] = position_of_run.try_emplace(id, runs.size());
                if (added) runs.push_back(read_run(select));
                if (!select.is_null(key))
                    runs[position->second].environment.emplace(select.text(key),
                                                               select.text(value));
            }
        });
        const auto by_id = [](const model::Run& a, const model::Run& b) { return a.id < b.id; };
        if (!std::is_sorted(runs.begin(), runs.end(), by_id)) {
            std::sort(runs.begin(), runs.end(), by_id);
            for (std::size_t i = 0; i < runs.size(); ++i) position_of_run[runs[i].id] = i;
        }
        query_matching(
            "SELECT w.run_id, w.kind, w.message FROM run_warnings AS w "
            "JOIN runs AS r ON r.id = w.run_id",
            " ORDER BY w.run_id, w.position", [&](Statement& select) {
                while (select.step())
                    runs[position_of_run.at(select.integer(0))].warnings.push_back(
                        {select.text(1), select.text(2)});
            });
        snapshot.commit();
        return runs;
    }

    // Reads results without a join: the distinct benchmarks are read first, together, and
    // copied into every result, which is what makes loading many runs fast.
    std::unordered_map<std::int64_t, std::vector<model::Result>> select_results(
        std::span<const std::int64_t> run_ids) override {
        const std::vector<std::int64_t> ids =
            sorted_unique(std::vector<std::int64_t>(run_ids.begin(), run_ids.end()));
        std::unordered_map<std::int64_t, std::vector<model::Result>> results_by_run;
        for (const std::int64_t id : ids) results_by_run[id];

        Transaction snapshot(*connection_, Transaction::Kind::Read);
        std::unordered_set<std::int64_t> benchmark_ids;
        select_by_runs(ids, "SELECT run_id, benchmark_id FROM results",
                       [&](Statement& select, const auto& wanted) {
                           while (select.step())
                               if (wanted(select.integer(0)))
                                   benchmark_ids.insert(select.integer(1));
                       });
        const auto benchmarks = benchmarks_by_ids(benchmark_ids);
        const auto benchmark = [&](std::int64_t benchmark_id) -> const model::Result& {
            const auto found = benchmarks.find(benchmark_id);
            if (found == benchmarks.end())
                throw SqliteFailure(SQLITE_CORRUPT,
                                    fmt::format("benchmark {} is missing", benchmark_id));
            return found->second;
        };

        std::size_t previous_run_size = 0;
        select_by_runs(ids, fmt::format("SELECT {} FROM results", kResultColumns),
                       [&](Statement& select, const auto& wanted) {
                           std::vector<model::Result>* run_results = nullptr;
                           std::int64_t run_id = 0;
                           while (select.step()) {
                               if (!wanted(select.integer(0))) continue;
                               if (!run_results || select.integer(0) != run_id) {
                                   if (run_results) previous_run_size = run_results->size();
                                   run_id = select.integer(0);
                                   run_results = &results_by_run.at(run_id);
                                   run_results->reserve(previous_run_size);
                               }
                               read_result_values(
                                   select, run_results->emplace_back(benchmark(select.integer(1))));
                           }
                       });
        snapshot.commit();

        sort_results(results_by_run);
        return results_by_run;
    }

    // Calls `read(select, wanted)` with `select_from` (a SELECT of `results` with run_id as its
    // first column) restricted to sorted `run_ids`; the rows of a run `wanted(run_id)` rejects
    // are to be skipped. Ids that lie close together (a history's runs) are read as one range,
    // scanned in key order, rather than found one by one from an IN (...) list; the rest go in
    // batches bound as ?1…?count, every full batch prepared once.
    template <class Read>
    void select_by_runs(const std::vector<std::int64_t>& run_ids, std::string_view select_from,
                        Read&& read) {
        const auto any = [](std::int64_t) { return true; };
        if (run_ids.size() >= kMinRunsReadAsRange &&
            run_ids.back() - run_ids.front() < 2 * static_cast<std::int64_t>(run_ids.size())) {
            Statement select(*connection_,
                             fmt::format("{} WHERE run_id BETWEEN ?1 AND ?2", select_from));
            select.bind_integer(1, run_ids.front());
            select.bind_integer(2, run_ids.back());
            read(select, [&](std::int64_t id) {
                return std::binary_search(run_ids.begin(), run_ids.end(), id);
            });
            return;
        }
        std::optional<Statement> full_batch;
        for_each_batch(run_ids, [&](std::span<const std::int64_t> batch) {
            const auto sql = [&] {
                return fmt::format("{} WHERE run_id IN ({})", select_from,
                                   parameter_list(1, batch.size()));
            };
            std::optional<Statement> last_batch;
            if (batch.size() < kMaxValuesPerQuery)
                last_batch.emplace(*connection_, sql());
            else if (full_batch)
                full_batch->reset();
            else
                full_batch.emplace(*connection_, sql());
            Statement& select = last_batch ? *last_batch : *full_batch;
            for (std::size_t i = 0; i < batch.size(); ++i)
                select.bind_integer(1 + static_cast<int>(i), batch[i]);
            read(select, any);
        });
    }

    // The benchmarks of `distinct` by id; the store is corrupt when one is missing. The runs of a
    // history repeat the same benchmarks, so their readers collect each id once as they go:
    // sorting every repeat away cost more than reading the rows. Ids that lie close together (a
    // suite recorded together) are read as one range rather than looked up one by one, each
    // lookup a statement's reset, bind and step.
    std::unordered_map<std::int64_t, model::Result> benchmarks_by_ids(
        const std::unordered_set<std::int64_t>& distinct) {
        std::vector<std::int64_t> ids(distinct.begin(), distinct.end());
        std::sort(ids.begin(), ids.end());
        std::unordered_map<std::int64_t, model::Result> benchmarks;
        benchmarks.reserve(ids.size());
        if (ids.size() >= kMinRunsReadAsRange &&
            ids.back() - ids.front() < 2 * static_cast<std::int64_t>(ids.size())) {
            Statement select(*connection_,
                             fmt::format("SELECT {} FROM benchmarks WHERE id BETWEEN ?1 AND ?2",
                                         kBenchmarkColumns));
            select.bind_integer(1, ids.front());
            select.bind_integer(2, ids.back());
            while (select.step())
                if (std::binary_search(ids.begin(), ids.end(), select.integer(0)))
                    benchmarks.emplace(select.integer(0), read_benchmark(select));
            for (const std::int64_t id : ids)
                if (!benchmarks.contains(id))
                    throw SqliteFailure(SQLITE_CORRUPT, fmt::format("benchmark {} is missing", id));
            return benchmarks;
        }
        Statement find(*connection_,
                       fmt::format("SELECT {} FROM benchmarks WHERE id = ?1", kBenchmarkColumns));
        for (const std::int64_t id : ids) benchmarks.emplace(id, benchmark_by_id(find, id));
        return benchmarks;
    }

    // The benchmark `id` names, through `find` (kBenchmarkColumns of the benchmark ?1); the store
    // is corrupt when there is none.
    static model::Result benchmark_by_id(Statement& find, std::int64_t id) {
        find.reset();
        find.bind_integer(1, id);
        if (!find.step())
            throw SqliteFailure(SQLITE_CORRUPT, fmt::format("benchmark {} is missing", id));
        return read_benchmark(find);
    }

    std::string path_;
    std::chrono::milliseconds busy_timeout_;
    std::optional<Connection> connection_;
};

}  // namespace

std::unique_ptr<Store> open_sqlite_store(const std::string& path,
                                         std::chrono::milliseconds busy_timeout, Access access) {
    return std::make_unique<SqliteStore>(path, busy_timeout, access);
}

int stored_sqlite_schema_version(const std::string& path) {
    if (!std::filesystem::exists(path)) return 0;
    try {
        Connection connection(path, SQLITE_OPEN_READONLY);
        return read_user_version(connection);
    } catch (const SqliteFailure& failure) {
        throw StoreError(
            fmt::format("store {}: reading the schema version: {}", path, failure.what()));
    }
}

}  // namespace benchwatch::store
