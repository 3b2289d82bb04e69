#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/ingest.hpp"
#include "model/benchmark_rules.hpp"
#include "model/error.hpp"
#include "model/result.hpp"

namespace benchwatch::run {

// What a message about a recipe's run whose output is no results suggests besides
// --input-format: the usual cause, a suite that writes its results to a file.
inline constexpr std::string_view kRecipeResultsFileFix =
    "if the run writes its results to a file, name it with results = \"FILE\" in "
    "[measure] of benchwatch.toml";

// How to build a commit and run its benchmark suite: shell commands run with /bin/sh -c in the
// folder the commit is checked out in.
struct Recipe {
    std::string build;  // empty: nothing to build
    // Prints results in a format `record` reads, or writes `results`. Each "{benchmarks}" in it
    // becomes a pattern of the benchmarks wanted (suite_command()).
    std::string suite;
    std::string results;  // the file `suite` writes, relative to the folder; empty: its stdout
    std::string input_format = "auto";
    std::optional<std::chrono::duration<double>> timeout;  // for each command; nullopt: none
    // The benchmarks measured when no narrower list is asked for, as glob patterns ('*' any run
    // of characters, '/' included; '?' any one); empty: every benchmark.
    std::vector<std::string> subset;
    // Counts the suite's instructions under valgrind's callgrind instead of timing it
    // (count_harness()).
    bool instrumented = false;
};

// True when the benchmark `name` lies in the recipe's subset: it matches one of its patterns,
// or the subset is empty.
bool in_subset(const Recipe& recipe, std::string_view name);

// Removes from `results` every result of a benchmark outside the recipe's subset (a suite that
// ignores "{benchmarks}" prints them anyway); returns how many benchmarks were removed.
std::size_t drop_outside_subset(const Recipe& recipe, std::vector<model::Result>& results);

// A commit that could not be built or measured: what() is one line naming the commit, the
// command and how it failed ("build of 3f2a9c01d4e5 failed: exit 2 (make: *** No rule…)").
class RecipeError : public model::Error {
  public:
    explicit RecipeError(const std::string& message)
        : Error(model::ErrorKind::MeasurementAborted, message) {}
};

// The file in a commit's folder that holds the output of a build that failed.
inline constexpr std::string_view build_log_name = "benchwatch-build.log";

// Runs the recipe's build in `folder`, the checkout of `commit`, with `environment` set on top
// of this process's. Throws RecipeError when it fails or times out, after writing its output
// (the first and last MiB of stdout, then of stderr) to build_log_name in `folder`.
void build_commit(const Recipe& recipe, const std::filesystem::path& folder,
                  const std::string& commit, const std::map<std::string, std::string>& environment);

// The placeholder in Recipe::suite that names the benchmarks to run.
inline constexpr std::string_view benchmarks_placeholder = "{benchmarks}";

// The recipe's suite with each benchmarks_placeholder replaced by one shell word: a regular
// expression (POSIX extended and RE2 alike) that matches exactly the names in `benchmarks`,
// their metacharacters escaped; when `benchmarks` is empty, the names the recipe's subset
// matches ('*' becoming ".*" and '?' "."), or '.' (any name) without a subset. Example: for
// suite "bench --benchmark_filter={benchmarks}" and {"BM_Sort/8", "BM_Parse"}:
// "bench --benchmark_filter='^(BM_Sort/8|BM_Parse)$'"; with no names and the subset
// {"BM_Sort*"}: "bench --benchmark_filter='^(BM_Sort.*)$'".
std::string suite_command(const Recipe& recipe, std::span<const std::string> benchmarks);

// Runs the recipe's suite (suite_command() for `benchmarks`, empty: its subset) once in `folder`
// and reads the results it printed or wrote. Throws RecipeError when it fails or writes no results,
// and ingest's InputError when they are not a results file.
ingest::ParsedResults run_suite(const Recipe& recipe, const std::filesystem::path& folder,
                                const std::string& commit,
                                const std::map<std::string, std::string>& environment,
                                std::span<const std::string> benchmarks = {});

}  // namespace benchwatch::run
