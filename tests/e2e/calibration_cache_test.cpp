// What could break: `benchwatch compare` writing another report when its calibration comes from
// the store's cache than when it is computed (but for saying where it came from), using a cached
// calibration made from other runs or one outside what a calibration can produce, or failing (or
// waiting out the busy timeout) on a store it can read but not write: a read-only SQLite file, a
// PostgreSQL role that may only select, a store another process holds locked.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kHistoryRuns = 40;

// A noisy value near 1000 for run t of benchmark b, a one-run spike every 9th run.
double noisy(int b, int t) {
    const unsigned hash =
        (static_cast<unsigned>(t) * 2654435761u) ^ (static_cast<unsigned>(b) * 40503u);
    double value = 1000 * (1 + 0.03 * (static_cast<double>(hash % 2001) / 1000.0 - 1.0));
    if ((t + b) % 9 == 0) value *= 1.3;
    return value;
}

model::Run run_of(const std::string& commit, const std::string& branch, int t,
                  double b0_factor = 1.0) {
    model::Run run;
    run.project = "p";
    run.machine = "m";
    run.commit = commit;
    run.branch = branch;
    run.recorded_at_ms = 1'700'000'000'000 + t;
    run.format = "googlebenchmark";
    run.content_hash = commit + "-" + std::to_string(t);
    for (int b = 0; b < 5; ++b) {
        model::Result result;
        result.benchmark = "b" + std::to_string(b);
        result.value = noisy(b, t) * (b == 0 ? b0_factor : 1.0);
        run.results.push_back(result);
    }
    return run;
}

class CalibrationCacheTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto store = store::open_store(store_);
        for (int t = 0; t < kHistoryRuns; ++t)
            store->record(run_of("c" + std::to_string(t), "main", t));
        store->record(run_of("pr", "feature", kHistoryRuns, 1.25));
    }

    std::vector<std::string> compare_arguments(const std::string& url) const {
        return {"compare",
                "--store",
                url,
                "--project",
                "p",
                "--machine",
                "m",
                "--head",
                "pr",
                "--format",
                "json",
                "--repo",
                directory_.path().string()};
    }

    // The JSON report of `compare`, failing the test when it does not exit 0.
    std::string compare_json(const std::string& url, const std::vector<std::string>& prefix = {}) {
        auto argv = prefix;
        for (auto& argument : benchwatch_command(compare_arguments(url))) argv.push_back(argument);
        const auto output = run(argv, directory_.path(), without_ci_variables());
        EXPECT_EQ(output.exit_code, 0) << output.err;
        EXPECT_EQ(output.err, "");
        return output.out;
    }

    // The first column of the first row of `sql` on the test's store, as text.
    std::string query(const std::string& sql) const {
        if (stores_on_postgres()) return postgres_query_text(store_, sql);
        sqlite3* db = nullptr;
        sqlite3_stmt* statement = nullptr;
        std::string text;
        if (sqlite3_open_v2(store_.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
            sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK) {
            const int code = sqlite3_step(statement);
            if (code == SQLITE_ROW)
                text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
            else if (code != SQLITE_DONE)
                text = sqlite3_errmsg(db);
        } else {
            text = sqlite3_errmsg(db);
        }
        sqlite3_finalize(statement);
        sqlite3_close(db);
        return text;
    }

    std::string cached_rows() const { return query("SELECT count(*) FROM cached_calibrations"); }

    // Replaces the sensitivity of the one cached calibration with `sensitivity`.
    void plant_sensitivity(double sensitivity) const {
        auto cached = nlohmann::json::parse(query("SELECT value FROM cached_calibrations"));
        cached["sensitivity"] = sensitivity;
        query("UPDATE cached_calibrations SET value = '" + cached.dump() + "'");
    }

    // The report of the same compare on a fresh store of the same runs, where nothing is cached.
    std::string uncached_json() {
        const std::string url = test_store_url(directory_.path(), "uncached");
        auto store = store::open_store(url);
        auto source = store::open_store(store_);
        for (auto run : source->list_runs({})) {
            const std::int64_t id[] = {run.id};
            run.results = source->results(id).at(run.id);
            store->record(run);
        }
        return compare_json(url);
    }

    TemporaryDirectory directory_{"benchwatch-cache"};
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(CalibrationCacheTest, CachedCompareWritesTheSameReportByteForByte) {
    ASSERT_EQ(cached_rows(), "0");
    const std::string miss = compare_json(store_);
    ASSERT_EQ(cached_rows(), "1");
    EXPECT_NE(miss.find(R"("source": "calibrated")"), std::string::npos) << miss;
    const std::string value = query("SELECT value FROM cached_calibrations");
    // The hit says where its calibration came from, and nothing else differs.
    auto hit = nlohmann::json::parse(compare_json(store_));
    EXPECT_EQ(hit["calibration"]["from_cache"], true);
    hit["calibration"].erase("from_cache");
    EXPECT_EQ(hit, nlohmann::json::parse(miss));
    EXPECT_EQ(query("SELECT value FROM cached_calibrations"), value);
    EXPECT_EQ(uncached_json(), miss);
}

TEST_F(CalibrationCacheTest, TheReportSaysWhenTheSettingCameFromTheCache) {
    const auto markdown = [&] {
        auto argv = compare_arguments(store_);
        argv[argv.size() - 3] = "markdown";
        const auto output =
            run(benchwatch_command(argv), directory_.path(), without_ci_variables());
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return output.out;
    };
    const std::string said =
        "It was read from the store's cache, where an earlier compare of the same runs and "
        "settings kept it.";
    EXPECT_EQ(markdown().find(said), std::string::npos);
    EXPECT_NE(markdown().find(said), std::string::npos);
}

// A cached value that no calibration could give (a price of 1e6 calls every change too noisy)
// is ignored with a note in the report, calibrated again and replaced.
TEST_F(CalibrationCacheTest, ACachedValueOutsideWhatCalibrationProducesIsIgnored) {
    const std::string expected = compare_json(store_);
    plant_sensitivity(1e6);
    auto report = nlohmann::json::parse(compare_json(store_));
    EXPECT_EQ(report["calibration"]["cache_refusal"],
              "its sensitivity 1e+06 is outside 0.001 to 100000, the range calibration chooses "
              "from");
    report["calibration"].erase("cache_refusal");
    EXPECT_EQ(report, nlohmann::json::parse(expected));
    // Replaced by the one calibrated again: the next compare reads it from the cache.
    auto next = nlohmann::json::parse(compare_json(store_));
    EXPECT_EQ(next["calibration"]["from_cache"], true);
}

// A cached estimate of flukes that the cached price could not have come with (a price below the
// dearest is the cheapest whose estimate stays within the budget's margin), or a count of
// flukes that is no whole number over the pull requests replayed, is ignored with the reason,
// and calibrated again.
TEST_F(CalibrationCacheTest, CachedFlukesTheCalibrationCouldNotCountAreIgnored) {
    const std::string expected = compare_json(store_);
    const auto cached = nlohmann::json::parse(query("SELECT value FROM cached_calibrations"));
    ASSERT_EQ(cached["source"], "calibrated");
    const double budget = cached["budget"].get<double>();
    const double sensitivity = cached["sensitivity"].get<double>();
    const int pull_requests = cached["pull_requests"].get<int>();
    const std::vector<std::tuple<std::string, double, std::string>> plants = {
        {"expected_flukes_per_pr", 1e6,
         fmt::format("its 1e+06 expected flukes per pull request are over the {:g} its price "
                     "{:g} was chosen to keep within",
                     budget * 0.85, sensitivity)},
        {"flukes_per_pr", 0.5 / pull_requests,
         fmt::format("its {:g} flukes per pull request are no whole number of flukes over its {} "
                     "pull requests",
                     0.5 / pull_requests, pull_requests)},
        {"prior_weight", 0.5,
         fmt::format("its prior weighs 0.5, where {} pull requests leave it {:g}", pull_requests,
                     10.0 / (pull_requests + 10))},
    };
    for (const auto& [field, value, reason] : plants) {
        auto planted = cached;
        planted[field] = value;
        query("UPDATE cached_calibrations SET value = '" + planted.dump() + "'");
        auto report = nlohmann::json::parse(compare_json(store_));
        EXPECT_EQ(report["calibration"]["cache_refusal"], reason);
        report["calibration"].erase("cache_refusal");
        EXPECT_EQ(report, nlohmann::json::parse(expected));
    }
}

TEST_F(CalibrationCacheTest, CompareUsesTheCachedCalibrationOfItsRuns) {
    compare_json(store_);
    // A cached value that says otherwise is what a hit reports: the cache is read, not ignored.
    plant_sensitivity(7.25);
    EXPECT_NE(compare_json(store_).find(R"("sensitivity": 7.25)"), std::string::npos);

    // A new default-branch run is another history: calibrated again, and the entry replaced.
    store::open_store(store_)->record(run_of("c40", "main", kHistoryRuns + 1));
    const std::string after = compare_json(store_);
    EXPECT_EQ(after.find(R"("sensitivity": 7.25)"), std::string::npos);
    EXPECT_EQ(cached_rows(), "1");
    EXPECT_EQ(after, uncached_json());
}

TEST_F(CalibrationCacheTest, ReadOnlyStoreComparesAsAWritableOne) {
    const std::string expected = uncached_json();
    std::string url = store_;
    std::vector<std::string> prefix;
    if (stores_on_postgres()) {
        const std::string schema = store_.substr(store_.find("search_path%3D") + 14);
        ASSERT_EQ(postgres_query_text(store_, "GRANT USAGE ON SCHEMA " + schema +
                                                  " TO benchwatch_limited; GRANT SELECT ON ALL "
                                                  "TABLES IN SCHEMA " +
                                                  schema + " TO benchwatch_limited"),
                  "");
        const std::string owner = "postgresql://benchwatch@";
        ASSERT_TRUE(url.starts_with(owner)) << url;
        url = "postgresql://benchwatch_limited:limited@" + url.substr(owner.size());
    } else {
        fs::permissions(store_,
                        fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
        // Root writes whatever the file's mode: run compare as nobody instead, in a folder it
        // may create SQLite's shared-memory file in.
        if (geteuid() == 0) {
            fs::permissions(directory_.path(), fs::perms::all);
            prefix = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
        }
    }
    const std::string first = compare_json(url, prefix);
    EXPECT_EQ(first, expected) << unified_diff(expected, first);
    EXPECT_EQ(compare_json(url, prefix), expected);
    EXPECT_EQ(cached_rows(), "0");
}

TEST_F(CalibrationCacheTest, LockedStoreComparesWithoutWaitingForTheLock) {
    const std::string expected = uncached_json();
    std::unique_ptr<PGconn, decltype(&PQfinish)> pg_holder(nullptr, &PQfinish);
    sqlite3* sqlite_holder = nullptr;
    if (stores_on_postgres()) {
        pg_holder.reset(PQconnectdb(store_.c_str()));
        ASSERT_EQ(PQstatus(pg_holder.get()), CONNECTION_OK);
        for (const char* sql :
             {"BEGIN", "LOCK TABLE cached_calibrations IN SHARE ROW EXCLUSIVE MODE"}) {
            std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(pg_holder.get(), sql),
                                                                 &PQclear);
            ASSERT_EQ(PQresultStatus(result.get()), PGRES_COMMAND_OK) << sql;
        }
    } else {
        ASSERT_EQ(sqlite3_open(store_.c_str(), &sqlite_holder), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(sqlite_holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
                  SQLITE_OK);
    }

    const auto start = std::chrono::steady_clock::now();
    const std::string locked = compare_json(store_);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_EQ(locked, expected) << unified_diff(expected, locked);

    if (pg_holder) PQclear(PQexec(pg_holder.get(), "ROLLBACK"));
    if (sqlite_holder) {
        sqlite3_exec(sqlite_holder, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(sqlite_holder);
    }
    EXPECT_EQ(cached_rows(), "0");
    EXPECT_EQ(compare_json(store_), expected);
    EXPECT_EQ(cached_rows(), "1");
}

}  // namespace
}  // namespace benchwatch::testing
