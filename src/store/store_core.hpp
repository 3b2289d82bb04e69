#pragma once

// What the SQLite and PostgreSQL stores share: the schema and its migration steps, the checks a
// run passes before it is written, and the reading of rows into runs and results. Each backend
// (sqlite_store.cpp, postgres_store.cpp) keeps only what differs: its connection, its
// statements, its locking and how it inserts many rows at once.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/run.hpp"
#include "store/store.hpp"

namespace benchwatch::store {

// A problem the shared code finds in a run to be stored or in a stored row, described without
// the store's name or the operation: each backend's error boundary adds those, as it does for
// its own failures ("store PATH: recording the run of commit c1: benchmark …").
class StoreDataError : public StoreError {
  public:
    using StoreError::StoreError;
};

// A failed call into a backend's database library (SQLite, libpq), with the library's message
// as what(). CoreStore catches it at the Store boundary and has the backend describe it, since
// only the backend knows its error codes and the fix to suggest.
class BackendFailure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Throws StoreDataError when `run` holds what no store can keep: a project, machine or branch
// name that model::run_names_problem() refuses, results that model::results_problem() refuses
// (names with control characters or too long, values record refuses), a result whose value is
// NaN, or two results of one benchmark, metric, unit and direction. Called before anything is
// written.
void check_storable(const model::Run& run);

// The Store operations as every backend offers them: each runs the backend's implementation
// under guarded(), so that a failure is one StoreError naming the store and the operation
// ("store PATH: listing runs: …"), and record() and record_all() refuse a run that
// check_storable() refuses before anything is written. A backend implements the protected
// functions and cache_calibration(), whose waiting differs by backend.
class CoreStore : public Store {
  public:
    // Store::record(): check_storable(), then insert_runs() of the one run.
    RecordOutcome record(const model::Run& run) final;
    // Store::record_all(): check_storable() of every run, then insert_runs().
    std::vector<RecordOutcome> record_all(std::span<const model::Run> runs) final;
    // Store::list_runs(), through select_runs().
    std::vector<model::Run> list_runs(const RunFilter& filter) final;
    // Store::results(), through select_results().
    std::unordered_map<std::int64_t, std::vector<model::Result>> results(
        std::span<const std::int64_t> run_ids) final;
    // Store::result_values(), through select_result_values().
    ResultValues result_values(std::span<const std::int64_t> run_ids,
                               const std::function<bool(std::int64_t)>& known = {}) final;
    // Store::result_counts(), through count_results().
    std::unordered_map<std::int64_t, std::size_t> result_counts(
        std::span<const std::int64_t> run_ids) final;
    // Store::projects(), through select_projects().
    std::vector<std::string> projects() final;
    // Store::machines(), through select_machines().
    std::vector<std::string> machines(const std::string& project) final;
    // Store::benchmark_names(), through select_benchmark_names().
    std::vector<std::string> benchmark_names(const std::string& project) final;
    // Store::schema_version(), through read_schema_version().
    int schema_version() final;
    // Store::last_run_id(), through select_last_run_id().
    std::int64_t last_run_id() final;
    // Store::peek_last_run_id(), through select_peek_last_run_id().
    std::int64_t peek_last_run_id() final;
    // Store::run_count(), through count_runs().
    std::int64_t run_count() final;
    // Store::cached_calibration(), through select_cached_calibration().
    std::optional<std::string> cached_calibration(const CalibrationKey& key) final;

  protected:
    // The store as messages name it: a path, or a URL without its password.
    virtual const std::string& shown_name() const = 0;

    // The one line of a StoreError for `failure` during `operation`: "store NAME: OPERATION:
    // PROBLEM[; FIX]". `failure` is one the backend threw itself.
    virtual std::string describe_failure(std::string_view operation,
                                         const BackendFailure& failure) const = 0;

    // Stores `runs`, already checked, in one transaction, as Store::record_all() promises.
    virtual std::vector<RecordOutcome> insert_runs(std::span<const model::Run> runs) = 0;
    // Store::list_runs().
    virtual std::vector<model::Run> select_runs(const RunFilter& filter) = 0;
    // Store::results(), sorted with sort_results().
    virtual std::unordered_map<std::int64_t, std::vector<model::Result>> select_results(
        std::span<const std::int64_t> run_ids) = 0;
    // Store::result_values().
    virtual ResultValues select_result_values(std::span<const std::int64_t> run_ids,
                                              const std::function<bool(std::int64_t)>& known) = 0;
    // Store::result_counts().
    virtual std::unordered_map<std::int64_t, std::size_t> count_results(
        std::span<const std::int64_t> run_ids) = 0;
    // Store::projects(), sorted bytewise.
    virtual std::vector<std::string> select_projects() = 0;
    // Store::machines(), sorted bytewise.
    virtual std::vector<std::string> select_machines(const std::string& project) = 0;
    // Store::benchmark_names(), sorted bytewise.
    virtual std::vector<std::string> select_benchmark_names(const std::string& project) = 0;
    // The stored schema version, 0 for a store without benchwatch tables.
    virtual int read_schema_version() = 0;
    // Store::last_run_id().
    virtual std::int64_t select_last_run_id() = 0;
    // Store::peek_last_run_id(); select_last_run_id() unless that waits for other writers.
    virtual std::int64_t select_peek_last_run_id() { return select_last_run_id(); }
    // Store::run_count().
    virtual std::int64_t count_runs() = 0;
    // Store::cached_calibration().
    virtual std::optional<std::string> select_cached_calibration(const CalibrationKey& key) = 0;

