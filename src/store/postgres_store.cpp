#include "store/postgres_store.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/utf8.hpp"
#include "store/libpq_loader.hpp"
#include "store/store_core.hpp"
#include "store/store_url.hpp"

namespace benchwatch::store {
namespace {

// The advisory lock held by the transaction that migrates; its value spells "benchwat".
constexpr std::int64_t kMigrationLock = 0x62656e6368776174;

// How often a transaction that lost a deadlock or serialization race is tried again.
constexpr int kAttemptsPerTransaction = 5;

// Results sent per pair of statements. A run's results go as arrays of text, held three times
// over while a statement is sent (built, as parameters, in libpq's message): about 8 MB for
// 10,000 results, where a run of 200,000 sent whole took over 150 MB.
constexpr std::size_t kResultsPerStatement = 10'000;

// SQLSTATEs this file reacts to; "08…" is the connection class.
constexpr std::string_view kInsufficientPrivilege = "42501";
constexpr std::string_view kSerializationFailure = "40001";
constexpr std::string_view kDeadlockDetected = "40P01";
constexpr std::string_view kInvalidSchemaName = "3F000";
constexpr std::string_view kDataCorrupted = "XX001";
constexpr std::string_view kConnectionFailure = "08006";

// A failed libpq call: the SQLSTATE (empty when libpq gave none) and the server's or libpq's
// message on one line. Caught at the Store boundary and turned into a StoreError.
class PgFailure : public BackendFailure {
  public:
    PgFailure(std::string_view sqlstate, const std::string& message)
        : BackendFailure(message), sqlstate_(sqlstate) {}
    const std::string& sqlstate() const { return sqlstate_; }

  private:
    std::string sqlstate_;
};

// `message` with every run of whitespace (libpq's "\n\t" and the server's "FATAL:  ") turned
// into one space, and no trailing space.
std::string one_line(std::string_view message) {
    std::string line;
    bool pending_space = false;
    for (const char c : message) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            pending_space = !line.empty();
            continue;
        }
        if (pending_space) line += ' ';
        pending_space = false;
        line += c;
    }
    return line;
}

// A parameter in PostgreSQL's text form; nullopt is NULL.
using Parameter = std::optional<std::string>;

bool is_valid_utf8(std::string_view text) {
    return model::first_invalid_utf8(text) == text.size();
}

// `text` with each byte outside valid UTF-8 replaced by U+FFFD. PostgreSQL refuses such text
// where SQLite keeps the bytes, and git accepts any bytes in a commit message (i18n.commitEncoding
// Latin-1, say): the run is stored with the text as the dashboard shows it (its API replaces the
// same bytes) instead of failing to record.
std::string with_valid_utf8(std::string_view text) {
    std::string valid;
    valid.reserve(text.size());
    while (!text.empty()) {
        const std::size_t length = model::utf8_sequence_length(text);
        valid += length == 0 ? std::string_view("\xEF\xBF\xBD") : text.substr(0, length);
        text.remove_prefix(length == 0 ? 1 : length);
    }
    return valid;
}

std::string text_of(std::int64_t value) {
    return std::to_string(value);
}

// The shortest text that reads back as exactly `value`, in the spelling PostgreSQL accepts.
std::string text_of(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    return fmt::format("{}", value);
}

// PostgreSQL's text form of a one-dimensional array, each element quoted: {"a","b\"c",NULL}.
class ArrayLiteral {
  public:
    void add(std::string_view element) {
        open_element();
        text_ += '"';
        for (const char c : element) {
            if (c == '"' || c == '\\') text_ += '\\';
            text_ += c;
        }
        text_ += '"';
    }
    void add(double element) { add(std::string_view(text_of(element))); }
    void add(std::int64_t element) { add(std::string_view(text_of(element))); }
    template <class T>
    void add(const std::optional<T>& element) {
        if (element) {
            add(*element);
        } else {
            open_element();
            text_ += "NULL";
        }
    }
    std::string text() const { return text_ + '}'; }

  private:
    void open_element() { text_ += text_.size() == 1 ? "" : ","; }
    std::string text_ = "{";
};

// The rows a statement returned; cleared on destruction. Rows and columns count from 0.
class Rows {
  public:
    explicit Rows(PGresult* result) : result_(result, &PQclear) {}

