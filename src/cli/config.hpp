#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare/level_method.hpp"
#include "compare/seed_method.hpp"
#include "model/benchmark_rules.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/error.hpp"

namespace benchwatch::cli {

// benchwatch.toml is malformed or holds a value of the wrong type. what() is one line with the
// file, the line and column where known, and what was expected.
class ConfigError : public model::Error {
  public:
    explicit ConfigError(const std::string& message) : Error(model::ErrorKind::Config, message) {}
};

// A [[latency]] table: a whole command timed as the benchmark "latency/<name>".
struct LatencyConfig {
    std::string name;
    std::string command;  // run with /bin/sh -c
    std::optional<int> runs;
    std::optional<int> warmup;
    std::optional<std::string> prepare;  // run before each timed run, untimed

    friend bool operator==(const LatencyConfig&, const LatencyConfig&) = default;
};

// The [measure] table: how benchwatch builds a commit and runs its suite itself (backfill).
// Commands run with /bin/sh -c in the commit's own checked-out folder.
struct MeasureConfig {
    std::string build;    // empty: nothing to build
    std::string run;      // prints results in a format `record` reads, or writes `results`
    std::string results;  // the file `run` writes, relative to the commit's folder; empty: stdout
    std::string input_format = "auto";
    // The benchmarks measured by default, as glob patterns ('*' any run of characters, '?' one):
    // "{benchmarks}" in `run` names them when no narrower list is asked for, and results outside
    // them are dropped before recording. Empty: every benchmark.
    std::vector<std::string> benchmarks;
    std::optional<double> timeout_seconds;  // for each command; nullopt: none
    // "callgrind": count the suite's instructions instead of timing it; empty: the [run]
    // instrument, else none.
    std::string instrument;
    // Where the commits' folders are kept, as written (relative to the config file); empty: in
    // the repository's git folder, benchwatch-worktrees/.
    std::string worktrees;
    std::uint64_t worktrees_limit_bytes = 10'000'000'000;  // 10 GB kept between commits

    friend bool operator==(const MeasureConfig&, const MeasureConfig&) = default;
};

// What benchwatch.toml says; every field is optional in the file.
struct Config {
    std::optional<std::filesystem::path> file;  // where it was read from; nullopt: none found
    std::optional<std::string> project;
    std::optional<std::string> machine;
    std::optional<std::string> store;  // as written; relative paths are relative to the file
    std::optional<std::string> default_branch;
    std::optional<std::string> history_url;     // "{project}" is replaced by the project name
    std::optional<std::string> dashboard_url;   // where `benchwatch serve` or `site` is published
    std::optional<std::string> repository_url;  // the forge's page of the repository
    std::optional<std::string> method;
    compare::SeedSettings settings;
    compare::LevelSettings level_settings;
    // compare.false_alarms_per_pr: the budget of whichever method spends one (the level method
    // calibrates to it, the samples method tests at it); std::nullopt when not configured.
    std::optional<double> false_alarms_per_pr;
    // compare.paired: pull requests are judged by base and head measured side by side
    // (`compare --paired`); compare.paired_budget: the seconds that may take, builds included.
    bool paired = false;
    // compare.accept_label: the pull-request label that accepts its slowdowns ("" turns it off);
    // std::nullopt when not configured.
    std::optional<std::string> accept_label;
    std::optional<double> paired_budget_seconds;
    std::vector<model::Category> categories = model::default_categories();
    // The [[benchmark]] tables: settings of benchmarks chosen by glob pattern.
    model::BenchmarkRules benchmark_rules;
    std::vector<LatencyConfig> latency;
    // The toolchains whose versions `run` records; std::nullopt: those of the harness
    // (run::default_compilers).
    std::optional<std::vector<std::string>> compilers;
    // How `run` measures: "callgrind" counts instructions under valgrind, "none" times.
    std::optional<std::string> instrument;
    // Whether `run`, backfill and bisect measure the other work competing with the benchmarks and
    // record a run under load with a high-load warning ([run] competing_work = "warn", the
    // default); false ("ignore") for harnesses whose figures other work cannot move.
    bool warn_on_competing_work = true;
    std::optional<MeasureConfig> measure;

    // The directory holding the file, or `fallback` when there is none.
    std::filesystem::path directory_or(const std::filesystem::path& fallback) const;
};

// The nearest benchwatch.toml in `start` or one of its parents; nullopt when there is none.
std::optional<std::filesystem::path> find_config(const std::filesystem::path& start);

// Reads the config file at `path`. Configured categories replace the defaults; when none of them
// lacks prefixes, model::catch_all_category() ("Performance", 3%) comes first so that every
// benchmark has a category. Throws ConfigError on malformed TOML, wrong value types, unknown keys,
// categories without a name or with a minimum outside [0, 1), and [[benchmark]] tables without a
// pattern or a setting, or with a pattern that is empty or uses '[' (globs here have only '*' and
// '?').
Config load_config(const std::filesystem::path& path);

// find_config() then load_config(), or the built-in defaults when no file exists.
Config load_config_from(const std::filesystem::path& start);

}  // namespace benchwatch::cli