    // Returns what `body` returns, turning a BackendFailure or a StoreDataError into a
    // StoreError naming the store and `operation`.
    template <class Body>
    auto guarded(std::string_view operation, Body&& body) -> decltype(body()) {
        try {
            return body();
        } catch (const BackendFailure& failure) {
            throw StoreError(describe_failure(operation, failure));
        } catch (const StoreDataError& problem) {
            throw data_error(operation, problem);
        }
    }

  private:
    // "store NAME: OPERATION: PROBLEM" for a problem the shared code found.
    StoreError data_error(std::string_view operation, const StoreDataError& problem) const;
};

// How a backend spells what the schema steps need: the column types that differ, the option
// that makes a table keyed by its primary key alone, and how results' references are kept.
struct Dialect {
    std::string_view id;         // an integer primary key the store assigns
    std::string_view bigint;     // a 64-bit integer
    std::string_view real;       // a double
    std::string_view clustered;  // after a table whose rows are found by their primary key
    // The statements that replace the foreign keys of `results` with checks per statement, or
    // nothing where the per-row checks are cheap (SQLite's are an in-process index lookup).
    std::string_view results_references;
};

// SQLite's spelling: INTEGER holds 64 bits and is the rowid when it is the primary key.
inline constexpr Dialect kSqliteDialect{"INTEGER PRIMARY KEY", "INTEGER", "REAL", " WITHOUT ROWID",
                                        ""};

// PostgreSQL keeps the references of `results` without foreign keys, whose two triggers per row
// took half the time of inserting a run's results: the store writes a result only with the run
// it inserts in the same transaction and with benchmark ids it read from `benchmarks`; deleting
// runs deletes their results in one statement, and deleting a benchmark that results still
// use is refused, as the foreign keys did.
inline constexpr std::string_view kPostgresResultsReferences = R"sql(
ALTER TABLE results DROP CONSTRAINT results_run_id_fkey;
ALTER TABLE results DROP CONSTRAINT results_benchmark_id_fkey;
CREATE FUNCTION delete_results_of_deleted_runs() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM results WHERE run_id IN (SELECT id FROM deleted_runs);
    RETURN NULL;
END
$$;
CREATE TRIGGER results_of_deleted_runs AFTER DELETE ON runs
REFERENCING OLD TABLE AS deleted_runs FOR EACH STATEMENT
EXECUTE FUNCTION delete_results_of_deleted_runs();
CREATE FUNCTION refuse_deleting_used_benchmarks() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM results WHERE benchmark_id IN (SELECT id FROM deleted_benchmarks))
    THEN
        RAISE foreign_key_violation USING MESSAGE =
            'results still use a deleted benchmark; delete their runs first';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER results_keep_their_benchmarks AFTER DELETE ON benchmarks
REFERENCING OLD TABLE AS deleted_benchmarks FOR EACH STATEMENT
EXECUTE FUNCTION refuse_deleting_used_benchmarks();
)sql";

// PostgreSQL's spelling.
inline constexpr Dialect kPostgresDialect{"BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
                                          "BIGINT", "DOUBLE PRECISION", "",
                                          kPostgresResultsReferences};

// The SQL of schema step `step` (counted from 0: it takes a store from version `step` to
// `step` + 1) in `dialect`, one or more statements. Requires step < current_schema_version().
std::string migration_sql(int step, const Dialect& dialect);

// Throws StoreError when `version` is newer than this build knows; `store` names the store.
void refuse_newer_schema(std::string_view store, int version);

// The error of a reading command on a store that does not exist yet.
StoreError no_store_error(std::string_view store);

// "migrating to schema version N": the operation a backend names when migrating fails.
std::string migrating_operation();

// Brings the store behind `target` to current_schema_version(). `target` provides
// read_schema_version() (0 for no benchwatch tables), begin_migration() (a transaction object
// with commit(), rolled back when destroyed uncommitted, holding the lock that lets one process
// migrate at a time), execute(sql) and write_schema_version(version). The version is read once
// without the lock, so that opening a current store writes nothing, and again under it, since
// another process may have migrated while this one waited.
template <class Target>
void migrate(Target& target, const Dialect& dialect, std::string_view store) {
    const int current = current_schema_version();
    int version = target.read_schema_version();
    refuse_newer_schema(store, version);
    if (version == current) return;
    auto transaction = target.begin_migration();
    version = target.read_schema_version();
    refuse_newer_schema(store, version);
    if (version == current) return;
    for (; version < current; ++version) target.execute(migration_sql(version, dialect));
    target.write_schema_version(current);
    transaction.commit();
}

