#include "store/postgres_store.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/printable.hpp"
#include "model/utf8.hpp"
#include "store/libpq_loader.hpp"
#include "store/store_core.hpp"
#include "store/store_url.hpp"

namespace benchwatch::store {
namespace {

// The advisory lock held by the transaction that migrates; its value spells "benchwat".
constexpr std::int64_t kMigrationLock = 0x62656e6368776174;

// The advisory lock that orders run ids: every transaction that inserts runs holds it shared, and
// last_run_id() takes it exclusively for a moment, so that no run with a smaller id than the one
// it reports can still be committed after it. One per store: keyed by the store's schema in the
// two-number key space (which no one-number key shares), so that a reader waiting for a slow
// recorder in one schema of a database does not hold up the recorders of another; the first
// number spells "bw r". The calls that take it exclusively and shared:
constexpr std::string_view kRunOrderLock =
    "pg_advisory_xact_lock(1651974258, hashtext(current_schema()))";
constexpr std::string_view kRunOrderLockShared =
    "pg_advisory_xact_lock_shared(1651974258, hashtext(current_schema()))";

// How often a transaction that lost a deadlock or serialization race is tried again.
constexpr int kAttemptsPerTransaction = 5;

// New benchmark names sent per statement, as arrays of text; held three times over while a
// statement is sent (built, as parameters, in libpq's message).
constexpr std::size_t kBenchmarksPerStatement = 10'000;

// The bytes of binary COPY data built before they are handed to libpq, so that a run of any
// size is sent in pieces of about this size.
constexpr std::size_t kCopyChunk = 1 << 20;

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

// Rows in the binary form of COPY … FROM STDIN (FORMAT binary): a header, then per row the number
// of fields and each field's length and bytes (length -1 for NULL), numbers big-endian.
class BinaryCopy {
  public:
    BinaryCopy() { data_.append("PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0", 19); }

    void begin_row(std::int16_t fields) { put(static_cast<std::uint16_t>(fields)); }
    void add(std::int64_t value) {
        put(std::uint32_t{8});
        put(static_cast<std::uint64_t>(value));
    }
    void add(double value) {
        put(std::uint32_t{8});
        put(std::bit_cast<std::uint64_t>(value));
    }
    void add(std::string_view text) {
        put(static_cast<std::uint32_t>(text.size()));
        data_.append(text);
    }
    template <class T>
    void add(const std::optional<T>& value) {
        if (value)
            add(*value);
        else
            put(std::uint32_t{0xFFFFFFFF});
    }
    // Ends the data with the trailer; nothing may be added after it.
    void finish() { put(std::uint16_t{0xFFFF}); }

    std::size_t size() const { return data_.size(); }
    const std::string& data() const { return data_; }
    void clear() { data_.clear(); }

  private:
    template <class T>
    void put(T value) {
        char bytes[sizeof(T)];
        for (std::size_t i = 0; i < sizeof(T); ++i)
            bytes[i] = static_cast<char>(value >> (8 * (sizeof(T) - 1 - i)));
        data_.append(bytes, sizeof(T));
    }

