#include "store/store_core.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <tuple>
#include <unordered_set>

#include "model/printable.hpp"
#include "model/run_checks.hpp"
#include "model/sort_large.hpp"

namespace benchwatch::store {
namespace {

// Schema steps: step i takes a store from version i to i + 1, on every backend. Steps are only
// ever appended; a released step never changes what it creates. "{id}", "{bigint}", "{real}"
// and "{clustered}" stand for the dialect's spelling (Dialect), "{results_references}" for its
// statements of step 7; everything else is SQL that SQLite and PostgreSQL read alike.
constexpr std::array<std::string_view, 7> kMigrations = {
    // 1: runs, their environment, normalised benchmark names, and compact results.
    R"sql(
CREATE TABLE runs (
    id {id},
    project TEXT NOT NULL,
    machine TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    branch TEXT NOT NULL,
    pull_request {bigint},
    recorded_at_ms {bigint} NOT NULL,
    attempt INTEGER NOT NULL,
    format TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    UNIQUE (project, machine, commit_id, content_hash)
);
CREATE INDEX runs_by_branch ON runs (project, machine, branch);
CREATE INDEX runs_by_commit ON runs (commit_id);

CREATE TABLE environment (
    run_id {bigint} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
){clustered};

CREATE TABLE benchmarks (
    id {id},
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    metric TEXT NOT NULL,
    unit TEXT NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('smaller', 'bigger')),
    UNIQUE (project, name, metric, unit, direction)
);

CREATE TABLE results (
    run_id {bigint} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    benchmark_id {bigint} NOT NULL REFERENCES benchmarks (id),
    value {real} NOT NULL,
    allocations {real},
    memory {real},
    sample_count {bigint},
    sample_median {real},
    sample_mean {real},
    sample_stddev {real},
    PRIMARY KEY (run_id, benchmark_id)
){clustered};
)sql",
    // 2: the stability warnings of each run, in the order they were found.
    R"sql(
CREATE TABLE run_warnings (
    run_id {bigint} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
){clustered};
)sql",
    // 3: the CPU time of whole-process (latency) benchmarks.
    R"sql(
ALTER TABLE results ADD COLUMN user_time {real};
ALTER TABLE results ADD COLUMN system_time {real};
)sql",
    // 4: what is known of each commit (message, author, time, link), and garbage-collection time.
    R"sql(
CREATE TABLE commits (
    project TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    message TEXT NOT NULL,
    author TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    url TEXT NOT NULL,
    PRIMARY KEY (project, commit_id)
){clustered};
ALTER TABLE results ADD COLUMN gc_time {real};
)sql",
    // 5: calibrations cached between compares, one per project, machine and settings; `written`
    // orders them by when they were last written.
    R"sql(
CREATE TABLE cached_calibrations (
    project TEXT NOT NULL,
    machine TEXT NOT NULL,
    settings TEXT NOT NULL,
    history TEXT NOT NULL,
    value TEXT NOT NULL,
    written {bigint} NOT NULL,
    PRIMARY KEY (project, machine, settings)
){clustered};
)sql",
    // 6: the samples behind each result, or evenly spaced order statistics of them, so that a
    // comparison of two stored runs can judge the spread of each median from the samples.
    R"sql(
ALTER TABLE results ADD COLUMN sample_values TEXT;
)sql",
    // 7: on PostgreSQL, results' references checked per statement instead of per row
    // (Dialect::results_references); nothing on SQLite.
    "{results_references}",
};

}  // namespace

int current_schema_version() {
    return static_cast<int>(kMigrations.size());
}

std::string migration_sql(int step, const Dialect& dialect) {
    const std::string_view text = kMigrations.at(static_cast<std::size_t>(step));
    const std::array<std::pair<std::string_view, std::string_view>, 5> spellings = {{
        {"{results_references}", dialect.results_references},
        {"{id}", dialect.id},
        {"{bigint}", dialect.bigint},
        {"{real}", dialect.real},
        {"{clustered}", dialect.clustered},
    }};
    std::string sql;
    sql.reserve(text.size() + 256);
    for (std::size_t at = 0; at < text.size();) {
        const auto spelling = std::find_if(spellings.begin(), spellings.end(), [&](const auto& s) {
            return text.substr(at).starts_with(s.first);
        });
        if (spelling == spellings.end()) {
            sql += text[at++];
        } else {
            sql += spelling->second;
            at += spelling->first.size();
        }
    }
    return sql;
}

void refuse_newer_schema(std::string_view store, int version) {
    const int known = current_schema_version();
    if (version > known)
        throw StoreError(fmt::format(
            "store {} has schema version {}, newer than this benchwatch ({}); upgrade benchwatch",
            store, version, known));
}

StoreError no_store_error(std::string_view store) {
    return StoreError(fmt::format(
        "no store at {}; record a run first (benchwatch record) or pass --store", store));
}

std::string migrating_operation() {
    return fmt::format("migrating to schema version {}", current_schema_version());
}

RecordOutcome CoreStore::record(const model::Run& run) {
    // The commit may be anything here: shown on one line and cut, as any outside text.
    const std::string operation =
        fmt::format("recording the run of commit {}",
                    model::printable_line(std::string_view(run.commit).substr(0, 80)));
    return guarded(operation, [&] {
        check_storable(run);
        return insert_runs(std::span<const model::Run>(&run, 1)).front();
    });
}

std::vector<RecordOutcome> CoreStore::record_all(std::span<const model::Run> runs) {
    return guarded(fmt::format("recording {} runs", runs.size()), [&] {
        for (const model::Run& run : runs) check_storable(run);
        return insert_runs(runs);
    });
}

