#include "serve/api.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "stats/stats.hpp"

namespace benchwatch::serve {

namespace {

using nlohmann::json;

constexpr std::size_t max_points = 100'000;

std::string dump(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string machine_key(std::string_view project, std::string_view machine) {
    std::string key(project);
    key += '\n';
    key += machine;
    return key;
}

json key_changes_json(const std::vector<KeyChange>& changes) {
    json keys = json::array();
    for (const auto& key : changes)
        keys.push_back({{"key", key.key}, {"from", key.from}, {"to", key.to}});
    return keys;
}

json suite_events_json(const MachineHistory& machine) {
    json events = json::array();
    for (const auto& event : machine.suite_events) {
        const CommitPoint& after = machine.commits[event.commit];
        events.push_back({{"time", after.time_ms},
                          {"index", event.commit},
                          {"commit", after.commit},
                          {"before_commit", machine.commits[event.before_commit].commit},
                          {"benchmarks", event.benchmarks},
                          {"measured", event.measured},
                          {"change", event.change},
                          {"changes", key_changes_json(event.changes)}});
    }
    return events;
}

json benchmark_json(const MachineHistory& machine, const BenchmarkSeries& series) {
    const std::uint32_t last = series.commits.empty() ? 0 : series.commits.back();
    const CommitPoint* latest = series.commits.empty() ? nullptr : &machine.commits[last];
    json steps = json::array();
    for (const auto& step : series.steps) {
        const CommitPoint& after = machine.commits[step.commit];
        steps.push_back({{"time", after.time_ms},
                         {"index", step.commit},
                         {"commit", after.commit},
                         {"before_commit", machine.commits[step.before_commit].commit},
                         {"change", step.change}});
    }
    return {
        {"id", series.id},
        {"name", series.name},
        {"metric", series.metric},
        {"unit", series.unit},
        {"direction", model::to_string(series.direction)},
        {"category", series.category},
        {"points", series.values.size()},
        {"latest", series.values.empty() ? json(nullptr) : json(series.values.back())},
        {"latest_time", latest ? json(latest->time_ms) : json(nullptr)},
        {"latest_commit", latest ? json(latest->commit) : json(nullptr)},
        {"typical_change", series.typical_change ? json(*series.typical_change) : json(nullptr)},
        {"threshold", series.threshold},
        {"detectable_change",
         series.detectable_change ? json(*series.detectable_change) : json(nullptr)},
        {"trend", to_string(series.trend)},
        {"trend_reason", to_string(series.trend_reason)},
        {"trend_change", series.trend_change},
        {"retired", series.retired},
        {"steps", std::move(steps)},
    };
}

// A query parameter that is present but malformed; answered with 400 and the message.
struct BadParameter {
    std::string message;
};

// A query parameter's integer value: nullopt when absent; throws BadParameter when malformed.
std::optional<std::int64_t> integer_parameter(const Parameters& parameters, const std::string& name,
                                              std::int64_t smallest, std::int64_t largest) {
    const auto found = parameters.find(name);
    if (found == parameters.end()) return std::nullopt;
    const std::string& text = found->second;
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < smallest ||
        value > largest)
        throw BadParameter{
            fmt::format("query parameter '{}' must be an integer from {} to {}, not "
                        "'{}'",
                        name, smallest, largest, text)};
    return value;
}

std::string parameter(const Parameters& parameters, const std::string& name) {
    const auto found = parameters.find(name);
    return found == parameters.end() ? std::string() : found->second;
}

json pull_json(const MachineHistory& machine, const PullRun& pull) {
    const CommitPoint* base = pull.base ? &machine.commits[*pull.base] : nullptr;
    return {{"head", pull.commit},
            {"branch", pull.branch},
            {"pull_request", pull.pull_request ? json(*pull.pull_request) : json()},
            {"time", pull.time_ms},
            {"subject", pull.subject},
            {"author", pull.author},
            {"url", pull.url},
            {"base_index", pull.base ? json(*pull.base) : json()},
            {"base_commit", base ? json(base->commit) : json()}};
}

json pulls_json(const MachineHistory& machine) {
    json pulls = json::array();
    for (const auto& pull : machine.pulls) pulls.push_back(pull_json(machine, pull));
    return {{"pulls", std::move(pulls)}};
}

// The pull requests' heads that measured `series`, newest first, each with its value and its
// change from its base's value (null when the base has none), keeping those whose base lies in
// [from, to] and those without a base.
json series_pulls_json(const MachineHistory& machine, const BenchmarkSeries& series,
                       std::optional<std::int64_t> from_ms, std::optional<std::int64_t> to_ms) {
    json pulls = json::array();
    for (const auto& [index, value] : series.pulls) {
        const PullRun& pull = machine.pulls[index];
        if (pull.base) {
            const std::int64_t time = machine.commits[*pull.base].time_ms;
            if ((from_ms && time < *from_ms) || (to_ms && time > *to_ms)) continue;
        }
        json entry = pull_json(machine, pull);
        entry["value"] = std::isfinite(value) ? json(value) : json();
        json change;
        if (pull.base) {
            const auto at =
                std::lower_bound(series.commits.begin(), series.commits.end(), *pull.base);
            if (at != series.commits.end() && *at == *pull.base) {
                const double base_value =
                    series.values[static_cast<std::size_t>(at - series.commits.begin())];
                if (base_value > 0 && std::isfinite(value)) change = value / base_value - 1;
            }
        }
        entry["change"] = change;
        pulls.push_back(std::move(entry));
    }
    return pulls;
}

}  // namespace

std::string projects_json(const Dashboard& dashboard) {
    json projects = json::array();
    for (const auto& project : dashboard.projects) {
        json machines = json::array();
        std::size_t runs = 0;
        for (const auto& machine : project.machines) {
            runs += machine.commits.size();
            machines.push_back({{"name", machine.name},
                                {"id", machine.id},
                                {"runs", machine.commits.size()},
                                {"first_time", machine.commits.front().time_ms},
                                {"last_time", machine.commits.back().time_ms}});
        }
        const MachineHistory* default_machine = project.find_machine("");
        projects.push_back(
            {{"name", project.name},
             {"id", project.id},
             {"runs", runs},
             {"benchmarks", default_machine ? default_machine->benchmarks.size() : 0},
             {"default_machine", project.default_machine},
             {"machines", std::move(machines)}});
    }
    return dump({{"projects", std::move(projects)}});
}

std::string benchmarks_json(const Dashboard& dashboard, const ProjectHistory& project,
                            const MachineHistory& machine) {
    json changes = json::array();
    for (const auto& change : machine.environment_changes) {
        const CommitPoint& commit = machine.commits[change.commit];
        changes.push_back({{"time", commit.time_ms},
                           {"index", change.commit},
                           {"commit", commit.commit},
                           {"changes", key_changes_json(change.changes)}});
    }
    json benchmarks = json::array();
    for (const auto& series : machine.benchmarks)
        benchmarks.push_back(benchmark_json(machine, series));
    json times = json::array();
    for (const auto& commit : machine.commits) times.push_back(commit.time_ms);
    return dump({{"project", project.name},
                 {"machine", machine.name},
                 {"default_branch", dashboard.default_branch},
                 {"order", model::to_string(machine.order)},
                 {"runs", machine.commits.size()},
                 {"first_time", machine.commits.front().time_ms},
                 {"last_time", machine.commits.back().time_ms},
                 {"commit_times", std::move(times)},
                 {"environment_changes", std::move(changes)},
                 {"suite_events", suite_events_json(machine)},
                 {"benchmarks", std::move(benchmarks)}});
}

CommitLiterals commit_literals(const MachineHistory& machine) {
    CommitLiterals literals;
    const std::size_t count = machine.commits.size();
    literals.commit.reserve(count);
    literals.subject.reserve(count);
    literals.author.reserve(count);
    literals.url.reserve(count);
    for (const CommitPoint& commit : machine.commits) {
        literals.commit.push_back(dump(commit.commit));
        literals.subject.push_back(dump(commit.subject));
        literals.author.push_back(dump(commit.author));
        literals.url.push_back(dump(commit.url));
    }
    return literals;
}

std::string series_json(const MachineHistory& machine, const CommitLiterals& literals,
                        const BenchmarkSeries& series, const SeriesRange& range) {
    // Points in the range: the series' commits are ascending and commit times never decrease.
    const auto time_of = [&](std::uint32_t commit) { return machine.commits[commit].time_ms; };
    std::size_t begin = 0;
    std::size_t end = series.commits.size();
    if (range.from_ms)
        begin = static_cast<std::size_t>(
            std::partition_point(series.commits.begin(), series.commits.end(),
                                 [&](std::uint32_t c) { return time_of(c) < *range.from_ms; }) -
            series.commits.begin());
    if (range.to_ms)
        end = static_cast<std::size_t>(
            std::partition_point(series.commits.begin(), series.commits.end(),
                                 [&](std::uint32_t c) { return time_of(c) <= *range.to_ms; }) -
            series.commits.begin());
    end = std::max(begin, end);

    const auto values = std::span<const double>(series.values).subspan(begin, end - begin);
    std::vector<std::size_t> kept;
    if (range.points) {
        kept = stats::downsample_extremes(values, *range.points);
    } else {
        kept.resize(values.size());
        for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = i;
    }

    // The fields with text of their own go through the JSON library; the arrays, thousands of
    // numbers and already escaped literals, are appended as they are.
    std::string out = dump({{"id", series.id},
                            {"name", series.name},
                            {"metric", series.metric},
                            {"unit", series.unit},
                            {"direction", model::to_string(series.direction)},
                            {"machine", machine.name},
                            {"total", values.size()},
                            {"downsampled", kept.size() < values.size()}});
    out.pop_back();  // the closing brace
    out.reserve(out.size() + kept.size() * 160);
    const auto commit_at = [&](std::size_t offset) { return series.commits[begin + offset]; };
    const auto append_array = [&](std::string_view key, const auto& append_item) {
        fmt::format_to(std::back_inserter(out), ",\"{}\":[", key);
        for (std::size_t i = 0; i < kept.size(); ++i) {
            if (i > 0) out += ',';
            append_item(kept[i]);
        }
        out += ']';
    };
    append_array("time", [&](std::size_t offset) {
        fmt::format_to(std::back_inserter(out), "{}", machine.commits[commit_at(offset)].time_ms);
    });
    append_array("value", [&](std::size_t offset) {
        // JSON has no NaN or infinity; null, as the JSON library writes them.
        if (std::isfinite(values[offset]))
            fmt::format_to(std::back_inserter(out), "{}", values[offset]);
        else
            out += "null";
    });
    append_array("commit", [&](std::size_t offset) { out += literals.commit[commit_at(offset)]; });
    append_array("subject",
                 [&](std::size_t offset) { out += literals.subject[commit_at(offset)]; });
    append_array("author", [&](std::size_t offset) { out += literals.author[commit_at(offset)]; });
    append_array("url", [&](std::size_t offset) { out += literals.url[commit_at(offset)]; });
    append_array("index", [&](std::size_t offset) {
        fmt::format_to(std::back_inserter(out), "{}", commit_at(offset));
    });
    out += ",\"pulls\":";
    out += dump(series_pulls_json(machine, series, range.from_ms, range.to_ms));
    out += '}';
    return out;
}

std::string commits_json(const MachineHistory& machine, const CommitLiterals& literals) {
    std::string out = "{";
    const auto append_array = [&](std::string_view key, const auto& append_item) {
        fmt::format_to(std::back_inserter(out), "{}\"{}\":[", out.size() > 1 ? "," : "", key);
        for (std::size_t i = 0; i < machine.commits.size(); ++i) {
            if (i > 0) out += ',';
            append_item(i);
        }
        out += ']';
    };
    append_array("time", [&](std::size_t i) {
        fmt::format_to(std::back_inserter(out), "{}", machine.commits[i].time_ms);
    });
    append_array("commit", [&](std::size_t i) { out += literals.commit[i]; });
    append_array("subject", [&](std::size_t i) { out += literals.subject[i]; });
    append_array("author", [&](std::size_t i) { out += literals.author[i]; });
    append_array("url", [&](std::size_t i) { out += literals.url[i]; });
    out += '}';
    return out;
}

std::string static_series_json(const MachineHistory& machine, const BenchmarkSeries& series) {
    json values = json::array();
    for (const double value : series.values) values.push_back(value);
    return dump({{"id", series.id},
                 {"name", series.name},
                 {"metric", series.metric},
                 {"unit", series.unit},
                 {"direction", model::to_string(series.direction)},
                 {"machine", machine.name},
                 {"total", series.values.size()},
                 {"downsampled", false},
                 {"index", series.commits},
                 {"value", std::move(values)},
                 {"pulls", series_pulls_json(machine, series, std::nullopt, std::nullopt)}});
}

namespace {

// What a page may carry at most: series are embedded in the page's order until they hold this
// many points, each downsampled to at most embedded_series_points.
constexpr std::size_t embedded_points = 20'000;
constexpr std::size_t embedded_series_points = 1'000;

// `text` (JSON) with <, > and & written as JSON escapes, so that no string in it (a branch name,
// a commit message) can end the <script> element it is embedded in or start markup.
std::string html_safe(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '<')
            out += "\\u003c";
        else if (c == '>')
            out += "\\u003e";
        else if (c == '&')
            out += "\\u0026";
        else
            out += c;
    }
    return out;
}

}  // namespace