    int size() const { return PQntuples(result_.get()); }
    // The number of rows an INSERT, UPDATE or DELETE changed.
    std::int64_t changed() const { return parse_integer(PQcmdTuples(result_.get())); }
    bool is_null(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
    std::string text(int row, int column) const {
        return {PQgetvalue(result_.get(), row, column),
                static_cast<std::size_t>(PQgetlength(result_.get(), row, column))};
    }
    std::int64_t integer(int row, int column) const {
        return parse_integer(PQgetvalue(result_.get(), row, column));
    }
    double real(int row, int column) const {
        const std::string_view text = PQgetvalue(result_.get(), row, column);
        if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
        if (text == "Infinity") return std::numeric_limits<double>::infinity();
        if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size())
            throw PgFailure(kDataCorrupted, fmt::format("\"{}\" is not a number", text));
        return value;
    }
    std::optional<double> optional_real(int row, int column) const {
        if (is_null(row, column)) return std::nullopt;
        return real(row, column);
    }

    // One row, read by column as a SQLite statement is, for the shared readers (store_core.hpp).
    class Row {
      public:
        Row(const Rows& rows, int row) : rows_(rows), row_(row) {}
        bool is_null(int column) const { return rows_.is_null(row_, column); }
        std::string text(int column) const { return rows_.text(row_, column); }
        std::int64_t integer(int column) const { return rows_.integer(row_, column); }
        double real(int column) const { return rows_.real(row_, column); }
        std::optional<double> optional_real(int column) const {
            return rows_.optional_real(row_, column);
        }

      private:
        const Rows& rows_;
        int row_;
    };
    Row row(int row) const { return {*this, row}; }
    bool succeeded() const {
        const ExecStatusType status = PQresultStatus(result_.get());
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    }
    // A field of the error (PG_DIAG_SQLSTATE…), nullptr when there is none.
    const char* error_field(int field) const {
        return result_ ? PQresultErrorField(result_.get(), field) : nullptr;
    }

  private:
    static std::int64_t parse_integer(std::string_view text) {
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size())
            throw PgFailure(kDataCorrupted, fmt::format("\"{}\" is not an integer", text));
        return value;
    }

    std::unique_ptr<PGresult, decltype(&PQclear)> result_;
};

// One connection to the server; closed on destruction.
class Connection {
    // libpq's connection to `url`, libpq being opened first (libpq_loader.hpp).
    static PGconn* connect(const std::string& url) {
        if (auto problem = libpq_problem()) throw PgFailure(kConnectionFailure, *problem);
        return PQconnectdb(url.c_str());
    }

  public:
    explicit Connection(const std::string& url) : connection_(connect(url), &PQfinish) {
        if (!connection_) throw PgFailure(kConnectionFailure, "out of memory");
        if (PQstatus(connection_.get()) != CONNECTION_OK) {
            // The first line says what failed; the next ones are libpq's hints, which the
            // StoreError replaces with its own fix.
            const std::string_view message = PQerrorMessage(connection_.get());
            throw PgFailure(kConnectionFailure, one_line(message.substr(0, message.find('\n'))));
        }
        // Notices ("relation already exists, skipping") are not the user's business.
        PQsetNoticeProcessor(
            connection_.get(), [](void*, const char*) {}, nullptr);
        // Since PostgreSQL 12 any positive value makes doubles come back exactly, shortest form.
        execute("SET extra_float_digits = 3");
    }

    // Runs one statement with parameters $1, $2… in text form and returns its rows.
    Rows query(std::string_view sql, std::initializer_list<Parameter> parameters = {}) {
        return query(sql, std::span<const Parameter>(parameters.begin(), parameters.size()));
    }
    Rows query(std::string_view sql, std::span<const Parameter> parameters) {
        std::vector<const char*> values;
        values.reserve(parameters.size());
        // Reserved in full, so that no reallocation moves a string whose c_str() is in values.
        std::vector<std::string> repaired;
        repaired.reserve(parameters.size());
        for (const Parameter& parameter : parameters) {
            if (!parameter)
                values.push_back(nullptr);
            else if (is_valid_utf8(*parameter))
                values.push_back(parameter->c_str());
            else
                values.push_back(repaired.emplace_back(with_valid_utf8(*parameter)).c_str());
        }
        Rows rows(PQexecParams(connection_.get(), std::string(sql).c_str(),
                               static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                               nullptr, 0));
        check(rows);
        return rows;
    }

