// What could break: the SQLite and PostgreSQL stores drifting apart, because a schema step spells
// a column, key or index differently for one of them than for the other.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "store/store.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using SchemaTest = testing::BackendTest;

// One line per column (name, type as integer, real or text, whether it may be NULL), primary key,
// unique constraint, foreign key and index of the store's tables, sorted bytewise. SQLite's
// INTEGER PRIMARY KEY counts as NOT NULL, which it is in effect.
constexpr const char* kDescribeSqlite = R"sql(
WITH tables(name) AS (
    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'
), facts(fact) AS (
    SELECT 'column ' || t.name || '.' || c.name || ' ' || lower(c.type) ||
           CASE WHEN c."notnull" OR c.pk > 0 THEN ' not null' ELSE '' END
    FROM tables AS t, pragma_table_info(t.name) AS c
    UNION ALL
    SELECT 'primary key ' || t.name || ' (' ||
           (SELECT group_concat(name, ', ') FROM
               (SELECT name FROM pragma_table_info(t.name) WHERE pk > 0 ORDER BY pk)) || ')'
    FROM tables AS t
    UNION ALL
    SELECT CASE i.origin WHEN 'u' THEN 'unique ' || t.name
                         ELSE 'index ' || i.name || ' on ' || t.name END || ' (' ||
           (SELECT group_concat(name, ', ') FROM
               (SELECT name FROM pragma_index_info(i.name) ORDER BY seqno)) || ')'
    FROM tables AS t, pragma_index_list(t.name) AS i WHERE i.origin IN ('u', 'c')
    UNION ALL
    SELECT 'foreign key ' || t.name || ' (' || f."from" || ') references ' || f."table" || ' (' ||
           f."to" || ') on delete ' || lower(f.on_delete)
    FROM tables AS t, pragma_foreign_key_list(t.name) AS f
    UNION ALL
    SELECT 'trigger ' || name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'trigger'
)
SELECT group_concat(fact, char(10)) FROM (SELECT fact FROM facts ORDER BY fact)
)sql";

// The same description from PostgreSQL's catalogue, of the tables in the first schema of the
// search path, leaving out schema_version, which holds there what SQLite keeps in its header.
constexpr const char* kDescribePostgres = R"sql(
WITH facts(fact) AS (
    SELECT 'column ' || c.table_name || '.' || c.column_name || ' ' ||
           CASE c.data_type WHEN 'bigint' THEN 'integer' WHEN 'double precision' THEN 'real'
                            ELSE c.data_type END ||
           CASE WHEN c.is_nullable = 'NO' THEN ' not null' ELSE '' END
    FROM information_schema.columns AS c
    WHERE c.table_schema = current_schema() AND c.table_name <> 'schema_version'
    UNION ALL
    SELECT CASE k.contype WHEN 'p' THEN 'primary key ' ELSE 'unique ' END ||
           k.conrelid::regclass::text || ' (' ||
           (SELECT string_agg(a.attname, ', ' ORDER BY u.n)
            FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, n)
            JOIN pg_attribute AS a ON a.attrelid = k.conrelid AND a.attnum = u.attnum) || ')'
    FROM pg_constraint AS k
    WHERE k.connamespace = current_schema()::regnamespace AND k.contype IN ('p', 'u')
    UNION ALL
    SELECT 'foreign key ' || k.conrelid::regclass::text || ' (' || a.attname || ') references ' ||
           k.confrelid::regclass::text || ' (' || fa.attname || ') on delete ' ||
           CASE k.confdeltype WHEN 'c' THEN 'cascade' WHEN 'a' THEN 'no action'
                              ELSE k.confdeltype::text END
    FROM pg_constraint AS k
    JOIN pg_attribute AS a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
    JOIN pg_attribute AS fa ON fa.attrelid = k.confrelid AND fa.attnum = k.confkey[1]
    WHERE k.connamespace = current_schema()::regnamespace AND k.contype = 'f'
    UNION ALL
    SELECT 'index ' || ic.relname || ' on ' || tc.relname || ' (' ||
           (SELECT string_agg(a.attname, ', ' ORDER BY u.n)
            FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS u(attnum, n)
            JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = u.attnum) || ')'
    FROM pg_index AS i
    JOIN pg_class AS ic ON ic.oid = i.indexrelid
    JOIN pg_class AS tc ON tc.oid = i.indrelid
    WHERE tc.relnamespace = current_schema()::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conindid = i.indexrelid)
    UNION ALL
    SELECT 'trigger ' || t.tgname || ' on ' || c.relname
    FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
)
SELECT string_agg(fact, E'\n' ORDER BY fact COLLATE "C") FROM facts
)sql";

