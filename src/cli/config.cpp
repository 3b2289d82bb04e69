#include "cli/config.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <set>

#include "model/printable.hpp"

namespace benchwatch::cli {

namespace {

constexpr const char* config_name = "benchwatch.toml";

[[noreturn]] void fail_at(const std::filesystem::path& path, const toml::source_region& where,
                          const std::string& message) {
    if (where.begin.line > 0)
        throw ConfigError(fmt::format("{}:{}:{}: {}", path.string(), where.begin.line,
                                      where.begin.column, message));
    throw ConfigError(fmt::format("{}: {}", path.string(), message));
}

std::optional<std::string> string_at(const std::filesystem::path& path, const toml::table& table,
                                     const char* key, const std::string& where) {
    const auto* node = table.get(key);
    if (!node) return std::nullopt;
    if (const auto* text = node->as_string()) return text->get();
    fail_at(path, node->source(), fmt::format("'{}{}' must be a string", where, key));
}

std::optional<double> number_at(const std::filesystem::path& path, const toml::table& table,
                                const char* key, const std::string& where) {
    const auto* node = table.get(key);
    if (!node) return std::nullopt;
    if (const auto value = node->value<double>()) return *value;
    fail_at(path, node->source(), fmt::format("'{}{}' must be a number", where, key));
}

void reject_unknown_keys(const std::filesystem::path& path, const toml::table& table,
                         const std::set<std::string>& known, const std::string& where) {
    for (const auto& [key, node] : table) {
        if (known.contains(std::string(key.str()))) continue;
        fail_at(path, key.source(),
                fmt::format("unknown key '{}{}'; known keys here: {}", where, key.str(),
                            fmt::join(known, ", ")));
    }
}

model::Category read_category(const std::filesystem::path& path, const toml::node& node) {
    const auto* table = node.as_table();
    if (!table) fail_at(path, node.source(), "each [[category]] must be a table");
    reject_unknown_keys(path, *table, {"name", "prefixes", "minimum", "counted_minimum"},
                        "category.");
    model::Category category;
    category.name = string_at(path, *table, "name", "category.").value_or("");
    if (category.name.empty())
        fail_at(path, node.source(), "a [[category]] needs a non-empty 'name'");
    if (const auto* prefixes = table->get("prefixes")) {
        const auto* array = prefixes->as_array();
        if (!array) fail_at(path, prefixes->source(), "'category.prefixes' must be an array");
        for (const auto& prefix : *array) {
            const auto* text = prefix.as_string();
            if (!text) fail_at(path, prefix.source(), "'category.prefixes' must hold strings");
            category.prefixes.push_back(text->get());
        }
    }
    category.minimum_change = number_at(path, *table, "minimum", "category.").value_or(0.03);
    if (!(category.minimum_change >= 0 && category.minimum_change < 1))
        fail_at(path, node.source(),
                fmt::format("category '{}': 'minimum' must be a fraction in [0, 1), e.g. 0.05 "
                            "for 5%",
                            category.name));
    category.counted_minimum_change = number_at(path, *table, "counted_minimum", "category.")
                                          .value_or(model::kDefaultCountedMinimumChange);
    if (!(category.counted_minimum_change >= 0 && category.counted_minimum_change < 1))
        fail_at(path, table->get("counted_minimum")->source(),
                fmt::format("category '{}': 'counted_minimum' must be a fraction in [0, 1), e.g. "
                            "0.002 for 0.2% of the instructions",
                            category.name));
    return category;
}

// One glob of a [[benchmark]] table's `match`: not empty, on one line, and without '[', which
// a reader could take for a character class that these globs do not have.
std::string read_rule_pattern(const std::filesystem::path& path, const toml::node& node) {
    const auto* text = node.as_string();
    if (!text || text->get().empty() || text->get().find_first_of("\n\r") != std::string::npos)
        fail_at(path, node.source(),
                "'benchmark.match' must hold benchmark names or glob patterns ('*' for any "
                "characters, '?' for one), e.g. \"BM_Checksum*\"");
    if (text->get().find('[') != std::string::npos)
        fail_at(path, node.source(),
                fmt::format("'benchmark.match' pattern \"{}\": '[' is no character class here; "
                            "match with '*' and '?' only, e.g. \"BM_Sort*\"",
                            model::printable_line(text->get())));
    return text->get();
}

// A fraction in [0, 1) at `key`, the way a category's minimum is written.
std::optional<double> fraction_at(const std::filesystem::path& path, const toml::table& table,
                                  const char* key, const std::string& where,
                                  const std::string& example) {
    const auto value = number_at(path, table, key, where);
    if (value && !(*value >= 0 && *value < 1))
        fail_at(path, table.get(key)->source(),
                fmt::format("'{}{}' must be a fraction in [0, 1), e.g. {}", where, key, example));
    return value;
}

model::BenchmarkRule read_benchmark_rule(const std::filesystem::path& path,
                                         const toml::node& node) {
    const auto* table = node.as_table();
    if (!table) fail_at(path, node.source(), "each [[benchmark]] must be a table");
    reject_unknown_keys(path, *table,
                        {"match", "ignore", "minimum", "counted_minimum", "budget_weight"},
                        "benchmark.");
    model::BenchmarkRule rule;
    const auto* match = table->get("match");
    if (!match)
        fail_at(path, node.source(),
                "a [[benchmark]] needs 'match', the benchmark names or glob patterns it sets, "
                "e.g. match = \"BM_Flaky*\"");
    if (const auto* patterns = match->as_array()) {
        for (const auto& pattern : *patterns)
            rule.patterns.push_back(read_rule_pattern(path, pattern));
        if (rule.patterns.empty())
            fail_at(path, match->source(), "'benchmark.match' names no benchmark");
    } else {
        rule.patterns.push_back(read_rule_pattern(path, *match));
    }
    if (const auto* ignore = table->get("ignore")) {
        if (!ignore->is_boolean())
            fail_at(path, ignore->source(), "'benchmark.ignore' must be true or false");
        rule.ignore = *ignore->value<bool>();
    }
    rule.minimum_change = fraction_at(path, *table, "minimum", "benchmark.", "0.05 for 5%");
    rule.counted_minimum_change = fraction_at(path, *table, "counted_minimum", "benchmark.",
                                              "0.002 for 0.2% of the instructions");
    if (const auto weight = number_at(path, *table, "budget_weight", "benchmark.")) {
        if (!(*weight >= 0.01 && *weight <= 100))
            fail_at(path, table->get("budget_weight")->source(),
                    "'benchmark.budget_weight' must be a number from 0.01 to 100; 1 is every "
                    "other benchmark's, and ignore = true leaves a benchmark out");
        rule.budget_weight = *weight;
    }
    const bool sets_judgement =
        rule.minimum_change || rule.counted_minimum_change || rule.budget_weight;
    if (rule.ignore && sets_judgement)
        fail_at(path, node.source(),
                "a [[benchmark]] with ignore = true is never judged; its 'minimum', "
                "'counted_minimum' and 'budget_weight' would do nothing, so leave them out");
    if (!rule.ignore && !sets_judgement)
        fail_at(path, node.source(),
                "this [[benchmark]] sets nothing; give it ignore = true, 'minimum', "
                "'counted_minimum' or 'budget_weight'");
    return rule;
}

std::optional<int> count_at(const std::filesystem::path& path, const toml::table& table,
                            const char* key, const std::string& where, int least) {
    const auto* node = table.get(key);
    if (!node) return std::nullopt;
    const auto value = node->value<std::int64_t>();
    if (!value || *value < least || *value > 1'000'000)
        fail_at(path, node->source(),
                fmt::format("'{}{}' must be a whole number >= {}", where, key, least));
    return static_cast<int>(*value);
}

LatencyConfig read_latency(const std::filesystem::path& path, const toml::node& node) {
    const auto* table = node.as_table();
    if (!table) fail_at(path, node.source(), "each [[latency]] must be a table");
    reject_unknown_keys(path, *table, {"name", "command", "runs", "warmup", "prepare"}, "latency.");
    LatencyConfig latency;
    latency.name = string_at(path, *table, "name", "latency.").value_or("");
    latency.command = string_at(path, *table, "command", "latency.").value_or("");
    if (latency.name.empty() || latency.command.empty())
        fail_at(path, node.source(), "a [[latency]] needs a non-empty 'name' and 'command'");
    latency.runs = count_at(path, *table, "runs", "latency.", 1);
    latency.warmup = count_at(path, *table, "warmup", "latency.", 0);
    latency.prepare = string_at(path, *table, "prepare", "latency.");
    return latency;
}

}  // namespace

std::filesystem::path Config::directory_or(const std::filesystem::path& fallback) const {
    return file ? file->parent_path() : fallback;
}

std::optional<std::filesystem::path> find_config(const std::filesystem::path& start) {
    std::error_code error;
    auto directory = std::filesystem::absolute(start, error);
    if (error) return std::nullopt;
    while (true) {
        const auto candidate = directory / config_name;
        if (std::filesystem::is_regular_file(candidate, error)) return candidate;
        if (!directory.has_parent_path() || directory.parent_path() == directory) break;
        directory = directory.parent_path();
    }
    return std::nullopt;
}

namespace {

// The level method's keys of [compare]: false_alarms_per_pr or sensitivity (a budget that
// calibrates the sensitivity, or the sensitivity fixed), noise_quantile, level_runs, noise_runs,
// budget_allocation.
void read_level_settings(const std::filesystem::path& path, const toml::table& compare,
                         benchwatch::compare::LevelSettings& settings,
                         std::optional<double>& configured_budget) {
    const auto budget = number_at(path, compare, "false_alarms_per_pr", "compare.");
    if (budget && !(*budget > 0 && *budget <= 1000))
        fail_at(path, compare.get("false_alarms_per_pr")->source(),
                "'compare.false_alarms_per_pr' must be above 0 and at most 1000, e.g. 1");
    if (const auto sensitivity = number_at(path, compare, "sensitivity", "compare.")) {
        if (!(*sensitivity > 0))
            fail_at(path, compare.get("sensitivity")->source(),
                    "'compare.sensitivity' must be positive");
        if (budget)
            fail_at(path, compare.get("sensitivity")->source(),
                    "'compare.sensitivity' fixes what 'compare.false_alarms_per_pr' calibrates; "
                    "set only one of them");
        settings.sensitivity = *sensitivity;
        settings.false_alarms_per_pr = std::nullopt;
    }
    if (budget) settings.false_alarms_per_pr = *budget;
    configured_budget = budget;
    if (const auto quantile = number_at(path, compare, "noise_quantile", "compare.")) {
        if (!(*quantile > 0 && *quantile <= 1))
            fail_at(path, compare.get("noise_quantile")->source(),
                    "'compare.noise_quantile' must be above 0 and at most 1, e.g. 0.9");
        settings.noise_quantile = *quantile;
    }
    const auto count_at = [&](const char* key, std::size_t& target) {
        const auto* node = compare.get(key);
        if (!node) return;
        const auto value = node->value<int64_t>();
        if (!value || *value < 1 || *value > 10000)
            fail_at(path, node->source(),
                    fmt::format("'compare.{}' must be a whole number from 1 to 10000", key));
        target = static_cast<std::size_t>(*value);
    };
    count_at("level_runs", settings.level_runs);
    count_at("noise_runs", settings.noise_runs);
    if (const auto* node = compare.get("budget_allocation")) {
        const auto name = node->value<std::string>();
        const auto allocation =
            name ? benchwatch::compare::budget_allocation_named(*name) : std::nullopt;
        if (!allocation)
            fail_at(path, node->source(),
                    "'compare.budget_allocation' must be \"by-noise\" or \"one-factor\"");
        settings.allocation = *allocation;
    }
}

// [measure] benchmarks: a non-empty array of non-empty glob patterns.
std::vector<std::string> read_benchmark_patterns(const std::filesystem::path& path,
                                                 const toml::node& node) {
    const auto* array = node.as_array();
    if (!array)
        fail_at(path, node.source(),
                "'measure.benchmarks' must be an array of benchmark names or glob patterns, e.g. "
                "[\"BM_Checksum*\", \"BM_Join/64\"]");
    if (array->empty())
        fail_at(path, node.source(),
                "'measure.benchmarks' names no benchmark; leave it out to measure every one");
    std::vector<std::string> patterns;
    for (const auto& pattern : *array) {
        const auto* text = pattern.as_string();
        if (!text || text->get().empty() || text->get().find_first_of("\n\r") != std::string::npos)
            fail_at(path, pattern.source(),
                    "'measure.benchmarks' must hold benchmark names or glob patterns ('*' for any "
                    "characters, '?' for one), e.g. \"BM_Checksum*\"");
        patterns.push_back(text->get());
    }
    return patterns;
}

MeasureConfig read_measure(const std::filesystem::path& path, const toml::node& node) {
    const auto* table = node.as_table();
    if (!table) fail_at(path, node.source(), "'measure' must be a table ([measure])");
    reject_unknown_keys(path, *table,
                        {"build", "run", "results", "input_format", "benchmarks", "timeout",
                         "worktrees", "worktrees_limit_gb", "instrument"},
                        "measure.");
    MeasureConfig measure;
    measure.build = string_at(path, *table, "build", "measure.").value_or("");
    measure.run = string_at(path, *table, "run", "measure.").value_or("");
    if (measure.run.empty())
        fail_at(path, node.source(),
                "[measure] needs a non-empty 'run', the command that prints the suite's results, "
                "e.g. run = \"build/bench --benchmark_format=json\"");
    measure.results = string_at(path, *table, "results", "measure.").value_or("");
    measure.input_format = string_at(path, *table, "input_format", "measure.").value_or("auto");
    measure.worktrees = string_at(path, *table, "worktrees", "measure.").value_or("");
    measure.instrument = string_at(path, *table, "instrument", "measure.").value_or("");
    if (!measure.instrument.empty() && measure.instrument != "callgrind" &&
        measure.instrument != "none")
        fail_at(path, table->get("instrument")->source(),
                "'measure.instrument' must be \"callgrind\" (count instructions under valgrind) "
                "or \"none\"");
    if (const auto* benchmarks = table->get("benchmarks"))
        measure.benchmarks = read_benchmark_patterns(path, *benchmarks);
    if (const auto timeout = number_at(path, *table, "timeout", "measure.")) {
        if (!(*timeout > 0))
            fail_at(path, table->get("timeout")->source(),
                    "'measure.timeout' must be a positive number of seconds");
        measure.timeout_seconds = *timeout;
    }
    if (const auto limit = number_at(path, *table, "worktrees_limit_gb", "measure.")) {
        if (!(*limit >= 0 && *limit <= 1e6))
            fail_at(path, table->get("worktrees_limit_gb")->source(),
                    "'measure.worktrees_limit_gb' must be a number of GB >= 0, e.g. 10");
        measure.worktrees_limit_bytes = static_cast<std::uint64_t>(*limit * 1e9);
    }
    return measure;
}

}  // namespace

Config load_config(const std::filesystem::path& path) {
    toml::table root;
    try {
        root = toml::parse_file(path.string());
    } catch (const toml::parse_error& error) {
        fail_at(path, error.source(), std::string(error.description()));
    }
    reject_unknown_keys(
        path, root,
        {"project", "machine", "store", "default_branch", "history_url", "dashboard_url",
         "repository_url", "compare", "category", "benchmark", "latency", "run", "measure"},
        "");
    Config config;
    config.file = path;
    config.project = string_at(path, root, "project", "");
    config.machine = string_at(path, root, "machine", "");
    config.store = string_at(path, root, "store", "");
    config.default_branch = string_at(path, root, "default_branch", "");
    config.history_url = string_at(path, root, "history_url", "");
    config.dashboard_url = string_at(path, root, "dashboard_url", "");
    config.repository_url = string_at(path, root, "repository_url", "");
    if (const auto* node = root.get("compare")) {
        const auto* compare = node->as_table();
        if (!compare) fail_at(path, node->source(), "'compare' must be a table");
        reject_unknown_keys(path, *compare,
                            {"method", "factor", "pairs", "false_alarms_per_pr", "sensitivity",
                             "noise_quantile", "level_runs", "noise_runs", "budget_allocation",
                             "paired", "paired_budget", "accept_label"},
                            "compare.");
        if (const auto* paired = compare->get("paired")) {
            // toml++ would read the integer 1 as true; only a boolean is one.
            if (!paired->is_boolean())
                fail_at(path, paired->source(), "'compare.paired' must be true or false");
            config.paired = *paired->value<bool>();
        }
        if (const auto budget = number_at(path, *compare, "paired_budget", "compare.")) {
            if (!(*budget > 0) || *budget > 86400)
                fail_at(path, compare->get("paired_budget")->source(),
                        "'compare.paired_budget' must be seconds above 0 and at most 86400, "
                        "e.g. 600");
            config.paired_budget_seconds = *budget;
        }
        config.method = string_at(path, *compare, "method", "compare.");
        config.accept_label = string_at(path, *compare, "accept_label", "compare.");
        if (config.accept_label &&
            (config.accept_label->find(',') != std::string::npos ||
             config.accept_label->find_first_of("\n\r") != std::string::npos))
            fail_at(path, compare->get("accept_label")->source(),
                    "'compare.accept_label' must be one label's name, without commas or line "
                    "breaks, e.g. \"performance-accepted\" (or \"\" to turn acceptance off)");
        if (const auto factor = number_at(path, *compare, "factor", "compare.")) {
            if (!(*factor > 0))
                fail_at(path, compare->get("factor")->source(),
                        "'compare.factor' must be positive");
            config.settings.factor = *factor;
        }
        if (const auto* pairs = compare->get("pairs")) {
            const auto value = pairs->value<int64_t>();
            if (!value || *value < 1 || *value > 100000)
                fail_at(path, pairs->source(), "'compare.pairs' must be a whole number >= 1");
            config.settings.pairs = static_cast<int>(*value);
        }
        read_level_settings(path, *compare, config.level_settings, config.false_alarms_per_pr);
    }
    if (const auto* node = root.get("run")) {
        const auto* run = node->as_table();
        if (!run) fail_at(path, node->source(), "'run' must be a table");
        reject_unknown_keys(path, *run, {"compilers", "instrument", "competing_work"}, "run.");
        if (const auto competing = string_at(path, *run, "competing_work", "run.")) {
            if (*competing != "warn" && *competing != "ignore")
                fail_at(path, run->get("competing_work")->source(),
                        "'run.competing_work' must be \"warn\" (record a run made while other "
                        "work kept the cores busy as under load) or \"ignore\"");
            config.warn_on_competing_work = *competing == "warn";
        }
        if (const auto instrument = string_at(path, *run, "instrument", "run.")) {
            if (*instrument != "callgrind" && *instrument != "none")
                fail_at(path, run->get("instrument")->source(),
                        "'run.instrument' must be \"callgrind\" (count instructions under "
                        "valgrind) or \"none\"");
            config.instrument = *instrument;
        }
        if (const auto* compilers = run->get("compilers")) {
            const auto* array = compilers->as_array();
            if (!array)
                fail_at(path, compilers->source(),
                        "'run.compilers' must be an array of program names, e.g. [\"go\"]");
            config.compilers.emplace();
            for (const auto& compiler : *array) {
                const auto* text = compiler.as_string();
                if (!text || text->get().empty() ||
                    text->get().find_first_of("/ \t\n") != std::string::npos)
                    fail_at(path, compiler.source(),
                            "'run.compilers' must hold program names found on PATH, e.g. \"g++\"");
                config.compilers->push_back(text->get());
            }
        }
    }
    if (const auto* node = root.get("measure")) config.measure = read_measure(path, *node);
    if (const auto* node = root.get("category")) {
        const auto* categories = node->as_array();
        if (!categories)
            fail_at(path, node->source(), "'category' must be an array of tables ([[category]])");
        config.categories.clear();
        for (const auto& category : *categories)
            config.categories.push_back(read_category(path, category));
        if (config.categories.empty())
            fail_at(path, node->source(), "'category' must hold at least one [[category]]");
        const bool has_catch_all =
            std::any_of(config.categories.begin(), config.categories.end(),
                        [](const model::Category& category) { return category.prefixes.empty(); });
        if (!has_catch_all)
            config.categories.insert(config.categories.begin(), model::catch_all_category());
    }
    if (const auto* node = root.get("benchmark")) {
        const auto* rules = node->as_array();
        if (!rules)
            fail_at(path, node->source(), "'benchmark' must be an array of tables ([[benchmark]])");
        for (const auto& rule : *rules)
            config.benchmark_rules.push_back(read_benchmark_rule(path, rule));
    }
    if (const auto* node = root.get("latency")) {
        const auto* latencies = node->as_array();
        if (!latencies)
            fail_at(path, node->source(), "'latency' must be an array of tables ([[latency]])");
        for (const auto& latency : *latencies)
            config.latency.push_back(read_latency(path, latency));
    }
    return config;
}

Config load_config_from(const std::filesystem::path& start) {
    if (const auto path = find_config(start)) return load_config(*path);
    return Config{};
}

}  // namespace benchwatch::cli
