#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

#include "ingest/github_action_benchmark.hpp"
#include "ingest/readers.hpp"
#include "ingest/text_input.hpp"
#include "model/commit_id.hpp"

namespace benchwatch::ingest {

namespace detail {

namespace ondemand = simdjson::ondemand;

namespace {

// Which way the action was told a suite improves: its custom tools say so, the others leave it
// to the unit.
enum class ToolDirection { FromUnit, Smaller, Bigger };

ToolDirection tool_direction(std::string_view tool) {
    if (tool == "customBiggerIsBetter") return ToolDirection::Bigger;
    if (tool == "customSmallerIsBetter") return ToolDirection::Smaller;
    return ToolDirection::FromUnit;
}

// Nanoseconds per unit of a time unit ("ms", "ns/op", "us/iter"), or 0 for anything else.
double nanoseconds_per(std::string_view unit) {
    for (std::string_view per : {"/op", "/iter", "/call"})
        if (unit.ends_with(per)) unit.remove_suffix(per.size());
    struct TimeUnit {
        std::string_view unit;
        double nanoseconds;
    };
    static constexpr std::array<TimeUnit, 9> scales = {{{"ns", 1},
                                                     {"us", 1e3},
                                                     {"\u00b5s", 1e3},
                                                     {"\u03bcs", 1e3},
                                                     {"ms", 1e6},
                                                     {"s", 1e9},
                                                     {"sec", 1e9},
                                                     {"seconds", 1e9},
                                                     {"ps", 1e-3}}};
    for (const TimeUnit& scale : scales)
        if (unit == scale.unit) return scale.nanoseconds;
    return 0;
}

// A rate in the unit the report scales itself: "ops/sec" → ops/s, "MB/s" → B/s × 1e6.
struct Rate {
    std::string unit;  // empty: not a rate
    double scale = 1;
};

Rate per_second(std::string_view unit) {
    std::string_view base;
    for (std::string_view per : {"/s", "/sec", "/second"})
        if (unit.ends_with(per) && unit.size() > per.size())
            base = unit.substr(0, unit.size() - per.size());
    if (base.empty()) return {};
    struct BytePrefix {
        std::string_view unit;
        double bytes;
    };
    static constexpr std::array<BytePrefix, 8> byte_units = {{{"kB", 1e3},
                                                              {"KB", 1e3},
                                                              {"MB", 1e6},
                                                              {"GB", 1e9},
                                                              {"TB", 1e12},
                                                              {"KiB", 1024.0},
                                                              {"MiB", 1024.0 * 1024},
                                                              {"GiB", 1024.0 * 1024 * 1024}}};
    for (const BytePrefix& prefix : byte_units)
        if (base == prefix.unit) return {"B/s", prefix.bytes};
    return {fmt::format("{}/s", base), 1};
}

// "allocs=", "memory=" (bytes) and "gctime=" (ns) lines, as the action's Julia extractor writes
// them; other lines ("params=…", Go's "1000 times") say nothing benchwatch keeps.
void read_extra(std::string_view extra, model::Result& result) {
    while (!extra.empty()) {
        const std::size_t end = std::min(extra.find('\n'), extra.size());
        const std::string_view line = extra.substr(0, end);
        extra.remove_prefix(std::min(end + 1, extra.size()));
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, equals);
        const std::optional<double> number = parse_number(line.substr(equals + 1));
        if (!number || !std::isfinite(*number) || *number < 0) continue;
        if (key == "allocs")
            result.allocations = number;
        else if (key == "memory")
            result.memory = number;
        else if (key == "gctime")
            result.gc_time = number;
    }
}

// One element of "benches" as written: {"name", "value", "unit", "range"?, "extra"?}.
struct Bench {
    const char* where = nullptr;  // its place in the text, for messages
    std::string name;
    double value = 0;
    std::string unit;
    std::string extra;
};

Bench read_bench(JsonInput& input, ondemand::value& element) {
    input.expect(element, ondemand::json_type::object, "a bench");
    Bench bench;
    bench.where = input.where(element);
    bool named = false;
    bool valued = false;
    bool united = false;
    for (auto field : element.get_object()) {
        const std::string_view key = field.unescaped_key().value();
        ondemand::value item = field.value();
        if (key == "name") {
            bench.name = std::string(input.string(item, "\"name\""));
            named = true;
        } else if (key == "value") {
            bench.value = input.number(item, "\"value\"");
            valued = true;
        } else if (key == "unit") {
            bench.unit = std::string(input.string(item, "\"unit\""));
            united = true;
        } else if (key == "extra") {
            bench.extra = std::string(input.string(item, "\"extra\""));
        }
    }
    if (!named || !valued || !united)
        input.fail_at(bench.where, "expected \"name\", \"value\" and \"unit\" in each bench");
    return bench;
}

std::vector<Bench> read_bench_array(JsonInput& input, ondemand::value& benches) {
    input.expect(benches, ondemand::json_type::array, "\"benches\"");
    std::vector<Bench> read;
    for (auto element : benches.get_array()) {
        ondemand::value bench = element.value();
        read.push_back(read_bench(input, bench));
    }
    return read;
}

// Times become ns; rates are bigger-is-better "throughput"; any other unit is its own metric.
model::Result to_result(const JsonInput& input, const Bench& bench, ToolDirection direction) {
    model::Result result;
    result.benchmark = bench.name;
    const double time_scale = nanoseconds_per(bench.unit);
    const Rate rate = per_second(bench.unit);
    if (time_scale > 0 && direction != ToolDirection::Bigger) {
        result.value = bench.value * time_scale;
        check_positive_time(input, result.benchmark, result.value);
    } else {
        result.value = bench.value * rate.scale;
        result.unit = rate.unit.empty() ? bench.unit : rate.unit;
        result.metric = rate.unit.empty() ? bench.unit : "throughput";
        const bool bigger = direction == ToolDirection::Bigger ||
                            (direction == ToolDirection::FromUnit && !rate.unit.empty());
        result.direction =
            bigger ? model::Direction::BiggerIsBetter : model::Direction::SmallerIsBetter;
        if (bench.value >= 0 && std::isinf(result.value))
            input.fail_at(bench.where,
                          fmt::format("benchmark '{}': {} {} is too large to store in {}",
                                      result.benchmark, bench.value, bench.unit, result.unit));
        if (!std::isfinite(result.value) || result.value < 0)
            input.fail_at(bench.where,
                          fmt::format("benchmark '{}': value must be a non-negative number, got {}",
                                      result.benchmark, bench.value));
    }
    read_extra(bench.extra, result);
    return result;
}

// The results of `benches`, with unique names and metrics.
std::vector<model::Result> to_results(const JsonInput& input, const std::vector<Bench>& benches,
                                      ToolDirection direction) {
    std::vector<model::Result> results;
    std::unordered_set<std::string> seen;
    for (const Bench& bench : benches) {
        model::Result result = to_result(input, bench, direction);
        if (!seen.insert(result.benchmark + '\n' + result.metric).second)
            input.fail_at(bench.where, fmt::format("benchmark '{}' appears twice", bench.name));
        results.push_back(std::move(result));
    }
    return results;
}

// The same hash for the same benches however the JSON was spaced or ordered.
std::uint64_t benches_hash(const std::vector<model::Result>& results) {
    std::string text;
    for (const model::Result& result : results)
        text +=
            fmt::format("{}\x1f{}\x1f{}\x1f{:.17g}\x1f{}\x1f{}\x1f{}\n", result.benchmark,
                        result.metric, result.unit, result.value, result.allocations.value_or(-1),
                        result.memory.value_or(-1), result.gc_time.value_or(-1));
    return content_hash(text);
}

// github-action-benchmark's custom JSON is an array of benches: the file is ours when the first
// element has "name", "unit" and "value".
Claim detect_custom_json(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::array)
        return {};
    for (auto element : probe.json->get_array()) {
        ondemand::value first = element.value();
        if (first.type().value() != ondemand::json_type::object) break;
        int keys = 0;
        for (auto field : first.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            keys += key == "name" || key == "unit" || key == "value" ? 1 : 0;
        }
        if (keys == 3) return {true, {}};
        break;
    }
    return {};
}

ParsedResults read_custom_json(JsonInput& input) {
    ondemand::value root = input.document().get_value().value();
    if (root.type().value() != ondemand::json_type::array)
        input.fail(
            "expected a JSON array of {\"name\", \"unit\", \"value\"} objects, as "
            "github-action-benchmark's custom tools read");
    ParsedResults parsed;
    parsed.format = "github-action-benchmark";
    parsed.results = to_results(input, read_bench_array(input, root), ToolDirection::FromUnit);
    return parsed;
}

class HistoryReader {
  public:
    explicit HistoryReader(JsonInput& input) : input_(input) {}