// The columns read_run() reads, in its order, of `runs AS r` joined with `commits AS c`
// (kRunsWithCommits); a backend may select more columns after them.
inline constexpr std::string_view kRunColumns =
    "r.id, r.project, r.machine, r.commit_id, r.branch, r.pull_request, r.recorded_at_ms, "
    "r.attempt, r.format, r.content_hash, c.message, c.author, c.timestamp, c.url";
// How many columns kRunColumns names: the index of the first column a backend adds after them.
inline constexpr int kRunColumnCount = 14;

// The runs with what is known of their commits, for kRunColumns.
inline constexpr std::string_view kRunsWithCommits =
    "runs AS r LEFT JOIN commits AS c ON c.project = r.project AND c.commit_id = r.commit_id";

// The columns of `benchmarks` that read_benchmark() reads, in its order.
inline constexpr std::string_view kBenchmarkColumns = "id, name, metric, unit, direction";

// The columns of `results` that read_result_values() reads, in its order.
inline constexpr std::string_view kResultColumns =
    "run_id, benchmark_id, value, allocations, memory, sample_count, sample_median, sample_mean, "
    "sample_stddev, user_time, system_time, gc_time, sample_values";

// A run from a row of kRunColumns, without environment, warnings or results. `Row` has
// is_null(column), text(column) and integer(column), columns counted from 0.
template <class Row>
model::Run read_run(const Row& row) {
    model::Run run;
    run.id = row.integer(0);
    run.project = row.text(1);
    run.machine = row.text(2);
    run.commit = row.text(3);
    run.branch = row.text(4);
    if (!row.is_null(5)) run.pull_request = row.integer(5);
    run.recorded_at_ms = row.integer(6);
    run.attempt = static_cast<int>(row.integer(7));
    run.format = row.text(8);
    run.content_hash = row.text(9);
    if (!row.is_null(10))
        run.commit_info = model::CommitInfo{row.text(10), row.text(11), row.text(12), row.text(13)};
    return run;
}

// The direction stored as `text` for `benchmark`; throws StoreDataError for one this build does
// not know.
model::Direction stored_direction(const std::string& benchmark, const std::string& text);

// A result with the name, metric, unit and direction of a row of kBenchmarkColumns and no
// values. Throws StoreDataError for an unknown direction.
template <class Row>
model::Result read_benchmark(const Row& row) {
    model::Result result;
    result.benchmark = row.text(1);
    result.metric = row.text(2);
    result.unit = row.text(3);
    result.direction = stored_direction(result.benchmark, row.text(4));
    return result;
}

// A result's kept sample values as results.sample_values holds them: the shortest decimals that
// read back exactly, separated by single spaces. Example: {1.5, 20} gives "1.5 20".
std::string encode_sample_values(std::span<const double> values);
// The same, written over `text`, whose capacity is kept for the next benchmark.
void encode_sample_values(std::span<const double> values, std::string& text);

// The values encode_sample_values() wrote. Throws StoreDataError naming `benchmark` when `text`
// is not such a list of at most model::kKeptSampleValues finite numbers.
std::vector<double> decode_sample_values(std::string_view text, const std::string& benchmark);

// Fills `result`'s values from a row of kResultColumns. `Row` also has optional_real(column),
// nullopt for NULL. A sample summary's NULL reads as NaN: SQLite keeps a NaN (say, the deviation
// of one sample) as NULL.
template <class Row>
void read_result_values(const Row& row, model::Result& result) {
    const auto real_or_nan = [&](int column) {
        return row.optional_real(column).value_or(std::numeric_limits<double>::quiet_NaN());
    };
    result.value = row.real(2);
    result.allocations = row.optional_real(3);
    result.memory = row.optional_real(4);
    result.user_time = row.optional_real(9);
    result.system_time = row.optional_real(10);
    result.gc_time = row.optional_real(11);
    if (!row.is_null(5)) {
        result.samples = model::SampleSummary{
            row.integer(5), real_or_nan(6), real_or_nan(7), real_or_nan(8), {}};
        if (!row.is_null(12))
            result.samples->values = decode_sample_values(row.text(12), result.benchmark);
    }
}

// Sorts each run's results by benchmark name, then metric, then unit (bytewise), the order
// Store::results() promises whatever order the rows came in.
void sort_results(std::unordered_map<std::int64_t, std::vector<model::Result>>& results_by_run);

}  // namespace benchwatch::store
