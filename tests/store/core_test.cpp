// What could break: the checks every backend runs before writing a run (which problem is named
// when a run has several, two identities taken for one), the schema steps as each dialect
// spells them, or the order results come back in.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "store/store_core.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using testing::make_run;
using testing::time_result;

// The message check_storable() throws for `run`, or "" when it accepts it.
std::string refusal_of(const model::Run& run) {
    try {
        check_storable(run);
    } catch (const StoreDataError& error) {
        return error.what();
    }
    return "";
}

TEST(CheckStorableTest, AcceptsDistinctResults) {
    model::Run run = make_run("c1", "h1");
    model::Result other_unit = time_result("array/copy", 1.5);
    other_unit.unit = "us";
    run.results.push_back(other_unit);
    model::Result other_direction = time_result("array/copy", 1.5);
    other_direction.direction = model::Direction::BiggerIsBetter;
    run.results.push_back(other_direction);
    EXPECT_EQ(refusal_of(run), "");
}

TEST(CheckStorableTest, NamesTheFirstProblemInTheOrderOfTheResults) {
    model::Run run = make_run("c1", "h1");
    run.results.push_back(time_result("array/copy", 7.0));
    run.results.push_back(time_result("nan", std::nan("")));
    EXPECT_EQ(refusal_of(run),
              "benchmark \"array/copy\" has two results for metric time (ns, smaller)");

    run.results = {time_result("nan", std::nan("")), time_result("a", 1), time_result("a", 2)};
    EXPECT_EQ(refusal_of(run), "benchmark \"nan\" has the value NaN, which cannot be stored");
}

TEST(CheckStorableTest, NamesThatContainTheSeparatorAreNotTakenForOne) {
    model::Run run = make_run("c1", "h1");
    model::Result first = time_result("a b", 1.0);
    first.metric = "c";
    model::Result second = time_result("a", 2.0);
    second.metric = "b c";
    run.results = {first, second};
    EXPECT_EQ(refusal_of(run), "");
}

TEST(MigrationSqlTest, EachDialectSpellsItsOwnTypesAndNothingIsLeftUnspelt) {
    for (int step = 0; step < current_schema_version(); ++step) {
        for (const Dialect* dialect : {&kSqliteDialect, &kPostgresDialect}) {
            const std::string sql = migration_sql(step, *dialect);
            EXPECT_EQ(sql.find('{'), std::string::npos) << sql;
        }
    }
    EXPECT_NE(migration_sql(0, kSqliteDialect).find(") WITHOUT ROWID;"), std::string::npos);
    EXPECT_EQ(migration_sql(0, kPostgresDialect).find("WITHOUT ROWID"), std::string::npos);
    EXPECT_NE(migration_sql(0, kPostgresDialect).find("value DOUBLE PRECISION NOT NULL"),
              std::string::npos);
}

TEST(SortResultsTest, SortsByNameThenMetricThenUnitBytewise) {
    model::Result b = time_result("b", 1), a_time = time_result("a", 2),
                  a_alloc = time_result("a", 3), upper = time_result("B", 4);
    a_alloc.metric = "allocs";
    std::unordered_map<std::int64_t, std::vector<model::Result>> results{
        {1, {b, a_time, upper, a_alloc}}};
    sort_results(results);
    std::vector<std::string> order;
    for (const model::Result& result : results.at(1))
        order.push_back(result.benchmark + "/" + result.metric);
    EXPECT_EQ(order, (std::vector<std::string>{"B/time", "a/allocs", "a/time", "b/time"}));
}

TEST(SampleValuesTextTest, ReadsBackExactlyWhatItWrote) {
    const std::vector<double> values{1e-300, 0.1, 1.0 / 3.0, 20, 1.5e300};
    const std::string text = encode_sample_values(values);
    EXPECT_EQ(encode_sample_values(std::vector<double>{1.5, 20}), "1.5 20");
    EXPECT_EQ(decode_sample_values(text, "b"), values);
    EXPECT_EQ(decode_sample_values("", "b"), std::vector<double>{});
    // Written over a text that held a longer list: nothing of it is left.
    std::string reused = text;
    encode_sample_values(std::vector<double>{1.5, 20}, reused);
    EXPECT_EQ(reused, "1.5 20");
}

TEST(SampleValuesTextTest, AnythingElseIsAStoreDataErrorNamingTheBenchmark) {
    const std::string problem =
        "benchmark \"array/copy\" has sample values that are not a list of at most 64 numbers";
    for (const std::string text : {"1.5  2", "1.5,2", "1.5 x", " 1.5", "1.5 ", "nan", "1 inf"}) {
        try {
            decode_sample_values(text, "array/copy");
            ADD_FAILURE() << "accepted '" << text << "'";
        } catch (const StoreDataError& error) {
            EXPECT_EQ(error.what(), problem) << text;
        }
    }
    std::string many = "1";
    for (int i = 0; i < 64; ++i) many += " 1";
    EXPECT_THROW(decode_sample_values(many, "array/copy"), StoreDataError);
}

}  // namespace
}  // namespace benchwatch::store
