// What could break: any layer between BenchmarkTools.jl files and the pull-request report
// (ingest, store, first-parent history, typical changes, the seed rule, summaries, number
// formatting, row order, environment differences), so that benchwatch no longer writes the two
// reference reports of shared/seeds/ row for row.

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Default-branch commits with a run: 30 consecutive pairs, all the seed rule looks at.
constexpr int main_commits = 31;

// One benchmark of a seed (a line of tests/data/seeds/NAME.tsv).
struct SeedBenchmark {
    std::string name;           // full name, with its latency/ or integration/ prefix
    double base_ns = 0;         // the merge base's time
    double head_ns = 0;         // the pull request's time
    double typical_change = 0;  // what the default branch's history must give, as |ln ratio|
};

// One seed report and how its pull request differs from the default branch.
struct Seed {
    std::string name;                            // project, and tests/data/seeds/NAME.{md,tsv}
    std::string seed_merge_base;                 // the 9 digits the seed shows
    std::vector<std::string> main_environment;   // --env of every default-branch run
    std::vector<std::string> head_environment;   // --env of the pull request's run
    std::map<std::string, std::string> unusual;  // benchmark → verdict, as the seed flags them
};

const std::vector<Seed>& seeds() {
    static const std::vector<Seed> all{
        {"cuda",
         "4eb6468cd",
         {"LLVM=10.4.2", "BFloat16sExt=10.4.2"},
         {"LLVM=10.4.3", "BFloat16sExt=10.4.3"},
         {{"cuda/synchronization/context/nonblocking", "slower"}}},
        {"amdgpu",
         "6ecd201bb",
         {},
         {},
         {{"array/permutedims/4d", "faster"},
          {"array/reductions/reduce/Float32/1d", "faster"},
          {"array/reductions/mapreduce/Float32/1d", "slower"},
          {"array/copy", "slower"},
          {"array/reductions/reduce/Float32/dims=2", "slower"}}},
    };
    return all;
}

// Names the seed in test output instead of dumping its bytes.
void PrintTo(const Seed& seed, std::ostream* out) {
    *out << seed.name;
}

fs::path seed_data(const std::string& file) {
    return fs::path(BENCHWATCH_TEST_DATA) / "seeds" / file;
}

double parse_number(std::string_view text, const std::string& where) {
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
        throw std::runtime_error(where + ": '" + std::string(text) + "' is not a number");
    return value;
}

// Reads "name \t base_ns \t head_ns \t typical_change" lines; '#' starts a comment line.
std::vector<SeedBenchmark> read_seed_table(const fs::path& path) {
    std::vector<SeedBenchmark> table;
    std::istringstream lines(read_text(path));
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        if (line.empty() || line.front() == '#') continue;
        const auto where = path.string() + ":" + std::to_string(number);
        std::vector<std::string_view> fields;
        std::string_view rest = line;
        for (auto tab = rest.find('\t'); tab != std::string_view::npos; tab = rest.find('\t')) {
            fields.push_back(rest.substr(0, tab));
            rest.remove_prefix(tab + 1);
        }
        fields.push_back(rest);
        if (fields.size() != 4)
            throw std::runtime_error(where + ": expected 4 tab-separated fields");
        table.push_back({std::string(fields[0]), parse_number(fields[1], where),
                         parse_number(fields[2], where), parse_number(fields[3], where)});
    }
    return table;
}

json benchmark_group() {
    return json::array({"BenchmarkGroup", {{"tags", json::array()}, {"data", json::object()}}});
}

json trial(double time_ns) {
    const json parameters = {
        {"gctrial", true},    {"time_tolerance", 0.05},
        {"evals_set", false}, {"samples", 10000},
        {"evals", 1},         {"gcsample", false},
        {"seconds", 5.0},     {"memory_tolerance", 0.01},
        {"overhead", 0.0},
    };
    return json::array({"Trial",
                        {{"allocs", 0},
                         {"gctimes", json::array({0.0})},
                         {"memory", 0},
                         {"params", json::array({"Parameters", parameters})},
                         {"times", json::array({time_ns})}}});
}

// A BenchmarkTools.jl results file (`BenchmarkTools.save`): versions, then one group whose
// nested groups follow the '/'-separated names, one single-sample Trial per benchmark.
std::string benchmarktools_file(const std::vector<std::pair<std::string, double>>& times) {
    json root = benchmark_group();
    for (const auto& [name, time_ns] : times) {
        json* group = &root;
        std::string_view rest = name;
        for (auto slash = rest.find('/'); slash != std::string_view::npos; slash = rest.find('/')) {
            json& data = (*group)[1]["data"];
            const std::string part(rest.substr(0, slash));
            if (!data.contains(part)) data[part] = benchmark_group();
            group = &data[part];
            rest.remove_prefix(slash + 1);
        }
        (*group)[1]["data"][std::string(rest)] = trial(time_ns);
    }
    json versions = json::object();
    versions["Julia"] = "1.11.0";
    versions["BenchmarkTools"] = "1.0.0";
    return json::array({versions, json::array({root})}).dump() + "\n";
}

// The time of a benchmark at default-branch commit `index` (0 oldest): the baseline at the last
// commit, and e^±typical away from it at every other one going back, so that every consecutive
// pair changes by exactly the typical change.
double main_time(const SeedBenchmark& benchmark, int index) {
    const bool odd_distance_from_last = (main_commits - 1 - index) % 2 == 1;
    return odd_distance_from_last ? benchmark.base_ns * std::exp(benchmark.typical_change)
                                  : benchmark.base_ns;
}