    std::string data_;
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
        if (PQfformat(result_.get(), column) == 1) {
            const char* bytes = PQgetvalue(result_.get(), row, column);
            switch (PQgetlength(result_.get(), row, column)) {
                case 8:
                    return static_cast<std::int64_t>(big_endian<std::uint64_t>(bytes));
                case 4:
                    return static_cast<std::int32_t>(big_endian<std::uint32_t>(bytes));
                case 2:
                    return static_cast<std::int16_t>(big_endian<std::uint16_t>(bytes));
                default:
                    throw PgFailure(kDataCorrupted, "a binary integer of an unknown size");
            }
        }
        return parse_integer(PQgetvalue(result_.get(), row, column));
    }
    double real(int row, int column) const {
        if (PQfformat(result_.get(), column) == 1) {
            if (PQgetlength(result_.get(), row, column) != 8)
                throw PgFailure(kDataCorrupted, "a binary number that is not a float8");
            return std::bit_cast<double>(
                big_endian<std::uint64_t>(PQgetvalue(result_.get(), row, column)));
        }
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
    PGresult* get() const { return result_.get(); }
    bool succeeded() const {
        const ExecStatusType status = PQresultStatus(result_.get());
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    }
    // A field of the error (PG_DIAG_SQLSTATE…), nullptr when there is none.
    const char* error_field(int field) const {
        return result_ ? PQresultErrorField(result_.get(), field) : nullptr;
    }

  private:
    // The unsigned integer of sizeof(T) bytes at `bytes`, most significant first.
    template <class T>
    static T big_endian(const char* bytes) {
        T value = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            value = static_cast<T>((value << 8) | static_cast<unsigned char>(bytes[i]));
        return value;
    }

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
        // No JIT: compiling a plan took longer than running any statement here (11 of 15 ms for
        // reading 16 runs' results, which the planner costs high without statistics).
        execute("SET extra_float_digits = 3; SET jit = off");
    }

    // Runs one statement with parameters $1, $2… in text form and returns its rows.
    Rows query(std::string_view sql, std::initializer_list<Parameter> parameters = {}) {
        return query(sql, std::span<const Parameter>(parameters.begin(), parameters.size()));
    }
    Rows query(std::string_view sql, std::span<const Parameter> parameters) {
        return query_as(sql, parameters, 0);
    }
    // As query(), with the rows in binary form: numbers as bytes instead of text to parse.
    Rows query_binary(std::string_view sql, std::initializer_list<Parameter> parameters) {
        return query_as(sql, std::span<const Parameter>(parameters.begin(), parameters.size()), 1);
    }
    Rows query_binary(std::string_view sql, std::span<const Parameter> parameters) {
        return query_as(sql, parameters, 1);
    }

    // Runs `copy`, a COPY … FROM STDIN (FORMAT binary) statement, with the data `fill` builds:
    // fill(BinaryCopy&, flush) adds rows and calls flush() now and then to send what it has
    // built. Returns the number of rows copied.
    template <class Fill>
    std::int64_t copy_in(const std::string& copy, Fill&& fill) {
        Rows started(PQexec(connection_.get(), copy.c_str()));
        if (PQresultStatus(started.get()) != PGRES_COPY_IN) check(started);
        BinaryCopy data;
        bool sent = true;
        const auto flush = [&] {
            if (sent && data.size() > 0)
                sent = PQputCopyData(connection_.get(), data.data().data(),
                                     static_cast<int>(data.size())) == 1;
            data.clear();
        };
        try {
            fill(data, flush);
            data.finish();
            flush();
        } catch (...) {
            // Ends the COPY so that the connection can roll back; the caller's failure counts.
            PQputCopyEnd(connection_.get(), "abandoned");
            while (PGresult* rest = PQgetResult(connection_.get())) PQclear(rest);
            throw;
        }
        PQputCopyEnd(connection_.get(), sent ? nullptr : "sending failed");
        std::optional<Rows> ended;
        while (PGresult* result = PQgetResult(connection_.get())) ended.emplace(result);
        if (!ended) throw PgFailure(kConnectionFailure, "connection lost during COPY");
        check(*ended);
        return ended->changed();
    }

    // Runs one or more statements without parameters.
    void execute(const std::string& sql) { check(Rows(PQexec(connection_.get(), sql.c_str()))); }

  private:
    Rows query_as(std::string_view sql, std::span<const Parameter> parameters, int result_format) {
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
                               nullptr, result_format));
        check(rows);
        return rows;
    }

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

// The benchmark ids of one project as a PostgresStore last read them, by benchmark_key(), with
// the count and largest id the project had then: a run whose benchmarks are all here and
// whose project still has that count and largest id sends its results without a statement
// for the names. Benchmarks are never updated, so the two numbers tell any change.
struct ProjectBenchmarks {
    std::unordered_map<std::string, std::int64_t> ids;
    std::int64_t count = 0;
    std::int64_t last_id = 0;
};