// The schema at current_schema_version(), as both descriptions spell it, but for the references
// of `results` (kPostgresOnly). A new schema step changes this text, the same for both backends.
constexpr const char* kCurrentSchema = R"(column benchmarks.direction text not null
column benchmarks.id integer not null
column benchmarks.metric text not null
column benchmarks.name text not null
column benchmarks.project text not null
column benchmarks.unit text not null
column cached_calibrations.history text not null
column cached_calibrations.machine text not null
column cached_calibrations.project text not null
column cached_calibrations.settings text not null
column cached_calibrations.value text not null
column cached_calibrations.written integer not null
column commits.author text not null
column commits.commit_id text not null
column commits.message text not null
column commits.project text not null
column commits.timestamp text not null
column commits.url text not null
column environment.key text not null
column environment.run_id integer not null
column environment.value text not null
column results.allocations real
column results.benchmark_id integer not null
column results.gc_time real
column results.memory real
column results.run_id integer not null
column results.sample_count integer
column results.sample_mean real
column results.sample_median real
column results.sample_stddev real
column results.sample_values text
column results.system_time real
column results.user_time real
column results.value real not null
column run_warnings.kind text not null
column run_warnings.message text not null
column run_warnings.position integer not null
column run_warnings.run_id integer not null
column runs.attempt integer not null
column runs.branch text not null
column runs.commit_id text not null
column runs.content_hash text not null
column runs.format text not null
column runs.id integer not null
column runs.machine text not null
column runs.project text not null
column runs.pull_request integer
column runs.recorded_at_ms integer not null
foreign key environment (run_id) references runs (id) on delete cascade
foreign key results (benchmark_id) references benchmarks (id) on delete no action
foreign key results (run_id) references runs (id) on delete cascade
foreign key run_warnings (run_id) references runs (id) on delete cascade
index runs_by_branch on runs (project, machine, branch)
index runs_by_commit on runs (commit_id)
primary key benchmarks (id)
primary key cached_calibrations (project, machine, settings)
primary key commits (project, commit_id)
primary key environment (run_id, key)
primary key results (run_id, benchmark_id)
primary key run_warnings (run_id, position)
primary key runs (id)
unique benchmarks (project, name, metric, unit, direction)
unique runs (project, machine, commit_id, content_hash))";

// The one deliberate difference: PostgreSQL keeps the references of `results` with a trigger per
// statement on the tables they point to instead of two foreign keys checked per row.
constexpr const char* kSqliteOnly =
    R"(foreign key results (benchmark_id) references benchmarks (id) on delete no action
foreign key results (run_id) references runs (id) on delete cascade
)";
constexpr const char* kPostgresOnly = R"(trigger results_keep_their_benchmarks on benchmarks
trigger results_of_deleted_runs on runs
)";

// kCurrentSchema as `backend` spells it: with kSqliteOnly's lines, or kPostgresOnly's in their
// place, sorted bytewise as the descriptions are.
std::string expected_schema(testing::Backend backend) {
    std::string schema = std::string(kCurrentSchema) + "\n";
    const std::string sqlite_only = kSqliteOnly;
    const std::size_t at = schema.find(sqlite_only);
    if (at == std::string::npos) return "kSqliteOnly is not in kCurrentSchema";
    if (backend == testing::Backend::Postgres)
        schema.replace(at, sqlite_only.size(), kPostgresOnly);
    std::vector<std::string> lines;
    std::istringstream in(schema);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    std::string sorted;
    for (const std::string& line : lines) sorted += (sorted.empty() ? "" : "\n") + line;
    return sorted;
}

TEST_P(SchemaTest, EveryBackendReachesTheSameTablesColumnsKeysAndIndexes) {
    auto store = open();
    ASSERT_EQ(store->schema_version(), current_schema_version());
    EXPECT_EQ(
        query_text(GetParam() == testing::Backend::Sqlite ? kDescribeSqlite : kDescribePostgres),
        expected_schema(GetParam()));
}

BENCHWATCH_ON_EVERY_BACKEND(SchemaTest);

}  // namespace
}  // namespace benchwatch::store