// A seed's history recorded into a store, and the pull request compared with it.
class SeedReportTest : public ::testing::TestWithParam<Seed> {
  protected:
    void SetUp() override {
        table_ = read_seed_table(seed_data(GetParam().name + ".tsv"));
        GitRepository repository(scratch_.path() / "repository");
        repository_ = repository.directory();
        for (int index = 0; index < main_commits; ++index) {
            merge_base_ = repository.commit("main " + std::to_string(index));
            std::vector<std::pair<std::string, double>> times;
            for (const auto& benchmark : table_)
                times.emplace_back(benchmark.name, main_time(benchmark, index));
            record("main", merge_base_, times, GetParam().main_environment);
        }
        repository.git({"checkout", "--quiet", "-b", "pr"});
        head_ = repository.commit("the pull request");
        std::vector<std::pair<std::string, double>> times;
        for (const auto& benchmark : table_) times.emplace_back(benchmark.name, benchmark.head_ns);
        record("pr", head_, times, GetParam().head_environment);
    }

    // Writes `times` as a BenchmarkTools.jl file and records it as the run of `commit` on
    // `branch`, with `environment` as --env KEY=VALUE arguments.
    void record(const std::string& branch, const std::string& commit,
                const std::vector<std::pair<std::string, double>>& times,
                const std::vector<std::string>& environment) {
        const auto file = scratch_.path() / "results" / (branch + "-" + commit + ".json");
        write_text(file, benchmarktools_file(times));
        std::vector<std::string> arguments{"record",
                                           "--store",
                                           store(),
                                           "--project",
                                           GetParam().name,
                                           "--machine",
                                           "seed",
                                           "--branch",
                                           branch,
                                           "--commit",
                                           commit,
                                           "--repo",
                                           repository_.string()};
        for (const auto& variable : environment) {
            arguments.push_back("--env");
            arguments.push_back(variable);
        }
        arguments.push_back(file.string());
        run_checked(benchwatch_command(arguments), scratch_.path());
    }

    // `benchwatch compare` of the pull request's head in `format`; its stdout.
    std::string compare(const std::string& format) {
        const auto output =
            run_checked(benchwatch_command({"compare", "--store", store(), "--project",
                                            GetParam().name, "--machine", "seed", "--repo",
                                            repository_.string(), "--head", head_, "--history-url",
                                            "https://juliagpu.org/perf/?pkg=" + GetParam().name,
                                            "--method", "seed", "--format", format}),
                        scratch_.path());
        EXPECT_EQ(output.err, "");
        return output.out;
    }

    const std::string& store() const { return store_; }

    TemporaryDirectory scratch_{"benchwatch-seed"};
    std::string store_ = test_store_url(scratch_.path());
    fs::path repository_;
    std::vector<SeedBenchmark> table_;
    std::string merge_base_;  // the last default-branch commit, where the pull request forks
    std::string head_;
};

TEST_P(SeedReportTest, MarkdownIsTheSeedsReport) {
    auto report = compare("markdown");
    // git chose the merge base's SHA; the golden copy shows the seed's, so the report's first
    // 9 hex digits of it are swapped for the seed's before comparing.
    const auto shown = "Compared with " + merge_base_.substr(0, 9) + ",";
    const auto at = report.find(shown);
    ASSERT_NE(at, std::string::npos)
        << "the report does not name the merge base " << merge_base_ << ":\n"
        << report;
    report.replace(at + std::string_view("Compared with ").size(), 9, GetParam().seed_merge_base);

    const auto golden = read_text(seed_data(GetParam().name + ".md"));
    EXPECT_TRUE(report == golden) << "benchwatch's report differs from "
                                  << seed_data(GetParam().name + ".md").string()
                                  << " (fixed by the seed; fix benchwatch, not the golden copy)\n"
                                  << unified_diff(golden, report);
}

TEST_P(SeedReportTest, JsonMarksExactlyTheSeedsUnusualBenchmarks) {
    const auto report = json::parse(compare("json"));
    EXPECT_EQ(report["baseline"]["kind"], "merge_base");
    EXPECT_EQ(report["baseline"]["commit"], merge_base_);
    EXPECT_EQ(report["history_order"], "git");
    EXPECT_EQ(report["history_runs"], main_commits);

    std::map<std::string, SeedBenchmark> expected;
    for (const auto& benchmark : table_) expected.emplace(benchmark.name, benchmark);
    std::map<std::string, std::string> unusual;
    std::set<std::string> seen;
    for (const auto& benchmark : report["benchmarks"]) {
        const auto name = benchmark["name"].get<std::string>();
        seen.insert(name);
        if (benchmark["unusual"].get<bool>()) unusual[name] = benchmark["verdict"];
        const auto row = expected.find(name);
        if (row == expected.end()) continue;
        // Stored and read back unchanged, and every pair of the history changes by exactly
        // the typical change, so the median of the 30 pairs is it up to rounding of ln and exp.
        EXPECT_DOUBLE_EQ(benchmark["base"].get<double>(), row->second.base_ns) << name;
        EXPECT_DOUBLE_EQ(benchmark["head"].get<double>(), row->second.head_ns) << name;
        EXPECT_NEAR(benchmark["noise_log"].get<double>(), row->second.typical_change, 1e-12)
            << name;
        EXPECT_EQ(benchmark["history_pairs"], main_commits - 1) << name;
    }
    std::set<std::string> names;
    for (const auto& benchmark : table_) names.insert(benchmark.name);
    EXPECT_EQ(seen, names);
    EXPECT_EQ(unusual, GetParam().unusual);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedReportTest, ::testing::ValuesIn(seeds()),
                         [](const ::testing::TestParamInfo<Seed>& seed) {
                             return seed.param.name;
                         });

}  // namespace
}  // namespace benchwatch::testing