    // Runs one or more statements without parameters.
    void execute(const std::string& sql) { check(Rows(PQexec(connection_.get(), sql.c_str()))); }

  private:
    void check(const Rows& rows) const {
        if (rows.succeeded()) return;
        const char* sqlstate = rows.error_field(PG_DIAG_SQLSTATE);
        const char* primary = rows.error_field(PG_DIAG_MESSAGE_PRIMARY);
        if (PQstatus(connection_.get()) == CONNECTION_BAD || !sqlstate)
            throw PgFailure(
                kConnectionFailure,
                fmt::format("connection lost: {}", one_line(PQerrorMessage(connection_.get()))));
        throw PgFailure(sqlstate, one_line(primary ? primary : PQerrorMessage(connection_.get())));
    }

    std::unique_ptr<PGconn, decltype(&PQfinish)> connection_;
};

// A transaction that rolls back unless commit() is called.
class Transaction {
  public:
    Transaction(Connection& connection, std::string_view begin) : connection_(connection) {
        connection.execute(std::string(begin));
    }
    ~Transaction() {
        if (!open_) return;
        try {
            connection_.execute("ROLLBACK");
        } catch (const PgFailure&) {
            // The connection is gone; the server rolls back by itself.
        }
    }
    // Movable, so that a function may begin one and hand it back.
    Transaction(Transaction&& other) noexcept
        : connection_(other.connection_), open_(std::exchange(other.open_, false)) {}
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit() {
        open_ = false;
        connection_.execute("COMMIT");
    }

  private:
    Connection& connection_;
    bool open_ = true;
};

// The stored schema version: 0 when the search path has no schema_version table.
int read_stored_version(Connection& connection) {
    if (connection.query("SELECT to_regclass('schema_version') IS NULL").text(0, 0) == "t")
        return 0;
    return static_cast<int>(
        connection.query("SELECT coalesce(max(version), 0) FROM schema_version").integer(0, 0));
}

// The fix to suggest for a failed connection, from libpq's message; empty when there is none.
std::string connection_fix(const std::string& message) {
    const auto contains = [&](std::string_view part) {
        return message.find(part) != std::string::npos;
    };
    if (contains("password authentication failed") || contains("no password supplied") ||
        contains("authentication failed"))
        return "check the user and password in the URL, PGPASSWORD or ~/.pgpass";
    constexpr std::string_view database_prefix = "database \"";
    const std::size_t database = message.find(database_prefix);
    if (database != std::string::npos && contains("\" does not exist")) {
        const std::size_t name_start = database + database_prefix.size();
        const std::size_t name_end = message.find('"', name_start);
        return fmt::format("create it with createdb {}",
                           message.substr(name_start, name_end - name_start));
    }
    if (contains("role \"") && contains("\" does not exist"))
        return "put an existing user in the URL or PGUSER, or create it with createuser";
    if (contains("Connection refused") || contains("No such file or directory") ||
        contains("could not translate host name") || contains("timeout expired") ||
        contains("No route to host") || contains("connection lost"))
        return "check that the server is running and that the URL's host and port are right";
    return "";
}

class PostgresStore final : public CoreStore {
  public:
    // Connects; migrates unless `migrating` is false. With an access other than ReadWrite, a
    // search path without benchwatch tables is refused rather than given them.
    PostgresStore(std::string url, bool migrating, Access access = Access::ReadWrite)
        : url_(std::move(url)), shown_url_(without_credentials(url_)) {
        guarded("connecting", [&] { connection_.emplace(url_); });
        if (access != Access::ReadWrite &&
            guarded("reading the schema version", [&] { return read_schema_version(); }) == 0)
            throw no_store_error(shown_url_);
        if (migrating)
            guarded(migrating_operation(), [&] {
                Migration target{*connection_};
                migrate(target, kPostgresDialect, shown_url_);
            });
    }

