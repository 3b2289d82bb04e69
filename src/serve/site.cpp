#include "serve/site.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <string_view>
#include <system_error>

#include "serve/api.hpp"
#include "serve/assets.hpp"

namespace benchwatch::serve {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view api_source = R"(<meta name="benchwatch-data" content="api">)";
constexpr std::string_view static_source = R"(<meta name="benchwatch-data" content="static">)";

class SiteWriter {
  public:
    explicit SiteWriter(fs::path root) : root_(std::move(root)) {}

    void write(const fs::path& relative, std::string_view bytes) {
        const fs::path path = root_ / relative;
        fs::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (!out)
            throw SiteError(
                fmt::format("cannot write {}; check that its folder is writable and "
                            "the disk has room",
                            path.string()));
        ++summary_.files;
        summary_.bytes += bytes.size();
    }

    const SiteSummary& summary() const { return summary_; }

  private:
    fs::path root_;
    SiteSummary summary_;
};

// Whether `folder` is a site benchwatch wrote: it holds the marker file write_site() leaves.
// An index.html and a data/projects.json are not enough: they could be the user's own, beside
// files the replacement would delete.
bool is_site(const fs::path& folder) {
    std::error_code error;
    return fs::symlink_status(folder / site_marker_file, error).type() == fs::file_type::regular;
}

void write_everything(const Dashboard& dashboard, SiteWriter& writer) {
    for (const Asset& asset : embedded_assets()) {
        if (asset.path != "index.html") {
            writer.write(fs::path(asset.path), asset.bytes);
            continue;
        }
        std::string page(asset.bytes);
        const auto marker = page.find(api_source);
        if (marker == std::string::npos)
            throw SiteError(
                "the embedded index.html has no benchwatch-data marker; rebuild "
                "benchwatch");
        page.replace(marker, api_source.size(), static_source);
        if (!dashboard.projects.empty()) {
            const ProjectHistory& project = dashboard.projects.front();
            const MachineHistory& machine = *project.find_machine("");
            page =
                page_with_data(page, page_data_json(project, machine, projects_json(dashboard),
                                                    benchmarks_json(dashboard, project, machine)));
        }
        writer.write("index.html", page);
    }
    writer.write("data/projects.json", projects_json(dashboard));
    writer.write(site_marker_file,
                 "This folder was written by `benchwatch site`, which replaces it whole when it "
                 "writes the site again.\n");
    for (const auto& project : dashboard.projects) {
        for (const auto& machine : project.machines) {
            const fs::path folder = fs::path("data") / project.id / machine.id;
            writer.write(folder / "commits.json", commits_json(machine, commit_literals(machine)));
            writer.write(folder / "benchmarks.json", benchmarks_json(dashboard, project, machine));
            for (const auto& series : machine.benchmarks)
                writer.write(folder / "series" / (series.id + ".json"),
                             static_series_json(machine, series));
        }
    }
}

// `folder` as the file system resolves it: absolute, every symbolic link and ".." of the part
// that exists followed as the kernel follows them, the rest normalised. "link/../site" is the
// "site" beside the link's target, not beside the link. Throws SiteError when it cannot be
// resolved (a link loop, a folder that may not be read).
fs::path resolved_folder(const fs::path& folder) {
    std::error_code error;
    fs::path resolved = fs::weakly_canonical(fs::absolute(folder), error);
    if (error)
        throw SiteError(
            fmt::format("cannot resolve {}: {}; pass a folder whose parents exist "
                        "and can be read",
                        folder.string(), error.message()));
    if (!resolved.has_filename()) resolved = resolved.parent_path();
    return resolved;
}

}  // namespace

SiteSummary write_site(const Dashboard& dashboard, const fs::path& folder) {
    // The one path both checked and replaced, so that a link in `folder` cannot make the check
    // read one folder and the replacement remove another.
    const fs::path target = resolved_folder(folder);
    std::error_code error;
    const bool exists = fs::exists(target, error);
    if (exists && !fs::is_directory(target, error))
        throw SiteError(
            fmt::format("{} is a file, not a folder; pass a folder for the site", folder.string()));
    if (exists && !fs::is_empty(target, error) && !is_site(target))
        throw SiteError(
            fmt::format("{} is not empty and was not written by benchwatch site (it has no {} "
                        "file); pass a new or empty folder, or empty this one first",
                        folder.string(), site_marker_file));

    const fs::path parent = target.parent_path();
    const std::string name = target.filename().string();
    const fs::path building = parent / fmt::format(".{}.building.{}", name, getpid());
    const fs::path previous = parent / fmt::format(".{}.previous.{}", name, getpid());
    fs::create_directories(parent, error);
    fs::remove_all(building, error);
    SiteWriter writer(building);
    try {
        fs::create_directory(building);
        write_everything(dashboard, writer);
        if (fs::exists(target)) fs::rename(target, previous);
        fs::rename(building, target);
    } catch (const fs::filesystem_error& failure) {
        fs::remove_all(building, error);
        if (!fs::exists(target, error) && fs::exists(previous, error))
            fs::rename(previous, target, error);
        throw SiteError(
            fmt::format("cannot write the site into {}: {}; check that the folder "
                        "and its parent are writable",
                        folder.string(), failure.code().message()));
    } catch (...) {
        fs::remove_all(building, error);
        throw;
    }
    fs::remove_all(previous, error);
    return writer.summary();
}

}  // namespace benchwatch::serve