namespace {

// page_data_json() after its projects: ",\"project\":…}", made safe for HTML.
std::string page_data_tail(const ProjectHistory& project, const MachineHistory& machine,
                           std::string_view benchmarks) {
    std::vector<std::pair<const BenchmarkSeries*, std::vector<std::size_t>>> embedded;
    std::size_t points = 0;
    std::vector<bool> used(machine.commits.size(), false);
    for (const auto& series : machine.benchmarks) {
        if (points >= embedded_points) break;
        auto kept = stats::downsample_extremes(series.values, embedded_series_points);
        points += kept.size();
        for (const auto offset : kept) used[series.commits[offset]] = true;
        embedded.emplace_back(&series, std::move(kept));
    }
    json commits = {{"index", json::array()},  {"time", json::array()},
                    {"commit", json::array()}, {"subject", json::array()},
                    {"author", json::array()}, {"url", json::array()}};
    for (std::size_t i = 0; i < used.size(); ++i) {
        if (!used[i]) continue;
        const CommitPoint& commit = machine.commits[i];
        commits["index"].push_back(i);
        commits["time"].push_back(commit.time_ms);
        commits["commit"].push_back(commit.commit);
        commits["subject"].push_back(commit.subject);
        commits["author"].push_back(commit.author);
        commits["url"].push_back(commit.url);
    }
    json series_by_id = json::object();
    for (const auto& [series, kept] : embedded) {
        json index = json::array();
        json values = json::array();
        for (const auto offset : kept) {
            index.push_back(series->commits[offset]);
            values.push_back(std::isfinite(series->values[offset]) ? json(series->values[offset])
                                                                   : json());
        }
        series_by_id[series->id] = {
            {"id", series->id},
            {"name", series->name},
            {"metric", series->metric},
            {"unit", series->unit},
            {"direction", model::to_string(series->direction)},
            {"machine", machine.name},
            {"total", series->values.size()},
            {"downsampled", kept.size() < series->values.size()},
            {"index", std::move(index)},
            {"value", std::move(values)},
            {"pulls", series_pulls_json(machine, *series, std::nullopt, std::nullopt)}};
    }
    std::string out = ",\"project\":" + dump(project.name);
    out += ",\"machine\":" + dump(machine.name);
    out += ",\"benchmarks\":";
    out += benchmarks;
    out += ",\"commits\":" + dump(commits);
    out += ",\"series\":" + dump(series_by_id);
    out += '}';
    return html_safe(out);
}

}  // namespace

