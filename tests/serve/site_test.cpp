// What could break: a site that still reads from the API, a series file missing or named
// differently from what the page asks for, a user's folder overwritten (also one that merely
// holds an index.html and a data/projects.json of its own), or stale files kept.

#include "serve/site.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sample_history.hpp"
#include "serve/api.hpp"
#include "serve/assets.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"

namespace benchwatch::serve {
namespace {

namespace fs = std::filesystem;
using benchwatch::testing::read_text;
using benchwatch::testing::write_text;
using nlohmann::json;

class SiteTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto store = store::open_store(benchwatch::testing::test_store_url(directory_.path()));
        testing::record_sample_history(*store);
        dashboard_ = load_dashboard(*store, nullptr, {});
    }

    std::string message_of(const fs::path& folder) {
        try {
            write_site(dashboard_, folder);
        } catch (const SiteError& error) {
            return error.what();
        }
        return "written";
    }

    benchwatch::testing::TemporaryDirectory directory_{"benchwatch-site"};
    Dashboard dashboard_;
};

TEST_F(SiteTest, PageReadsStaticDataAndEveryFileIsWhereThePageLooks) {
    const fs::path out = directory_.path() / "site";
    const SiteSummary summary = write_site(dashboard_, out);

    const std::string page = read_text(out / "index.html");
    EXPECT_NE(page.find(R"(<meta name="benchwatch-data" content="static">)"), std::string::npos);
    EXPECT_EQ(page.find(R"(content="api")"), std::string::npos);
    for (const Asset& asset : embedded_assets()) {
        if (asset.path == "index.html") continue;
        EXPECT_EQ(read_text(out / fs::path(asset.path)), asset.bytes) << asset.path;
    }

    EXPECT_EQ(read_text(out / "data/projects.json"), projects_json(dashboard_));
    const ProjectHistory& project = dashboard_.projects[0];
    std::size_t series_files = 0;
    for (const MachineHistory& machine : project.machines) {
        const fs::path folder = out / "data" / project.id / machine.id;
        EXPECT_EQ(read_text(folder / "benchmarks.json"),
                  benchmarks_json(dashboard_, project, machine));
        EXPECT_EQ(read_text(folder / "commits.json"),
                  commits_json(machine, commit_literals(machine)));
        for (const BenchmarkSeries& series : machine.benchmarks) {
            EXPECT_EQ(read_text(folder / "series" / (series.id + ".json")),
                      static_series_json(machine, series));
            ++series_files;
        }
    }
    EXPECT_EQ(series_files, 4u);  // 3 on m1, 1 on m2
    EXPECT_TRUE(fs::is_regular_file(out / ".benchwatch-site"));
    // The assets, projects.json, the marker, 2 benchmarks.json, 2 commits.json and 4 series.
    EXPECT_EQ(summary.files, embedded_assets().size() + 1 + 1 + 2 + 2 + 4);
}

TEST_F(SiteTest, SeriesPointToTheirCommitsByPosition) {
    const MachineHistory& m1 = *dashboard_.projects[0].find_machine("m1");
    const json commits = json::parse(commits_json(m1, commit_literals(m1)));
    EXPECT_EQ(commits["commit"].size(), 10u);
    EXPECT_EQ(commits["commit"][8], "c09");
    EXPECT_EQ(commits["subject"][0], "Fix it");
    EXPECT_EQ(commits["author"][0], "Ann");
    EXPECT_EQ(commits["url"][0], "");
    EXPECT_EQ(commits["time"][3], testing::start_ms + 3 * testing::hour_ms + 1);  // 1 ms after c03
    // latency/x ran at c01…c09: positions 0…8 of commits.json.
    const json series =
        json::parse(static_series_json(m1, *m1.find_benchmark(stable_id("latency/x"))));
    EXPECT_EQ(series["index"], json({0, 1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(series["value"], json({50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0}));
    EXPECT_EQ(series["total"], 9);
    EXPECT_EQ(series["name"], "latency/x");
    EXPECT_FALSE(series.contains("commit"));
}

TEST_F(SiteTest, RewritingASiteReplacesItWhole) {
    const fs::path out = directory_.path() / "site";
    write_site(dashboard_, out);
    write_text(out / "data/stale.json", "{}");
    write_site(dashboard_, out);
    EXPECT_FALSE(fs::exists(out / "data/stale.json"));
    EXPECT_TRUE(fs::exists(out / "data/projects.json"));
    // Nothing is left beside it.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(directory_.path())) ++entries;
    // history.db and site; a PostgreSQL store leaves no file.
    EXPECT_EQ(entries, benchwatch::testing::stores_on_postgres() ? 1u : 2u);
}

TEST_F(SiteTest, EmptyFolderIsUsed) {
    const fs::path out = directory_.path() / "empty";
    fs::create_directory(out);
    EXPECT_EQ(message_of(out), "written");
    EXPECT_TRUE(fs::exists(out / "index.html"));
}

TEST_F(SiteTest, FolderWithOtherFilesIsRefusedAndKept) {
    const fs::path out = directory_.path() / "mine";
    write_text(out / "notes.txt", "keep me");
    EXPECT_EQ(message_of(out), out.string() +
                                   " is not empty and was not written by benchwatch site (it has "
                                   "no .benchwatch-site file); pass a new or empty folder, or "
                                   "empty this one first");
    EXPECT_EQ(read_text(out / "notes.txt"), "keep me");
}

TEST_F(SiteTest, FolderThatOnlyLooksLikeASiteIsRefusedAndKept) {
    const fs::path out = directory_.path() / "lookalike";
    write_text(out / "index.html", "<p>my page</p>");
    write_text(out / "data/projects.json", "{}");
    write_text(out / "notes.txt", "keep me");
    EXPECT_EQ(message_of(out), out.string() +
                                   " is not empty and was not written by benchwatch site (it has "
                                   "no .benchwatch-site file); pass a new or empty folder, or "
                                   "empty this one first");
    EXPECT_EQ(read_text(out / "index.html"), "<p>my page</p>");
    EXPECT_EQ(read_text(out / "notes.txt"), "keep me");
}

TEST_F(SiteTest, FileIsRefused) {
    const fs::path out = directory_.path() / "file";
    write_text(out, "x");
    EXPECT_EQ(message_of(out),
              out.string() + " is a file, not a folder; pass a folder for the site");
}

}  // namespace
}  // namespace benchwatch::serve
