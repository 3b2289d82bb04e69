#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "serve/dashboard.hpp"

namespace benchwatch::serve {

// One HTTP answer.
struct Response {
    Response() = default;
    Response(int status_code, std::string type, std::string text,
             std::shared_ptr<const std::string> gzipped_text = nullptr)
        : status(status_code),
          content_type(std::move(type)),
          body(std::move(text)),
          gzipped(std::move(gzipped_text)) {}

    int status = 200;
    std::string content_type = "application/json; charset=utf-8";
    std::string body;
    std::shared_ptr<const std::string> gzipped;  // gzip(body) made once beforehand; may be null
};

// `data` as one gzip member (RFC 1952) at zlib's default level.
std::string gzip(std::string_view data);

// A request's query parameters, percent-decoded.
using Parameters = std::multimap<std::string, std::string>;

// Answers /api/v1/projects/P/pulls/COMMIT: the comparison of COMMIT on MACHINE as `compare
// --format json` prints it, or an error response.
using PullComparer = std::function<Response(const std::string& project, const std::string& machine,
                                            const std::string& commit)>;

// Which part of a series to send.
struct SeriesRange {
    std::optional<std::int64_t> from_ms;  // keep points with time ≥ from
    std::optional<std::int64_t> to_ms;    // keep points with time ≤ to
    std::optional<std::size_t> points;  // at most this many (≥ 2), by stats::downsample_extremes
};

// The JSON of GET /api/v1/projects (docs/dashboard.md).
std::string projects_json(const Dashboard& dashboard);

// The JSON of GET /api/v1/projects/P/benchmarks?machine=M.
std::string benchmarks_json(const Dashboard& dashboard, const ProjectHistory& project,
                            const MachineHistory& machine);

// Each commit's hash, subject, author and URL of one machine as JSON string literals, quoted and
// escaped once, so that series replies are assembled without escaping the same text again.
struct CommitLiterals {
    std::vector<std::string> commit;
    std::vector<std::string> subject;
    std::vector<std::string> author;
    std::vector<std::string> url;
};

// The literals of every commit of `machine`, parallel to machine.commits.
CommitLiterals commit_literals(const MachineHistory& machine);

// The JSON of GET /api/v1/projects/P/series/ID?machine=M with the range's parameters;
// `literals` are commit_literals(machine).
std::string series_json(const MachineHistory& machine, const CommitLiterals& literals,
                        const BenchmarkSeries& series, const SeriesRange& range);

// The static site's commits.json of one machine: its commits' time, hash, subject, author and
// URL as parallel arrays, oldest first.
std::string commits_json(const MachineHistory& machine, const CommitLiterals& literals);

// The static site's series file: the fields of series_json() without a range, but instead of
// the commits' arrays "index", each point's position in commits.json.
std::string static_series_json(const MachineHistory& machine, const BenchmarkSeries& series);

// The line of the page (web/src/index.html) that page_with_data() fills with a page's data.
inline constexpr std::string_view page_data_placeholder =
    R"(<script id="benchwatch-initial" type="application/json">null</script>)";

// What the page for `project` on `machine` draws its first screen from without asking for more:
// {"projects", "project", "machine", "benchmarks", "commits", "series"}: `projects` and
// `benchmarks` (projects_json() and benchmarks_json()), the benchmarks' series in the page's
// order until they hold 20,000 points (each downsampled to at most 1,000 points, as the static
// site's series files with "index" into "commits", which holds only the commits they use), as
// JSON that an HTML <script> element can hold: <, > and & are written \u003c, \u003e, \u0026.
std::string page_data_json(const ProjectHistory& project, const MachineHistory& machine,
                           std::string_view projects, std::string_view benchmarks);

// `page` with its page_data_placeholder line holding `data` (from page_data_json()) instead of
// null; `page` unchanged when it has no such line.
std::string page_with_data(std::string_view page, std::string_view data);

// A JSON error answer: {"error": message}.
Response error_response(int status, const std::string& message);

// The dashboard with the answers that do not depend on parameters rendered once, so that many
// clients can read it at once without work; immutable after construction.
class ApiSnapshot {
  public:
    // The answers of `dashboard`; those of a machine whose revision is the same in `previous`
    // are taken from it instead of being rendered again.
    explicit ApiSnapshot(Dashboard dashboard, const ApiSnapshot* previous = nullptr);

    const Dashboard& dashboard() const { return dashboard_; }

    // Answers GET /api/v1/SEGMENTS... (`segments` percent-decoded, e.g. {"projects", "metal",
    // "benchmarks"}) as docs/dashboard.md says: 404 for unknown routes, projects, machines,
    // benchmarks; 400 naming the parameter for a malformed one.
    Response answer(std::span<const std::string> segments, const Parameters& parameters,
                    const PullComparer& compare_pull) const;

    // page_data_json() of `project_name` (the first project when empty) on `machine_name` (its
    // default machine when empty); null when there is no such project or machine.
    const std::string* page_data(std::string_view project_name,
                                 std::string_view machine_name) const;

  private:
    // What is rendered of one machine.
    struct MachineAnswers {
        std::int64_t revision = 0;  // MachineHistory::revision
        bool judged = true;         // MachineHistory::judged
        std::string benchmarks;
        std::shared_ptr<const std::string> benchmarks_gzipped;
        CommitLiterals literals;
        std::string page_data_tail;  // page_data_json() after its "projects"
    };

    Dashboard dashboard_;
    std::string projects_;
    std::shared_ptr<const std::string> projects_gzipped_;
    // By project + '\n' + machine.
    std::unordered_map<std::string, std::shared_ptr<const MachineAnswers>> machines_;
    std::unordered_map<std::string, std::string> page_data_;
};

}  // namespace benchwatch::serve