std::string page_data_json(const ProjectHistory& project, const MachineHistory& machine,
                           std::string_view projects, std::string_view benchmarks) {
    return html_safe("{\"projects\":") + html_safe(projects) +
           page_data_tail(project, machine, benchmarks);
}

std::string page_with_data(std::string_view page, std::string_view data) {
    std::string out(page);
    const auto at = out.find(page_data_placeholder);
    if (at == std::string::npos) return out;
    std::string element(page_data_placeholder);
    element.replace(element.find(">null<") + 1, 4, data);
    out.replace(at, page_data_placeholder.size(), element);
    return out;
}

Response error_response(int status, const std::string& message) {
    return {status, "application/json; charset=utf-8", dump({{"error", message}})};
}

std::string gzip(std::string_view data) {
    z_stream stream{};
    // 15 + 16: the largest window, with a gzip header and trailer instead of zlib's.
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        throw std::runtime_error("zlib cannot start compressing");
    std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    if (status != Z_STREAM_END) throw std::runtime_error("zlib could not compress a reply");
    return out;
}

ApiSnapshot::ApiSnapshot(Dashboard dashboard, const ApiSnapshot* previous)
    : dashboard_(std::move(dashboard)) {
    projects_ = projects_json(dashboard_);
    projects_gzipped_ = std::make_shared<const std::string>(gzip(projects_));
    const std::string projects_html = html_safe(projects_);
    for (const auto& project : dashboard_.projects) {
        for (const auto& machine : project.machines) {
            const auto key = machine_key(project.name, machine.name);
            std::shared_ptr<const MachineAnswers> answers;
            if (previous != nullptr) {
                const auto found = previous->machines_.find(key);
                if (found != previous->machines_.end() &&
                    found->second->revision == machine.revision &&
                    found->second->judged == machine.judged)
                    answers = found->second;
            }
            if (!answers) {
                auto made = std::make_shared<MachineAnswers>();
                made->revision = machine.revision;
                made->judged = machine.judged;
                made->benchmarks = benchmarks_json(dashboard_, project, machine);
                made->benchmarks_gzipped =
                    std::make_shared<const std::string>(gzip(made->benchmarks));
                made->literals = commit_literals(machine);
                made->page_data_tail = page_data_tail(project, machine, made->benchmarks);
                answers = std::move(made);
            }
            page_data_.emplace(
                key, html_safe("{\"projects\":") + projects_html + answers->page_data_tail);
            machines_.emplace(key, std::move(answers));
        }
    }
}