    ImportedHistory read() {
        ondemand::value root = input_.document().get_value().value();
        input_.expect(root, ondemand::json_type::object, "the history");
        bool saw_entries = false;
        for (auto field : root.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "repoUrl") {
                history_.repository_url = std::string(input_.string(item, "\"repoUrl\""));
            } else if (key == "entries") {
                input_.expect(item, ondemand::json_type::object, "\"entries\"");
                for (auto suite : item.get_object()) {
                    std::string name(suite.unescaped_key().value());
                    ondemand::value entries = suite.value();
                    read_suite(std::move(name), entries);
                }
                saw_entries = true;
            }
        }
        if (!saw_entries)
            input_.fail(
                "expected an object with \"entries\", as github-action-benchmark's data.js holds");
        return std::move(history_);
    }

  private:
    void read_suite(std::string name, ondemand::value& entries) {
        ImportedSuite suite;
        suite.name = std::move(name);
        input_.expect(entries, ondemand::json_type::array,
                      fmt::format("the entries of suite '{}'", suite.name));
        for (auto element : entries.get_array()) {
            ondemand::value entry = element.value();
            suite.runs.push_back(read_entry(entry));
        }
        history_.suites.push_back(std::move(suite));
    }

    ImportedRun read_entry(ondemand::value& entry) {
        input_.expect(entry, ondemand::json_type::object, "an entry");
        const char* const start = input_.where(entry);
        ImportedRun run;
        std::optional<std::vector<Bench>> benches;
        bool saw_date = false;
        for (auto field : entry.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "commit") {
                read_commit(item, run);
            } else if (key == "date") {
                run.date_ms = static_cast<std::int64_t>(input_.number(item, "\"date\""));
                saw_date = true;
            } else if (key == "tool") {
                run.tool = std::string(input_.string(item, "\"tool\""));
            } else if (key == "benches") {
                benches = read_bench_array(input_, item);
            }
        }
        if (run.commit.empty() || !benches || !saw_date)
            input_.fail_at(start,
                           "expected \"commit\" with an \"id\", \"date\" and \"benches\" in each "
                           "entry");
        // The tool may come after the benches, so they are mapped once the entry is read.
        run.results = to_results(input_, *benches, tool_direction(run.tool));
        run.content_hash = benches_hash(run.results);
        return run;
    }

    void read_commit(ondemand::value& commit, ImportedRun& run) {
        input_.expect(commit, ondemand::json_type::object, "\"commit\"");
        for (auto field : commit.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "id") {
                const char* const at = input_.where(item);
                const auto id = input_.string(item, "the commit's \"id\"");
                // The id becomes a folder name and a git argument when a comparison confirms
                // against this run.
                if (!model::CommitId::parse(id))
                    input_.fail_at(at, model::CommitId::refusal(id) +
                                           "; make the entry's id its commit's full SHA");
                run.commit = std::string(id);
            } else if (key == "message") {
                run.commit_info.message = std::string(input_.string(item, "\"message\""));
            } else if (key == "timestamp") {
                run.commit_info.timestamp = std::string(input_.string(item, "\"timestamp\""));
            } else if (key == "url") {
                run.commit_info.url = std::string(input_.string(item, "\"url\""));
            } else if (key == "author") {
                input_.expect(item, ondemand::json_type::object, "\"author\"");
                for (auto author : item.get_object()) {
                    if (author.unescaped_key().value() != "name") continue;
                    ondemand::value name = author.value();
                    run.commit_info.author = std::string(input_.string(name, "the author's name"));
                }
            }
        }
    }

    JsonInput& input_;
    ImportedHistory history_;
};