class PostgresStore final : public CoreStore {
  public:
    // Connects; migrates unless `migrating` is false. With an access other than ReadWrite, a
    // search path without benchwatch tables is refused rather than given them.
    PostgresStore(std::string url, bool migrating, Access access = Access::ReadWrite)
        : url_(std::move(url)), shown_url_(without_credentials(url_)) {
        guarded("connecting", [&] { connection_.emplace(url_); });
        int version = -1;
        if (access != Access::ReadWrite) {
            version = guarded("reading the schema version", [&] { return read_schema_version(); });
            if (version == 0) throw no_store_error(shown_url_);
        }
        // A reader's store that is current is not read again by migrate().
        if (migrating && version != current_schema_version())
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

    // Waits for the transactions inserting runs now (kRunOrderLock), so that every run with a
    // smaller id than the one it returns is committed or rolled back: ids are taken in insertion
    // order but committed in any order, and a reader that loads runs up to the id it read would
    // otherwise miss one committed late. On a hot standby, which takes no such lock, it reads the
    // newest id as it is.
    std::int64_t select_last_run_id() override {
        return retrying("BEGIN READ ONLY", [&] {
            if (connection_->query("SELECT pg_is_in_recovery()").text(0, 0) == "f")
                connection_->query(fmt::format("SELECT {}", kRunOrderLock));
            return connection_->query("SELECT coalesce(max(id), 0) FROM runs").integer(0, 0);
        });
    }

    // One statement on the runs' primary key, taking no lock: it may name a run while one with a
    // smaller id is still being committed, which select_last_run_id() then waits for.
    std::int64_t select_peek_last_run_id() override {
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
                benchmark_ids_.clear();
                const bool lost_race = failure.sqlstate() == kSerializationFailure ||
                                       failure.sqlstate() == kDeadlockDetected;
                if (!lost_race || attempt == kAttemptsPerTransaction) throw;
            } catch (...) {
                benchmark_ids_.clear();
                throw;
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
    // order so that two record_all() calls cannot deadlock. Before them it takes kRunOrderLock
    // shared, which only last_run_id() waits for.
    void lock_commits(std::span<const model::Run> runs) {
        std::vector<std::string> keys;
        for (const model::Run& run : runs)
            keys.push_back(fmt::format("{}\n{}\n{}", run.project, run.machine, run.commit));
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        ArrayLiteral sorted;
        for (const std::string& key : keys) sorted.add(key);
        // One statement; UNION ALL runs its parts in order, and unnest keeps the array's.
        connection_->query(fmt::format("SELECT count(*) FROM (SELECT {} UNION ALL "
                                       "SELECT pg_advisory_xact_lock(hashtextextended(key, 0)) "
                                       "FROM unnest($1::text[]) AS key) AS locked",
                                       kRunOrderLockShared),
                           {sorted.text()});
    }

    // Inserts `run` inside the caller's transaction, holding its commit's lock: one statement
    // inserts the run, its attempt counted there, with its commit information, environment and
    // warnings, and reads how many benchmarks the project has; its results go in by binary COPY
    // with benchmark ids from benchmark_ids_, after one statement for the names the project
    // does not have yet.
    RecordOutcome insert_run(const model::Run& run) {
        ArrayLiteral keys, values, kinds, messages;
        for (const auto& [key, value] : run.environment) {
            keys.add(key);
            values.add(value);
        }
        for (const model::Warning& warning : run.warnings) {
            kinds.add(warning.kind);
            messages.add(warning.message);
        }
        // After the lock, so that this statement's snapshot holds every run of the commit
        // committed before. A run stored already (NOT EXISTS, which also keeps it from taking an
        // id; the unique constraint should another transaction have stored it despite the lock)
        // makes it insert nothing but the commit's information, as before.
        const Rows added = connection_->query(
            "WITH run AS (INSERT INTO runs (project, machine, commit_id, branch, pull_request, "
            "recorded_at_ms, attempt, format, content_hash) "
            "SELECT $1::text, $2::text, $3::text, $4, $5::bigint, $6::bigint, "
            "1 + (SELECT count(*) FROM runs WHERE project = $1 AND machine = $2 "
            "AND commit_id = $3), $7, $8 "
            "WHERE NOT EXISTS (SELECT 1 FROM runs WHERE project = $1 AND machine = $2 "
            "AND commit_id = $3 AND content_hash = $8) "
            "ON CONFLICT (project, machine, commit_id, content_hash) DO NOTHING "
            "RETURNING id, attempt), "
            "environment AS (INSERT INTO environment (run_id, key, value) "
            "SELECT run.id, e.key, e.value FROM run, unnest($13::text[], $14::text[]) "
            "AS e(key, value)), "
            "warnings AS (INSERT INTO run_warnings (run_id, position, kind, message) "
            "SELECT run.id, w.position - 1, w.kind, w.message FROM run, "
            "unnest($15::text[], $16::text[]) WITH ORDINALITY AS w(kind, message, position)), "
            "commit_info AS (INSERT INTO commits (project, commit_id, message, author, "
            "timestamp, url) SELECT $1::text, $3::text, $9::text, $10::text, $11::text, "
            "$12::text WHERE $9::text IS NOT NULL "
            "ON CONFLICT (project, commit_id) DO NOTHING) "
            "SELECT run.id, run.attempt, (SELECT count(*) FROM benchmarks WHERE project = $1), "
            "(SELECT coalesce(max(id), 0) FROM benchmarks WHERE project = $1) FROM run",
            {run.project, run.machine, run.commit, run.branch,
             run.pull_request ? Parameter(text_of(*run.pull_request)) : std::nullopt,
             text_of(run.recorded_at_ms), run.format, run.content_hash,
             run.commit_info ? Parameter(run.commit_info->message) : std::nullopt,
             run.commit_info ? Parameter(run.commit_info->author) : std::nullopt,
             run.commit_info ? Parameter(run.commit_info->timestamp) : std::nullopt,
             run.commit_info ? Parameter(run.commit_info->url) : std::nullopt, keys.text(),
             values.text(), kinds.text(), messages.text()});
        if (added.size() == 0) return find_run(run).value();
        const std::int64_t run_id = added.integer(0, 0);
        const int attempt = static_cast<int>(added.integer(0, 1));
        ProjectBenchmarks& known = benchmark_ids_[run.project];
        if (known.count != added.integer(0, 2) || known.last_id != added.integer(0, 3)) known = {};
        insert_results(run, run_id, known);
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

    // The key of a benchmark in ProjectBenchmarks: its four names, each ended by its length.
    static std::string benchmark_key(const model::Result& result) {
        std::string key;
        for (const std::string_view part :
             {std::string_view(result.benchmark), std::string_view(result.metric),
              std::string_view(result.unit),
              std::string_view(model::to_string(result.direction))}) {
            // As the server stores it: query() repairs invalid UTF-8 the same way.
            const std::string valid =
                is_valid_utf8(part) ? std::string(part) : with_valid_utf8(part);
            key += valid;
            key += '\x1f';
            key += std::to_string(valid.size());
            key += '\x1f';
        }
        return key;
    }

    // Makes `known` hold every benchmark of `run`'s results: the names the project lacks are
    // inserted, in one order, bytewise (COLLATE "C" on the server) for every recorder, so that
    // two runs adding the same names wait for each other instead of deadlocking; then the
    // project's ids are read again.
    void add_benchmarks(const model::Run& run, ProjectBenchmarks& known) {
        std::vector<const model::Result*> missing;
        for (const model::Result& result : run.results)
            if (!known.ids.contains(benchmark_key(result))) missing.push_back(&result);
        if (missing.empty()) return;
        std::sort(missing.begin(), missing.end(),
                  [](const model::Result* a, const model::Result* b) {
                      return std::tuple(std::string_view(a->benchmark), std::string_view(a->metric),
                                        std::string_view(a->unit),
                                        std::string_view(model::to_string(a->direction))) <
                             std::tuple(std::string_view(b->benchmark), std::string_view(b->metric),
                                        std::string_view(b->unit),
                                        std::string_view(model::to_string(b->direction)));
                  });
        for (std::size_t start = 0; start < missing.size(); start += kBenchmarksPerStatement) {
            ArrayLiteral names, metrics, units, directions;
            for (std::size_t i = start;
                 i < std::min(missing.size(), start + kBenchmarksPerStatement); ++i) {
                names.add(missing[i]->benchmark);
                metrics.add(missing[i]->metric);
                units.add(missing[i]->unit);
                directions.add(model::to_string(missing[i]->direction));
            }
            connection_->query(
                "INSERT INTO benchmarks (project, name, metric, unit, direction) "
                "SELECT $1::text, name, metric, unit, direction FROM unnest($2::text[], "
                "$3::text[], $4::text[], $5::text[]) AS b(name, metric, unit, direction) "
                "ORDER BY name COLLATE \"C\", metric COLLATE \"C\", unit COLLATE \"C\", "
                "direction COLLATE \"C\" ON CONFLICT DO NOTHING",
                {run.project, names.text(), metrics.text(), units.text(), directions.text()});
        }
        known = {};
        const Rows rows = connection_->query_binary(
            fmt::format("SELECT {} FROM benchmarks WHERE project = $1", kBenchmarkColumns),
            {run.project});
        for (int row = 0; row < rows.size(); ++row) {
            const std::int64_t id = rows.integer(row, 0);
            known.ids.emplace(benchmark_key(read_benchmark(rows.row(row))), id);
            known.last_id = std::max(known.last_id, id);
        }
        known.count = rows.size();
    }

    // Sends `run`'s results as one binary COPY into `results`.
    void insert_results(const model::Run& run, std::int64_t run_id, ProjectBenchmarks& known) {
        add_benchmarks(run, known);
        std::string sample_text;
        const std::int64_t copied = connection_->copy_in(
            "COPY results (run_id, benchmark_id, value, allocations, memory, sample_count, "
            "sample_median, sample_mean, sample_stddev, user_time, system_time, gc_time, "
            "sample_values) FROM STDIN (FORMAT binary)",
            [&](BinaryCopy& data, const auto& flush) {
                for (const model::Result& result : run.results) {
                    const auto id = known.ids.find(benchmark_key(result));
                    if (id == known.ids.end())
                        throw PgFailure(kDataCorrupted,
                                        fmt::format("benchmark {} has no id after it was added",
                                                    model::printable_line(result.benchmark)));
                    const auto& samples = result.samples;
                    data.begin_row(13);
                    data.add(run_id);
                    data.add(id->second);
                    data.add(result.value);
                    data.add(result.allocations);
                    data.add(result.memory);
                    data.add(samples ? std::optional(samples->count) : std::nullopt);
                    data.add(samples ? std::optional(samples->median) : std::nullopt);
                    data.add(samples ? std::optional(samples->mean) : std::nullopt);
                    data.add(samples ? std::optional(samples->stddev) : std::nullopt);
                    data.add(result.user_time);
                    data.add(result.system_time);
                    data.add(result.gc_time);
                    if (samples && !samples->values.empty()) {
                        sample_text.clear();
                        encode_sample_values(samples->values, sample_text);
                        data.add(std::string_view(sample_text));
                    } else {
                        data.add(std::optional<std::string_view>());
                    }
                    if (data.size() >= kCopyChunk) flush();
                }
            });
        if (copied != static_cast<std::int64_t>(run.results.size()))
            throw PgFailure(kDataCorrupted, fmt::format("{} of {} results were copied", copied,
                                                        run.results.size()));
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
            return connection_->query_binary(
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
        for (const std::int64_t id : run_ids)
            if (results_by_run.try_emplace(id).second) ids.add(id);
        if (run_ids.empty()) return results_by_run;
        const std::string id_array = ids.text();

        // The results first, each run's by its own index scan whatever the planner knows of the
        // table (OFFSET 0 keeps the subquery from being flattened into a join: right after a bulk
        // load, without statistics, that was a hash join over the whole table, 80 ms for 16 runs
        // instead of 3); then the distinct benchmarks they name.
        retrying("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&] {
            for (auto& [id, results] : results_by_run) results.clear();
            const Rows rows = connection_->query_binary(
                fmt::format("SELECT r.* FROM unnest($1::bigint[]) AS wanted(id) CROSS JOIN "
                            "LATERAL (SELECT {} FROM results WHERE run_id = wanted.id OFFSET 0) "
                            "AS r",
                            kResultColumns),
                {id_array});
            std::unordered_map<std::int64_t, model::Result> benchmarks;
            ArrayLiteral benchmark_ids;
            for (int row = 0; row < rows.size(); ++row)
                if (benchmarks.try_emplace(rows.integer(row, 1)).second)
                    benchmark_ids.add(rows.integer(row, 1));
            benchmarks = benchmarks_by_id(benchmark_ids, benchmarks.size());

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

    // The `count` benchmarks whose ids `ids` lists, by id, read in the transaction under way;
    // PgFailure when one of them is not stored.
    std::unordered_map<std::int64_t, model::Result> benchmarks_by_id(const ArrayLiteral& ids,
                                                                     std::size_t count) {
        std::unordered_map<std::int64_t, model::Result> benchmarks;
        const Rows rows = connection_->query_binary(
            fmt::format("SELECT {} FROM benchmarks WHERE id = ANY($1::bigint[])",
                        kBenchmarkColumns),
            {ids.text()});
        for (int row = 0; row < rows.size(); ++row)
            benchmarks.emplace(rows.integer(row, 0), read_benchmark(rows.row(row)));
        if (benchmarks.size() != count)
            throw PgFailure(kDataCorrupted, "results name benchmarks that are not stored");
        return benchmarks;
    }

    ResultValues select_result_values(std::span<const std::int64_t> run_ids,
                                      const std::function<bool(std::int64_t)>& known) override {
        ResultValues read;
        if (run_ids.empty()) return read;
        ArrayLiteral ids;
        std::unordered_set<std::int64_t> distinct_ids;
        for (const std::int64_t id : run_ids)
            if (distinct_ids.insert(id).second) ids.add(id);
        const std::string id_array = ids.text();
        // As select_results(): each run's values by its own index scan, then their benchmarks.
        retrying("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [&] {
            read = {};
            const Rows rows = connection_->query_binary(
                "SELECT r.* FROM unnest($1::bigint[]) AS wanted(id) CROSS JOIN LATERAL "
                "(SELECT run_id, benchmark_id, value FROM results WHERE run_id = wanted.id "
                "OFFSET 0) AS r",
                {id_array});
            read.values.reserve(static_cast<std::size_t>(rows.size()));
            ArrayLiteral benchmark_ids;
            std::size_t wanted = 0;
            std::unordered_set<std::int64_t> seen;
            for (int row = 0; row < rows.size(); ++row) {
                const std::int64_t benchmark_id = rows.integer(row, 1);
                read.values.push_back({rows.integer(row, 0), benchmark_id, rows.real(row, 2)});
                if (seen.insert(benchmark_id).second && !(known && known(benchmark_id))) {
                    benchmark_ids.add(benchmark_id);
                    ++wanted;
                }
            }
            if (wanted > 0) read.benchmarks = benchmarks_by_id(benchmark_ids, wanted);
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
    // Read in transactions that may yet roll back, so forgotten whenever one does.
    std::unordered_map<std::string, ProjectBenchmarks> benchmark_ids_;
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