const std::string* ApiSnapshot::page_data(std::string_view project_name,
                                          std::string_view machine_name) const {
    const ProjectHistory* project =
        project_name.empty()
            ? (dashboard_.projects.empty() ? nullptr : &dashboard_.projects.front())
            : dashboard_.find_project(project_name);
    if (project == nullptr) return nullptr;
    const MachineHistory* machine = project->find_machine(machine_name);
    if (machine == nullptr) return nullptr;
    const auto found = page_data_.find(machine_key(project->name, machine->name));
    return found == page_data_.end() ? nullptr : &found->second;
}

Response ApiSnapshot::answer(std::span<const std::string> segments, const Parameters& parameters,
                             const PullComparer& compare_pull) const {
    const auto unknown_route = [&] {
        std::string path = "/api/v1";
        for (const auto& segment : segments) path += "/" + segment;
        return error_response(404, fmt::format("no such route: {}; see docs/dashboard.md for the "
                                               "routes of API version 1",
                                               path));
    };
    if (segments.empty() || segments[0] != "projects") return unknown_route();
    if (segments.size() == 1)
        return {200, "application/json; charset=utf-8", projects_, projects_gzipped_};

    const ProjectHistory* project = dashboard_.find_project(segments[1]);
    if (project == nullptr)
        return error_response(404, fmt::format("unknown project '{}'; GET /api/v1/projects lists "
                                               "them",
                                               segments[1]));
    if (segments.size() < 3) return unknown_route();
    const std::string machine_name = parameter(parameters, "machine");
    const MachineHistory* machine = project->find_machine(machine_name);
    if (machine == nullptr)
        return error_response(404, fmt::format("project '{}' has no default-branch runs on "
                                               "machine '{}'",
                                               project->name, machine_name));
    const std::string& route = segments[2];
    try {
        if (route == "benchmarks" && segments.size() == 3) {
            const auto& answers = *machines_.at(machine_key(project->name, machine->name));
            return {200, "application/json; charset=utf-8", answers.benchmarks,
                    answers.benchmarks_gzipped};
        }
        if (route == "series" && segments.size() == 4) {
            const BenchmarkSeries* series = machine->find_benchmark(segments[3]);
            if (series == nullptr)
                return error_response(
                    404, fmt::format("project '{}' has no benchmark with id '{}' on machine '{}'",
                                     project->name, segments[3], machine->name));
            SeriesRange range;
            constexpr auto any_time = std::numeric_limits<std::int64_t>::max();
            range.from_ms = integer_parameter(parameters, "from", -any_time, any_time);
            range.to_ms = integer_parameter(parameters, "to", -any_time, any_time);
            if (const auto points = integer_parameter(parameters, "points", 2, max_points))
                range.points = static_cast<std::size_t>(*points);
            return {200, "application/json; charset=utf-8",
                    series_json(*machine,
                                machines_.at(machine_key(project->name, machine->name))->literals,
                                *series, range)};
        }
        if (route == "pulls" && segments.size() == 3)
            return {200, "application/json; charset=utf-8", dump(pulls_json(*machine))};
        if (route == "pulls" && segments.size() == 4)
            return compare_pull(project->name, machine->name, segments[3]);
    } catch (const BadParameter& bad) {
        return error_response(400, bad.message);
    }
    return unknown_route();
}

}  // namespace benchwatch::serve