std::vector<model::Run> CoreStore::list_runs(const RunFilter& filter) {
    return guarded("listing runs", [&] { return select_runs(filter); });
}

std::unordered_map<std::int64_t, std::vector<model::Result>> CoreStore::results(
    std::span<const std::int64_t> run_ids) {
    return guarded("reading results", [&] { return select_results(run_ids); });
}

ResultValues CoreStore::result_values(std::span<const std::int64_t> run_ids,
                                      const std::function<bool(std::int64_t)>& known) {
    return guarded("reading results", [&] { return select_result_values(run_ids, known); });
}

std::unordered_map<std::int64_t, std::size_t> CoreStore::result_counts(
    std::span<const std::int64_t> run_ids) {
    return guarded("counting results", [&] { return count_results(run_ids); });
}

std::vector<std::string> CoreStore::projects() {
    return guarded("listing projects", [&] { return select_projects(); });
}

std::vector<std::string> CoreStore::machines(const std::string& project) {
    return guarded("listing machines", [&] { return select_machines(project); });
}

std::vector<std::string> CoreStore::benchmark_names(const std::string& project) {
    return guarded("listing benchmarks", [&] { return select_benchmark_names(project); });
}

int CoreStore::schema_version() {
    return guarded("reading the schema version", [&] { return read_schema_version(); });
}

std::int64_t CoreStore::last_run_id() {
    return guarded("reading the newest run", [&] { return select_last_run_id(); });
}

std::int64_t CoreStore::peek_last_run_id() {
    return guarded("reading the newest run", [&] { return select_peek_last_run_id(); });
}

std::int64_t CoreStore::run_count() {
    return guarded("counting runs", [&] { return count_runs(); });
}

std::optional<std::string> CoreStore::cached_calibration(const CalibrationKey& key) {
    return guarded("reading a cached calibration", [&] { return select_cached_calibration(key); });
}

StoreError CoreStore::data_error(std::string_view operation, const StoreDataError& problem) const {
    return StoreError(fmt::format("store {}: {}: {}", shown_name(), operation, problem.what()));
}

void check_storable(const model::Run& run) {
    // Each result's identity as one string, its parts joined by NUL, which PostgreSQL refuses in
    // text and no benchmark format writes in a name, so that names with other separators
    // ("a\nb") are not taken for one. The strings keep the length that copy's peak memory was
    // measured with: a longer key or a sorted vector of positions instead made copying 8 runs
    // of 40,000 results into PostgreSQL peak 10 MB higher (glibc's heap, not the data).
    // The problem reported is the first that a walk through the results in order meets.
    std::unordered_set<std::string> seen;
    for (const model::Result& result : run.results) {
        if (std::isnan(result.value))
            throw StoreDataError(fmt::format(
                "benchmark \"{}\" has the value NaN, which cannot be stored", result.benchmark));
        const std::string_view direction = model::to_string(result.direction);
        std::string identity;
        identity.reserve(result.benchmark.size() + result.metric.size() + result.unit.size() +
                         direction.size() + 3);
        identity.append(result.benchmark).append(1, '\0').append(result.metric).append(1, '\0');
        identity.append(result.unit).append(1, '\0').append(direction);
        if (!seen.insert(std::move(identity)).second)
            throw StoreDataError(
                fmt::format("benchmark \"{}\" has two results for metric {} ({}, {})",
                            result.benchmark, result.metric, result.unit, direction));
    }
    // The last line behind every way in, which all check this already: no name or value that
    // record would refuse is written, whatever calls the store.
    if (auto problem = model::run_names_problem(run.project, run.machine, run.branch, "the run"))
        throw StoreDataError(*problem);
    if (auto problem = model::results_problem(run.results, "the run"))
        throw StoreDataError(*problem);
}

model::Direction stored_direction(const std::string& benchmark, const std::string& text) {
    const std::optional<model::Direction> direction = model::parse_direction(text);
    if (!direction)
        throw StoreDataError(
            fmt::format("benchmark \"{}\" has unknown direction \"{}\"", benchmark, text));
    return *direction;
}

std::string encode_sample_values(std::span<const double> values) {
    std::string text;
    encode_sample_values(values, text);
    return text;
}

void encode_sample_values(std::span<const double> values, std::string& text) {
    text.clear();
    for (const double value : values) {
        if (!text.empty()) text += ' ';
        fmt::format_to(std::back_inserter(text), "{}", value);
    }
}

std::vector<double> decode_sample_values(std::string_view text, const std::string& benchmark) {
    const auto not_a_list = [&] {
        return StoreDataError(fmt::format(
            "benchmark \"{}\" has sample values that are not a list of at most {} numbers",
            benchmark, model::kKeptSampleValues));
    };
    std::vector<double> values;
    const char* at = text.data();
    const char* const end = text.data() + text.size();
    while (at < end) {
        if (!values.empty() && *at++ != ' ') throw not_a_list();
        double value = 0;
        const auto [next, error] = std::from_chars(at, end, value);
        if (error != std::errc() || !std::isfinite(value)) throw not_a_list();
        values.push_back(value);
        at = next;
    }
    if (values.size() > model::kKeptSampleValues) throw not_a_list();
    return values;
}

void sort_results(std::unordered_map<std::int64_t, std::vector<model::Result>>& results_by_run) {
    const auto by_name = [](const model::Result& a, const model::Result& b) {
        return std::tie(a.benchmark, a.metric, a.unit) < std::tie(b.benchmark, b.metric, b.unit);
    };
    for (auto& [id, results] : results_by_run) model::sort_large(results, by_name);
}

}  // namespace benchwatch::store