    void cache_calibration(const CalibrationKey& key, const std::string& value) override {
        guarded("caching a calibration", [&] {
            retrying("BEGIN", [&] {
                connection_->execute(
                    fmt::format("SET LOCAL lock_timeout = {}", kCacheWriteWait.count()));
                connection_->query(
                    "INSERT INTO cached_calibrations (project, machine, settings, history, "
                    "value, written) VALUES ($1, $2, $3, $4, $5, "
                    "(SELECT coalesce(max(written), 0) + 1 FROM cached_calibrations)) "
                    "ON CONFLICT (project, machine, settings) DO UPDATE SET "
                    "history = excluded.history, value = excluded.value, "
                    "written = excluded.written",
                    {key.project, key.machine, key.settings, key.history, value});
                connection_->query(
                    "DELETE FROM cached_calibrations WHERE project = $1 AND machine = $2 "
                    "AND written <= (SELECT written FROM cached_calibrations "
                    "WHERE project = $1 AND machine = $2 "
                    "ORDER BY written DESC LIMIT 1 OFFSET $3)",
                    {key.project, key.machine,
                     text_of(std::int64_t{kCachedCalibrationsPerMachine})});
                return 0;
            });
        });
    }

  protected:
    const std::string& shown_name() const override { return shown_url_; }

    std::string describe_failure(std::string_view operation,
                                 const BackendFailure& failure) const override {
        // This store calls no other backend, so every BackendFailure it catches is a PgFailure.
        return describe(operation, static_cast<const PgFailure&>(failure));
    }

    std::vector<RecordOutcome> insert_runs(std::span<const model::Run> runs) override {
        return retrying("BEGIN", [&] {
            lock_commits(runs);
            std::vector<RecordOutcome> outcomes;
            for (const model::Run& run : runs) outcomes.push_back(insert_run(run));
            return outcomes;
        });
    }

    std::unordered_map<std::int64_t, std::size_t> count_results(
        std::span<const std::int64_t> run_ids) override {
        std::unordered_map<std::int64_t, std::size_t> counts;
        ArrayLiteral ids;
        for (const std::int64_t id : run_ids) {
            counts[id] = 0;
            ids.add(id);
        }
        if (run_ids.empty()) return counts;
        const Rows rows = connection_->query(
            "SELECT run_id, count(*) FROM results WHERE run_id = ANY($1::bigint[]) "
            "GROUP BY run_id",
            {ids.text()});
        for (int row = 0; row < rows.size(); ++row)
            counts[rows.integer(row, 0)] = static_cast<std::size_t>(rows.integer(row, 1));
        return counts;
    }

    std::vector<std::string> select_projects() override {
        // COLLATE "C": sorted bytewise, as the SQLite store does, whatever the database's locale.
        const Rows rows = connection_->query(
            "SELECT DISTINCT project COLLATE \"C\" AS name FROM runs ORDER BY name");
        std::vector<std::string> names;
        for (int row = 0; row < rows.size(); ++row) names.push_back(rows.text(row, 0));
        return names;
    }

    std::vector<std::string> select_machines(const std::string& project) override {
        const Rows rows = connection_->query(
            "SELECT DISTINCT machine COLLATE \"C\" AS name FROM runs WHERE project = $1 "
            "ORDER BY name",
            {project});
        std::vector<std::string> names;
        for (int row = 0; row < rows.size(); ++row) names.push_back(rows.text(row, 0));
        return names;
    }

    std::vector<std::string> select_benchmark_names(const std::string& project) override {
        const Rows rows = connection_->query(
            "SELECT DISTINCT name COLLATE \"C\" AS name FROM benchmarks WHERE project = $1 "
            "ORDER BY name",
            {project});
        std::vector<std::string> names;
        for (int row = 0; row < rows.size(); ++row) names.push_back(rows.text(row, 0));
        return names;
    }

    int read_schema_version() override { return read_stored_version(*connection_); }

    std::int64_t select_last_run_id() override {
        return connection_->query("SELECT coalesce(max(id), 0) FROM runs").integer(0, 0);
    }

    std::int64_t count_runs() override {
        return connection_->query("SELECT count(*) FROM runs").integer(0, 0);
    }

