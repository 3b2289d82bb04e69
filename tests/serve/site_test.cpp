// What could break: a site that still reads from the API, a series file missing or named
// differently from what the page asks for, a user's folder overwritten, or stale files kept.

#include "serve/site.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sample_history.hpp"
#include "serve/api.hpp"
#include "serve/assets.hpp"
#include "store/store.hpp"

namespace benchwatch::serve {
namespace {

namespace fs = std::filesystem;
using benchwatch::testing::read_text;
using benchwatch::testing::write_text;

class SiteTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto store = store::open_store((directory_.path() / "history.db").string());
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
        const CommitLiterals literals = commit_literals(machine);
        for (const BenchmarkSeries& series : machine.benchmarks) {
            EXPECT_EQ(read_text(folder / "series" / (series.id + ".json")),
                      series_json(machine, literals, series, {}));
            ++series_files;
        }
    }
    EXPECT_EQ(series_files, 4u);  // 3 on m1, 1 on m2
    // The assets, projects.json, 2 benchmarks.json and 4 series.
    EXPECT_EQ(summary.files, embedded_assets().size() + 1 + 2 + 4);
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
    EXPECT_EQ(entries, 2u);  // history.db and site
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
                                   " is not empty and holds no benchwatch site (index.html and "
                                   "data/projects.json); pass a new or empty folder");
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
