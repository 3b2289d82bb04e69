#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/error.hpp"
#include "model/run.hpp"

namespace benchwatch::store {

// The store cannot be opened, read or written. what() is one line naming the store and the
// problem and, where possible, the fix: "error: store /x/history.db: unable to open (read-only
// directory); pass --store with a writable path".
class StoreError : public model::Error {
  public:
    explicit StoreError(const std::string& message) : Error(model::ErrorKind::Store, message) {}
};

// Which runs to list. Empty fields match everything.
struct RunFilter {
    std::string project;
    std::string machine;
    std::string branch;
    std::vector<std::string> commits;  // runs of any of these commits
    std::int64_t after_id = 0;         // only runs with a greater id
    // Only what places a run in a history: its id, project, machine, commit, branch, pull
    // request, recording time, attempt, commit time (a CommitInfo with only the timestamp) and
    // the dirty mark of its environment. A store may fill in more; what it leaves out is empty.
    bool outline = false;
};

// The result of record(): the run's id, and whether it was new.
struct RecordOutcome {
    std::int64_t run_id = 0;
    bool inserted = false;  // false: the same content was already stored for this commit
    int attempt = 1;
};

// What a cached calibration was computed from. The settings and history fingerprints are opaque
// to the store: it only compares them for equality.
struct CalibrationKey {
    std::string project;
    std::string machine;
    std::string settings;  // the method settings and categories that shaped it
    std::string history;   // the runs it read
};

// Cached calibrations kept per project and machine; writing one more drops the least recently
// written.
inline constexpr int kCachedCalibrationsPerMachine = 16;

// The longest cache_calibration() waits for another process's write lock before giving up.
inline constexpr std::chrono::milliseconds kCacheWriteWait{250};

// One result's value, without its benchmark's name or its other measurements.
struct ResultValue {
    std::int64_t run_id = 0;
    std::int64_t benchmark_id = 0;  // a key of ResultValues::benchmarks
    double value = 0;
};

// The values of some runs' results, and the benchmarks they are of.
struct ResultValues {
    std::vector<ResultValue> values;  // in no particular order
    // Each benchmark id of `values`: the benchmark's name, metric, unit and direction (no values).
    std::unordered_map<std::int64_t, model::Result> benchmarks;
};

// Run history of any number of projects. Implementations are safe to use from several
// processes at once; one object is used by one thread.
class Store {
  public:
    virtual ~Store() = default;

    // Stores `run` with its results and environment in one transaction, assigning id and
    // attempt (1 + the number of earlier runs of the same project, machine and commit). A run
    // whose project, machine, commit and content_hash are already stored is not stored again.
    virtual RecordOutcome record(const model::Run& run) = 0;

    // Records every run as record() does, all in one transaction: either all are stored or,
    // when it throws, none.
    virtual std::vector<RecordOutcome> record_all(std::span<const model::Run> runs) = 0;

    // Runs matching `filter`, without results, in recording order (oldest first).
    virtual std::vector<model::Run> list_runs(const RunFilter& filter) = 0;

    // The results of the given runs, keyed by run id.
    virtual std::unordered_map<std::int64_t, std::vector<model::Result>> results(
        std::span<const std::int64_t> run_ids) = 0;

    // The values of the given runs' results, without their samples, allocations and other
    // measurements: what reading a long history for its values needs, at a fraction of results()'
    // cost. A benchmark has one id in every call on one store. Benchmarks for which `known` (when
    // given) is true are left out of ResultValues::benchmarks: a reader of many batches has them
    // from an earlier one.
    virtual ResultValues result_values(std::span<const std::int64_t> run_ids,
                                       const std::function<bool(std::int64_t)>& known = {}) = 0;

    // How many results each of the given runs has, keyed by run id, without loading them: what
    // lets a reader of many runs load them in batches of a bounded number of results.
    virtual std::unordered_map<std::int64_t, std::size_t> result_counts(
        std::span<const std::int64_t> run_ids) = 0;

    // Names of all projects with at least one run, sorted.
    virtual std::vector<std::string> projects() = 0;

    // Names of the machines with at least one run of `project`, sorted.
    virtual std::vector<std::string> machines(const std::string& project) = 0;

    // Names of the benchmarks with results in runs of `project` on any machine, each once,
    // sorted: what a name given on the command line is checked against.
    virtual std::vector<std::string> benchmark_names(const std::string& project) = 0;

    // The schema version the store is at.
    virtual int schema_version() = 0;

    // The id of the newest stored run, 0 when there is none. It grows with every run stored, so
    // a reader can tell cheaply whether anything was recorded since it last looked.
    virtual std::int64_t last_run_id() = 0;

    // The id of the newest run committed now, without waiting for runs still being committed as
    // last_run_id() may: cheap enough to ask many times a second, to tell whether asking
    // last_run_id() is worth it. 0 when there is none.
    virtual std::int64_t peek_last_run_id() { return last_run_id(); }

    // How many runs are stored: with last_run_id(), what tells a reader that kept the runs up to
    // an id whether any of them was deleted since.
    virtual std::int64_t run_count() = 0;

    // The value cache_calibration() stored under exactly `key`; std::nullopt when there is none.
    virtual std::optional<std::string> cached_calibration(const CalibrationKey& key) = 0;

    // Stores `value` under `key`, replacing the entry of the same project, machine and settings
    // (whatever its history), so that one entry is kept per settings and at most
    // kCachedCalibrationsPerMachine per project and machine. Waits at most kCacheWriteWait for
    // another writer; throws StoreError when the store cannot be written now (read-only,
    // locked, no privilege), which a cache may ignore.
    virtual void cache_calibration(const CalibrationKey& key, const std::string& value) = 0;
};

// What a command does with the store it opens.
enum class Access {
    // record, run, import, copy's target: the store is created when missing and migrated.
    ReadWrite,
    // history, serve without uploads, site, backtest, copy's source: the store must exist and is
    // opened read-only, so that a file or folder the user may only read works; an older schema
    // is migrated only when the store can be written, and is an error otherwise.
    ReadOnly,
    // compare: as ReadOnly, but opened for writing when the store can be written, so that the
    // calibration cache is kept where it can be (cache_calibration() throws where it cannot).
    ReadCache,
};

// Opens the store at `url`: a path, "sqlite:PATH", or a PostgreSQL URL ("postgres://…",
// "postgresql://…"). With Access::ReadWrite it is created if needed and migrated to the current
// schema; otherwise a store that does not exist (no SQLite file, or no benchwatch tables) is a
// StoreError: "no store at PATH; record a run first (benchwatch record) or pass --store".
// Throws StoreError when it cannot be opened or the URL's scheme is unsupported.
std::unique_ptr<Store> open_store(const std::string& url, Access access = Access::ReadWrite);

// The schema version this build creates and migrates to, the same for every backend.
int current_schema_version();

// The schema version of the store at `url` as it is, creating and changing nothing: 0 when the
// store does not exist yet or has no benchwatch tables. Throws StoreError as open_store() does.
int stored_schema_version(const std::string& url);

}  // namespace benchwatch::store