    std::optional<std::string> select_cached_calibration(const CalibrationKey& key) override {
        const Rows rows = connection_->query(
            "SELECT value FROM cached_calibrations WHERE project = $1 AND machine = $2 AND "
            "settings = $3 AND history = $4",
            {key.project, key.machine, key.settings, key.history});
        if (rows.size() == 0) return std::nullopt;
        return rows.text(0, 0);
    }

  private:
    std::string describe(std::string_view operation, const PgFailure& failure) const {
        std::string fix;
        if (failure.sqlstate().starts_with("08"))
            fix = connection_fix(failure.what());
        else if (failure.sqlstate() == kInsufficientPrivilege)
            fix = operation.starts_with("migrating")
                      ? "run benchwatch migrate as the schema's owner, or grant this user CREATE "
                        "on the schema"
                      : "grant this user the privilege on the store's tables";
        else if (failure.sqlstate() == kInvalidSchemaName)
            fix = "create the schema in the URL's search_path first (CREATE SCHEMA)";
        return fmt::format("store {}: {}: {}{}{}", shown_url_, operation, failure.what(),
                           fix.empty() ? "" : "; ", fix);
    }

    // Runs `body` in a transaction begun with `begin`, again when it loses a deadlock or a
    // serialization race (only possible between runs of one project recording new benchmarks
    // in different orders, or at isolation levels above READ COMMITTED).
    template <class Body>
    auto retrying(std::string_view begin, Body&& body) -> decltype(body()) {
        for (int attempt = 1;; ++attempt) {
            try {
                Transaction transaction(*connection_, begin);
                auto outcome = body();
                transaction.commit();
                return outcome;
            } catch (const PgFailure& failure) {
                const bool lost_race = failure.sqlstate() == kSerializationFailure ||
                                       failure.sqlstate() == kDeadlockDetected;
                if (!lost_race || attempt == kAttemptsPerTransaction) throw;
            }
        }
    }

    // Serialises the recording of runs of one project, machine and commit until the transaction
    // ends. The attempt number is 1 + the runs already stored for them, so two transactions
    // counting at once would both pick the same number; with this lock the second one counts
    // after the first has committed (READ COMMITTED takes a new snapshot per statement). It
    // blocks nothing else: runs of other commits proceed in parallel, and readers never wait.
    // SERIALIZABLE would also be correct but makes every racing recorder retry, and its
    // predicate locks on the runs index abort unrelated commits too. Keys are taken in sorted
    // order so that two record_all() calls cannot deadlock.
    void lock_commits(std::span<const model::Run> runs) {
        std::vector<std::string> keys;
        for (const model::Run& run : runs)
            keys.push_back(fmt::format("{}\n{}\n{}", run.project, run.machine, run.commit));
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (const std::string& key : keys)
            connection_->query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", {key});
    }

    // Inserts `run` inside the caller's transaction, holding its commit's lock.
    RecordOutcome insert_run(const model::Run& run) {
        if (run.commit_info)
            connection_->query(
                "INSERT INTO commits (project, commit_id, message, author, timestamp, url) "
                "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (project, commit_id) DO NOTHING",
                {run.project, run.commit, run.commit_info->message, run.commit_info->author,
                 run.commit_info->timestamp, run.commit_info->url});

        if (auto existing = find_run(run)) return *existing;
        const Rows earlier = connection_->query(
            "SELECT count(*) FROM runs WHERE project = $1 AND machine = $2 AND commit_id = $3",
            {run.project, run.machine, run.commit});
        const int attempt = 1 + static_cast<int>(earlier.integer(0, 0));

        // The unique constraint is the last line of defence: should another transaction have
        // stored the same content despite the lock, this one keeps that run.
        const Rows added = connection_->query(
            "INSERT INTO runs (project, machine, commit_id, branch, pull_request, recorded_at_ms, "
            "attempt, format, content_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
            "ON CONFLICT (project, machine, commit_id, content_hash) DO NOTHING RETURNING id",
            {run.project, run.machine, run.commit, run.branch,
             run.pull_request ? Parameter(text_of(*run.pull_request)) : std::nullopt,
             text_of(run.recorded_at_ms), text_of(std::int64_t{attempt}), run.format,
             run.content_hash});
        if (added.size() == 0) return find_run(run).value();
        const std::int64_t run_id = added.integer(0, 0);
        const std::string id_text = text_of(run_id);

        if (!run.environment.empty()) {
            ArrayLiteral keys, values;
            for (const auto& [key, value] : run.environment) {
                keys.add(key);
                values.add(value);
            }
            connection_->query(
                "INSERT INTO environment (run_id, key, value) "
                "SELECT $1, key, value FROM unnest($2::text[], $3::text[]) AS e(key, value)",
                {id_text, keys.text(), values.text()});
        }
        if (!run.warnings.empty()) {
            ArrayLiteral kinds, messages;
            for (const model::Warning& warning : run.warnings) {
                kinds.add(warning.kind);
                messages.add(warning.message);
            }
            connection_->query(
                "INSERT INTO run_warnings (run_id, position, kind, message) "
                "SELECT $1, position - 1, kind, message "
                "FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS w(kind, message, position)",
                {id_text, kinds.text(), messages.text()});
        }
        insert_results(run, id_text);
        return {run_id, true, attempt};
    }