// data.js assigns the object to a variable; the object alone is JSON. Blanking the assignment
// keeps every line and column as they are in the file.
void blank_assignment(std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] == '{') return;
    const std::size_t brace = text.find('{');
    const std::size_t equals = text.find('=');
    if (brace == std::string::npos || equals == std::string::npos || equals > brace) return;
    std::fill(text.begin() + static_cast<std::ptrdiff_t>(first),
              text.begin() + static_cast<std::ptrdiff_t>(brace), ' ');
    const std::size_t last = text.find_last_not_of(" \t\r\n");
    if (text[last] == ';') text[last] = ' ';
}

}  // namespace

const Reader githubactionbenchmark_reader{.name = "github-action-benchmark",
                                          .detect = detect_custom_json,
                                          .parse_json = read_custom_json};

}  // namespace detail

ImportedHistory read_github_action_benchmark_history(const std::filesystem::path& path) {
    std::string text = detail::read_results_file(path);
    detail::blank_assignment(text);
    detail::JsonInput input(text, text.capacity(), path.string());
    try {
        ImportedHistory history = detail::HistoryReader(input).read();
        input.expect_end();
        for (const ImportedSuite& suite : history.suites)
            for (const ImportedRun& run : suite.runs) {
                detail::check_results(run.results, input.source());
            }
        return history;
    } catch (const simdjson::simdjson_error& error) {
        input.fail_json(error.error());
    }
}

}  // namespace benchwatch::ingest
