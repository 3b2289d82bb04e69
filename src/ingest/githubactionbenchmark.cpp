#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ingest/github_action_benchmark.hpp"
#include "ingest/readers.hpp"
#include "ingest/text_input.hpp"
#include "ingest/units.hpp"
#include "model/commit_id.hpp"
#include "model/environment_keys.hpp"
#include "model/printable.hpp"

namespace benchwatch::ingest {

namespace detail {

namespace ondemand = simdjson::ondemand;

namespace {

// The harnesses github-action-benchmark's "tool" names, as far as the import tells them apart.
enum class Tool {
    Other,  // benchmarkjs, an unknown tool, or none: stored as the action stored it
    Pytest,
    GoogleCpp,
    Go,
    Julia,
    Jmh,
    BenchmarkDotNet,
    Catch2,
    Cargo,
    CustomBigger,
    CustomSmaller,
};

Tool tool_of(std::string_view name) {
    struct Named {
        std::string_view name;
        Tool tool;
    };
    static constexpr std::array<Named, 10> tools = {
        {{"pytest", Tool::Pytest},
         {"googlecpp", Tool::GoogleCpp},
         {"go", Tool::Go},
         {"julia", Tool::Julia},
         {"jmh", Tool::Jmh},
         {"benchmarkdotnet", Tool::BenchmarkDotNet},
         {"catch2", Tool::Catch2},
         {"cargo", Tool::Cargo},
         {"customBiggerIsBetter", Tool::CustomBigger},
         {"customSmallerIsBetter", Tool::CustomSmaller}}};
    for (const Named& named : tools)
        if (named.name == name) return named.tool;
    return Tool::Other;
}

// The statistic of the harness's samples the action stored for `tool`, as model::statistic_key
// says it; empty where the import keeps the action's values as they are.
std::string_view statistic_of(Tool tool) {
    switch (tool) {
        case Tool::Pytest:           // "ops" is 1 / the mean round
        case Tool::Jmh:              // "score" is the mean of the measurement iterations
        case Tool::BenchmarkDotNet:  // Statistics.Mean
        case Tool::Catch2:           // the mean line
            return "mean";
        case Tool::GoogleCpp:  // one repetition each; repetitions become their minimum here
        case Tool::Go:         // likewise for -count
            return "minimum";
        case Tool::Julia:  // whichever TrialEstimate the suite saved
            return "estimate";
        case Tool::Cargo:  // libtest prints its median
            return "median";
        default:
            return {};
    }
}

// Which way the action was told a suite improves: its custom tools say so, the others leave it
// to the unit.
enum class ToolDirection { FromUnit, Smaller, Bigger };

ToolDirection tool_direction(Tool tool) {
    if (tool == Tool::CustomBigger) return ToolDirection::Bigger;
    if (tool == Tool::CustomSmaller) return ToolDirection::Smaller;
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
model::Result generic_result(const JsonInput& input, const Bench& bench, std::string name,
                             std::string_view unit, ToolDirection direction) {
    model::Result result;
    result.benchmark = std::move(name);
    const double time_scale = nanoseconds_per(unit);
    const Rate rate = per_second(unit);
    if (time_scale > 0 && direction != ToolDirection::Bigger) {
        result.value = bench.value * time_scale;
        check_positive_time(input, result.benchmark, result.value);
    } else {
        result.value = bench.value * rate.scale;
        result.unit = rate.unit.empty() ? std::string(unit) : rate.unit;
        result.metric = rate.unit.empty() ? std::string(unit) : "throughput";
        const bool bigger = direction == ToolDirection::Bigger ||
                            (direction == ToolDirection::FromUnit && !rate.unit.empty());
        result.direction =
            bigger ? model::Direction::BiggerIsBetter : model::Direction::SmallerIsBetter;
        if (bench.value >= 0 && std::isinf(result.value))
            input.fail_at(bench.where,
                          fmt::format("benchmark '{}': {} {} is too large to store in {}",
                                      result.benchmark, bench.value, unit, result.unit));
        if (!std::isfinite(result.value) || result.value < 0)
            input.fail_at(bench.where,
                          fmt::format("benchmark '{}': value must be a non-negative number, got {}",
                                      result.benchmark, bench.value));
    }
    read_extra(bench.extra, result);
    return result;
}

// A rate of iterations as the time of one, in ns: pytest-benchmark's "ops" (1 / the mean) as the
// mean time its reader would give the rounds.
model::Result time_of_rate(const JsonInput& input, const Bench& bench) {
    model::Result result;
    result.benchmark = bench.name;
    if (!(bench.value > 0) || !std::isfinite(bench.value))
        input.fail_at(bench.where, fmt::format("benchmark '{}': iterations per second must be a "
                                               "positive number, got {}",
                                               bench.name, bench.value));
    result.value = 1e9 / bench.value;
    check_positive_time(input, result.benchmark, result.value);
    return result;
}

// JMH's "benchmark ( {params} )", as the action names a benchmark with parameters, in the JMH
// reader's spelling "benchmark:key=value,key=value"; the name as it is when it is not that.
std::string jmh_name(std::string_view name) {
    const std::size_t open = name.find(" ( {");
    if (open == std::string_view::npos || !name.ends_with("} )")) return std::string(name);
    const simdjson::padded_string json(name.substr(open + 3, name.size() - open - 5));
    simdjson::dom::parser parser;
    simdjson::dom::object params;
    if (parser.parse(json).get(params) != simdjson::SUCCESS) return std::string(name);
    std::string renamed(name.substr(0, open));
    char separator = ':';
    for (const auto [key, value] : params) {
        std::string_view text;
        if (value.get(text) != simdjson::SUCCESS) return std::string(name);
        renamed += fmt::format("{}{}={}", separator, key, text);
        separator = ',';
    }
    return renamed;
}

// JMH's units as its reader stores them: times per operation in ns, operations per time in
// ops/s; std::nullopt for any other unit.
std::optional<model::Result> jmh_result(const JsonInput& input, const Bench& bench) {
    std::string_view unit = bench.unit;
    model::Result result;
    result.benchmark = jmh_name(bench.name);
    if (unit.ends_with("/op")) {
        const auto scale = detail::jmh_nanoseconds_in(unit.substr(0, unit.size() - 3));
        if (!scale) return std::nullopt;
        result.value = bench.value * *scale;
        check_positive_time(input, result.benchmark, result.value);
    } else if (unit.starts_with("ops/")) {
        const auto per = detail::jmh_nanoseconds_in(unit.substr(4));
        if (!per) return std::nullopt;
        result.value = bench.value * 1e9 / *per;
        result.metric = "throughput";
        result.unit = "ops/s";
        result.direction = model::Direction::BiggerIsBetter;
        if (!std::isfinite(result.value) || result.value < 0)
            input.fail_at(bench.where,
                          fmt::format("benchmark '{}': value must be a non-negative number, got {}",
                                      result.benchmark, bench.value));
    } else {
        return std::nullopt;
    }
    return result;
}

// One bench as benchwatch's reader of the tool's harness would store it.
model::Result to_result(const JsonInput& input, const Bench& bench, Tool tool) {
    if (tool == Tool::Pytest && bench.unit == "iter/sec") return time_of_rate(input, bench);
    if (tool == Tool::Jmh)
        if (auto result = jmh_result(input, bench)) return std::move(*result);
    // The action names a Go benchmark's further metrics "BenchmarkX - unit"; the Go reader keeps
    // them under "BenchmarkX".
    std::string name = bench.name;
    if (tool == Tool::Go && name.ends_with(" - " + bench.unit))
        name.resize(name.size() - bench.unit.size() - 3);
    return generic_result(input, bench, std::move(name), bench.unit, tool_direction(tool));
}

// The smaller of two optional amounts, either when only one is known.
std::optional<double> smaller(std::optional<double> a, std::optional<double> b) {
    if (a && b) return std::min(*a, *b);
    return a ? a : b;
}

// Google Benchmark's aggregate rows ("BM_x_mean") of a benchmark whose repetitions are there
// too, and its complexity rows, which its reader leaves out.
bool google_aggregate(const std::string& name, const std::unordered_set<std::string>& names) {
    if (name.ends_with("_BigO") || name.ends_with("_RMS")) return true;
    for (std::string_view suffix : {"_mean", "_median", "_stddev", "_cv", "_min", "_max"})
        if (name.ends_with(suffix) && names.contains(name.substr(0, name.size() - suffix.size())))
            return true;
    return false;
}

// The results of `benches`, with unique names and metrics. A benchmark repeated in one entry
// (`go test -count`, Google Benchmark's repetitions) keeps its best value, as the harness's
// reader keeps its best repetition; for other tools it is an error.
std::vector<model::Result> to_results(const JsonInput& input, const std::vector<Bench>& benches,
                                      Tool tool) {
    std::vector<model::Result> results;
    std::unordered_map<std::string, std::size_t> index;
    std::unordered_set<std::string> names;
    if (tool == Tool::GoogleCpp)
        for (const Bench& bench : benches) names.insert(bench.name);
    // Go's B/op and allocs/op, which its reader puts on the benchmark's time.
    std::unordered_map<std::string, model::Result> go_memory;
    for (const Bench& bench : benches) {
        if (tool == Tool::GoogleCpp && google_aggregate(bench.name, names)) continue;
        model::Result result = to_result(input, bench, tool);
        if (tool == Tool::Go && (bench.unit == "B/op" || bench.unit == "allocs/op") &&
            result.benchmark != bench.name) {
            model::Result& memory = go_memory[result.benchmark];
            if (bench.unit == "B/op")
                memory.memory = smaller(memory.memory, result.value);
            else
                memory.allocations = smaller(memory.allocations, result.value);
            continue;
        }
        const auto [found, fresh] =
            index.emplace(result.benchmark + '\n' + result.metric, results.size());
        if (fresh) {
            results.push_back(std::move(result));
            continue;
        }
        if (tool != Tool::Go && tool != Tool::GoogleCpp)
            input.fail_at(bench.where, fmt::format("benchmark '{}' appears twice", bench.name));
        model::Result& kept = results[found->second];
        const bool better = kept.direction == model::Direction::SmallerIsBetter
                                ? result.value < kept.value
                                : result.value > kept.value;
        if (better) kept.value = result.value;
        kept.memory = smaller(kept.memory, result.memory);
        kept.allocations = smaller(kept.allocations, result.allocations);
    }
    for (auto& [name, memory] : go_memory) {
        const auto time = index.find(name + "\ntime");
        if (time == index.end()) continue;
        results[time->second].memory = smaller(results[time->second].memory, memory.memory);
        results[time->second].allocations =
            smaller(results[time->second].allocations, memory.allocations);
    }
    return results;
}

// The longest environment value the import keeps, in bytes, and how many keys it takes from an
// entry's "cpu" object and from its benches' "extra".
constexpr std::size_t kLongestValue = 256;
constexpr std::size_t kMostKeys = 32;

// `text` on one line (control characters as spaces), cut to kLongestValue bytes at a character
// boundary with "…" where it was longer.
std::string bounded(std::string_view text) {
    std::string line;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        line += byte < 0x20 || byte == 0x7f ? ' ' : c;
    }
    if (line.size() <= kLongestValue) return line;
    line.resize(model::utf8_prefix(line, kLongestValue).size());
    return line + "\u2026";
}

// A key taken into an environment key: 1 to 64 letters, digits, '_', '-' or '.'.
bool usable_key(std::string_view key) {
    if (key.empty() || key.size() > 64) return false;
    return std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    });
}

// The entry's "cpu" object as environment keys: "cores" and the model ("model", else "brand")
// under the machine keys a run of benchwatch records them by, anything else as "cpu.<field>".
void add_cpu(const std::vector<std::pair<std::string, std::string>>& cpu,
             model::Environment& environment) {
    std::size_t taken = 0;
    bool has_model = false;
    for (const auto& [field, value] : cpu) has_model = has_model || field == "model";
    for (const auto& [field, value] : cpu) {
        if (!usable_key(field) || taken == kMostKeys) continue;
        ++taken;
        if (field == "cores")
            environment["cores"] = bounded(value);
        else if (field == "model" || (field == "brand" && !has_model))
            environment["cpu"] = bounded(value);
        else
            environment["cpu." + field] = bounded(value);
    }
}

// The "key: value" and "key=value" lines of the benches' "extra" that every bench holding the
// key agrees on (an interpreter's version, a harness's settings), as "extra.<key>"; a Go line
// "8 procs" as the Go reader's "go.gomaxprocs". Lines that are measurements of one bench (its
// mean, rounds, iterations, allocations…) are left out.
void add_extra(const std::vector<Bench>& benches, Tool tool, model::Environment& environment) {
    static const std::unordered_set<std::string_view> figures_of_a_bench = {
        "mean", "rounds", "iterations", "cpu", "allocs", "memory", "gctime", "samples", "times"};
    std::map<std::string, std::optional<std::string>> agreed;  // nullopt: benches disagree
    for (const Bench& bench : benches) {
        std::string_view extra = bench.extra;
        while (!extra.empty()) {
            const std::size_t end = std::min(extra.find('\n'), extra.size());
            const std::string_view line = extra.substr(0, end);
            extra.remove_prefix(std::min(end + 1, extra.size()));
            std::string key;
            std::string_view value;
            if (tool == Tool::Go && line.ends_with(" procs")) {
                key = "go.gomaxprocs";
                value = line.substr(0, line.size() - 6);
            } else {
                const std::size_t separator = line.find_first_of(":=");
                if (separator == std::string_view::npos) continue;
                const std::string_view name = line.substr(0, separator);
                if (!usable_key(name) || figures_of_a_bench.contains(name)) continue;
                key = "extra." + std::string(name);
                value = line.substr(separator + 1);
                while (value.starts_with(' ')) value.remove_prefix(1);
            }
            const std::string kept = bounded(value);
            const auto [found, fresh] = agreed.emplace(key, kept);
            if (!fresh && found->second != kept) found->second = std::nullopt;
        }
    }
    std::size_t taken = 0;
    for (auto& [key, value] : agreed)
        if (value && taken++ < kMostKeys) environment[key] = std::move(*value);
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
    parsed.results = to_results(input, read_bench_array(input, root), Tool::Other);
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
        std::vector<std::pair<std::string, std::string>> cpu;  // as written
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
            } else if (key == "cpu" && item.type().value() == ondemand::json_type::object) {
                for (auto part : item.get_object()) {
                    std::string name(part.unescaped_key().value());
                    ondemand::value value = part.value();
                    if (auto text = input_.scalar_text(value))
                        cpu.emplace_back(std::move(name), std::move(*text));
                }
            }
        }
        if (run.commit.empty() || !benches || !saw_date)
            input_.fail_at(start,
                           "expected \"commit\" with an \"id\", \"date\" and \"benches\" in each "
                           "entry");
        // The tool may come after the benches, so they are mapped once the entry is read.
        const Tool tool = tool_of(run.tool);
        run.results = to_results(input_, *benches, tool);
        run.content_hash = benches_hash(run.results);
        add_cpu(cpu, run.environment);
        add_extra(*benches, tool, run.environment);
        if (const std::string_view statistic = statistic_of(tool); !statistic.empty())
            run.environment[std::string(model::statistic_key)] = statistic;
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