    std::optional<RecordOutcome> find_run(const model::Run& run) {
        const Rows existing = connection_->query(
            "SELECT id, attempt FROM runs WHERE project = $1 AND machine = $2 AND commit_id = $3 "
            "AND content_hash = $4",
            {run.project, run.machine, run.commit, run.content_hash});
        if (existing.size() == 0) return std::nullopt;
        return RecordOutcome{existing.integer(0, 0), false,
                             static_cast<int>(existing.integer(0, 1))};
    }

    // Two statements per kResultsPerStatement results: the new benchmark names, then those
    // results joined with their benchmarks' ids. The names go in in one order, bytewise
    // (COLLATE "C" on the server) for every recorder and across a run's statements, so that two
    // runs adding the same names wait for each other instead of deadlocking.
    void insert_results(const model::Run& run, const std::string& run_id) {
        std::vector<const model::Result*> ordered;
        ordered.reserve(run.results.size());
        for (const model::Result& result : run.results) ordered.push_back(&result);
        std::sort(ordered.begin(), ordered.end(),
                  [](const model::Result* a, const model::Result* b) {
                      return std::tuple(std::string_view(a->benchmark), std::string_view(a->metric),
                                        std::string_view(a->unit),
                                        std::string_view(model::to_string(a->direction))) <
                             std::tuple(std::string_view(b->benchmark), std::string_view(b->metric),
                                        std::string_view(b->unit),
                                        std::string_view(model::to_string(b->direction)));
                  });
        for (std::size_t start = 0; start < ordered.size(); start += kResultsPerStatement)
            insert_result_slice(run, run_id,
                                std::span<const model::Result* const>(ordered).subspan(
                                    start, std::min(kResultsPerStatement, ordered.size() - start)));
    }

    void insert_result_slice(const model::Run& run, const std::string& run_id,
                             std::span<const model::Result* const> slice) {
        ArrayLiteral names, metrics, units, directions, values, allocations, memory, sample_counts,
            medians, means, deviations, user_times, system_times, gc_times, sample_values;
        for (const model::Result* each : slice) {
            const model::Result& result = *each;
            names.add(result.benchmark);
            metrics.add(result.metric);
            units.add(result.unit);
            directions.add(model::to_string(result.direction));
            values.add(result.value);
            allocations.add(result.allocations);
            memory.add(result.memory);
            user_times.add(result.user_time);
            system_times.add(result.system_time);
            gc_times.add(result.gc_time);
            const auto& samples = result.samples;
            sample_counts.add(samples ? std::optional(samples->count) : std::nullopt);
            medians.add(samples ? std::optional(samples->median) : std::nullopt);
            means.add(samples ? std::optional(samples->mean) : std::nullopt);
            deviations.add(samples ? std::optional(samples->stddev) : std::nullopt);
            sample_values.add(samples && !samples->values.empty()
                                  ? std::optional(encode_sample_values(samples->values))
                                  : std::nullopt);
        }
        connection_->query(
            "INSERT INTO benchmarks (project, name, metric, unit, direction) "
            "SELECT $1::text, name, metric, unit, direction FROM (SELECT DISTINCT name, metric, "
            "unit, direction FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) "
            "AS b(name, metric, unit, direction)) AS d ORDER BY name COLLATE \"C\", "
            "metric COLLATE \"C\", unit COLLATE \"C\", direction COLLATE \"C\" "
            "ON CONFLICT DO NOTHING",
            {run.project, names.text(), metrics.text(), units.text(), directions.text()});
        const Rows added = connection_->query(
            "INSERT INTO results (run_id, benchmark_id, value, allocations, memory, sample_count, "
            "sample_median, sample_mean, sample_stddev, user_time, system_time, gc_time, "
            "sample_values) "
            "SELECT $1, b.id, r.value, r.allocations, r.memory, r.sample_count, r.median, r.mean, "
            "r.stddev, r.user_time, r.system_time, r.gc_time, r.sample_values "
            "FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], "
            "$8::float8[], $9::float8[], $10::bigint[], $11::float8[], $12::float8[], "
            "$13::float8[], $14::float8[], $15::float8[], $16::float8[], $17::text[]) "
            "AS r(name, metric, unit, direction, value, allocations, memory, sample_count, "
            "median, mean, stddev, user_time, system_time, gc_time, sample_values) "
            "JOIN benchmarks AS b ON b.project = $2 AND b.name = r.name AND b.metric = r.metric "
            "AND b.unit = r.unit AND b.direction = r.direction",
            {run_id, run.project, names.text(), metrics.text(), units.text(), directions.text(),
             values.text(), allocations.text(), memory.text(), sample_counts.text(), medians.text(),
             means.text(), deviations.text(), user_times.text(), system_times.text(),
             gc_times.text(), sample_values.text()});
        if (added.changed() != static_cast<std::int64_t>(slice.size()))
            throw PgFailure(kDataCorrupted, fmt::format("{} of {} results found their benchmark",
                                                        added.changed(), slice.size()));
    }

    std::vector<model::Run> select_runs(const RunFilter& filter) override {
        std::string conditions;
        std::vector<Parameter> parameters;
        for (const auto& [column, value] :
             {std::pair{"project", &filter.project}, std::pair{"machine", &filter.machine},
              std::pair{"branch", &filter.branch}}) {
            if (value->empty()) continue;
            parameters.emplace_back(*value);
            conditions += fmt::format(" AND r.{} = ${}", column, parameters.size());
        }
        if (!filter.commits.empty()) {
            ArrayLiteral commits;
            for (const std::string& commit : filter.commits) commits.add(commit);
            parameters.emplace_back(commits.text());
            conditions += fmt::format(" AND r.commit_id = ANY(${}::text[])", parameters.size());
        }
        if (filter.after_id > 0) conditions += fmt::format(" AND r.id > {}", filter.after_id);
        const auto matching = [&](const std::string& select_from, std::string_view order_by) {
            return connection_->query(
                fmt::format("{} WHERE TRUE{} ORDER BY {}", select_from, conditions, order_by),
                std::span<const Parameter>(parameters));
        };

        return retrying("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&] {
            std::vector<model::Run> runs;
            const Rows rows =
                matching(fmt::format("SELECT {} FROM {}", kRunColumns, kRunsWithCommits), "r.id");
            std::unordered_map<std::int64_t, std::size_t> position_of_run;
            for (int row = 0; row < rows.size(); ++row) {
                position_of_run.emplace(rows.integer(row, 0), runs.size());
                runs.push_back(read_run(rows.row(row)));
            }
            const Rows environment = matching(
                "SELECT e.run_id, e.key, e.value FROM environment AS e "
                "JOIN runs AS r ON r.id = e.run_id",
                "e.run_id");
            for (int row = 0; row < environment.size(); ++row)
                runs[position_of_run.at(environment.integer(row, 0))].environment.emplace(
                    environment.text(row, 1), environment.text(row, 2));
            const Rows warnings = matching(
                "SELECT w.run_id, w.kind, w.message FROM run_warnings AS w "
                "JOIN runs AS r ON r.id = w.run_id",
                "w.run_id, w.position");
            for (int row = 0; row < warnings.size(); ++row)
                runs[position_of_run.at(warnings.integer(row, 0))].warnings.push_back(
                    {warnings.text(row, 1), warnings.text(row, 2)});
            return runs;
        });
    }

    // Reads the few distinct benchmarks once and copies them into every result, as the SQLite
    // store does, instead of joining their names into every row.
    std::unordered_map<std::int64_t, std::vector<model::Result>> select_results(
        std::span<const std::int64_t> run_ids) override {
        std::unordered_map<std::int64_t, std::vector<model::Result>> results_by_run;
        ArrayLiteral ids;
        for (const std::int64_t id : run_ids) {
            results_by_run[id];
            ids.add(id);
        }
        if (run_ids.empty()) return results_by_run;
        const std::string id_array = ids.text();

        retrying("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&] {
            for (auto& [id, results] : results_by_run) results.clear();
            const Rows benchmark_rows = connection_->query(
                fmt::format("SELECT {} FROM benchmarks WHERE id IN (SELECT benchmark_id FROM "
                            "results WHERE run_id = ANY($1::bigint[]))",
                            kBenchmarkColumns),
                {id_array});
            std::unordered_map<std::int64_t, model::Result> benchmarks;
            for (int row = 0; row < benchmark_rows.size(); ++row)
                benchmarks.emplace(benchmark_rows.integer(row, 0),
                                   read_benchmark(benchmark_rows.row(row)));

            const Rows rows = connection_->query(
                fmt::format("SELECT {} FROM results WHERE run_id = ANY($1::bigint[]) "
                            "ORDER BY run_id",
                            kResultColumns),
                {id_array});
            std::vector<model::Result>* run_results = nullptr;
            std::int64_t run_id = 0;
            for (int row = 0; row < rows.size(); ++row) {
                if (!run_results || rows.integer(row, 0) != run_id) {
                    run_id = rows.integer(row, 0);
                    run_results = &results_by_run.at(run_id);
                }
                read_result_values(rows.row(row),
                                   run_results->emplace_back(benchmarks.at(rows.integer(row, 1))));
            }
            return 0;
        });

        sort_results(results_by_run);
        return results_by_run;
    }

    ResultValues select_result_values(std::span<const std::int64_t> run_ids) override {
        ResultValues read;
        if (run_ids.empty()) return read;
        ArrayLiteral ids;
        for (const std::int64_t id : run_ids) ids.add(id);
        const std::string id_array = ids.text();
        retrying("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&] {
            read = {};
            const Rows benchmark_rows = connection_->query(
                fmt::format("SELECT {} FROM benchmarks WHERE id IN (SELECT benchmark_id FROM "
                            "results WHERE run_id = ANY($1::bigint[]))",
                            kBenchmarkColumns),
                {id_array});
            for (int row = 0; row < benchmark_rows.size(); ++row)
                read.benchmarks.emplace(benchmark_rows.integer(row, 0),
                                        read_benchmark(benchmark_rows.row(row)));
            const Rows rows = connection_->query(
                "SELECT run_id, benchmark_id, value FROM results WHERE run_id = "
                "ANY($1::bigint[])",
                {id_array});
            read.values.reserve(static_cast<std::size_t>(rows.size()));
            for (int row = 0; row < rows.size(); ++row)
                read.values.push_back(
                    {rows.integer(row, 0), rows.integer(row, 1), rows.real(row, 2)});
            return 0;
        });
        return read;
    }

    // The connection as migrate() uses it. The transaction's advisory lock lets one process
    // migrate at a time; the version lives in table schema_version, made here when missing.
    struct Migration {
        Connection& connection;

        int read_schema_version() { return read_stored_version(connection); }
        Transaction begin_migration() {
            Transaction transaction(connection, "BEGIN");
            connection.query("SELECT pg_advisory_xact_lock($1)", {text_of(kMigrationLock)});
            connection.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
            return transaction;
        }
        void execute(const std::string& sql) { connection.execute(sql); }
        void write_schema_version(int version) {
            connection.execute("DELETE FROM schema_version");
            connection.query("INSERT INTO schema_version (version) VALUES ($1)",
                             {text_of(std::int64_t{version})});
        }
    };

    std::string url_;
    std::string shown_url_;
    std::optional<Connection> connection_;
};

}  // namespace

std::unique_ptr<Store> open_postgres_store(const std::string& url, Access access) {
    return std::make_unique<PostgresStore>(url, true, access);
}

int stored_postgres_schema_version(const std::string& url) {
    PostgresStore store(url, false);
    return store.schema_version();
}

}  // namespace benchwatch::store
