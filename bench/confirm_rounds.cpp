// How many rounds confirm's interval rule needs to decide a real change and a fluke, on the
// seeded noise harness of confirm's tests (docs/confirm.md, "How many rounds").
//
// Usage: confirm_rounds NOISY_HARNESS [REPLAYS] [SIGMA...]
// For each noise level SIGMA (default 0.01 0.02 0.03) and each of REPLAYS seeds (default 200), the
// harness is run for 30 rounds, base and head alternating, with two benchmarks: BM_Real, whose
// head is 10% slower and which a report flagged at +10%, and BM_Fluke, unchanged but flagged at
// +12%. The 30 rounds are then judged by the confidence sequence at alpha 0.05, and the rounds
// it needed, how often it was wrong and how often it ran out of rounds are printed as a Markdown
// table.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ingest/ingest.hpp"
#include "run/confirm.hpp"
#include "run/timed_process.hpp"

namespace {

using namespace benchwatch;

constexpr int kRounds = 30;

// One replay: the results of each invocation in the order confirm asks for them.
std::vector<std::vector<model::Result>> measure_replay(const std::string& harness, double sigma,
                                                       int seed) {
    const auto state = std::filesystem::temp_directory_path() /
                       fmt::format("benchwatch-confirm-rounds-{}-{}", ::getpid(), seed);
    std::filesystem::create_directories(state);
    std::filesystem::remove(state / "invocations");
    std::vector<std::vector<model::Result>> invocations;
    for (int round = 1; round <= kRounds; ++round)
        for (int side = 0; side < 2; ++side) {
            // confirm measures base first in odd rounds, head first in even ones.
            const bool head = (round % 2 == 1) == (side == 1);
            run::Command command;
            command.argv = {harness, state.string(), head ? "head" : "base", "BM_Real:1000:0.10",
                            "BM_Fluke:2000:0"};
            command.environment = {{"BENCHWATCH_NOISE_SEED", std::to_string(seed)},
                                   {"BENCHWATCH_NOISE_SIGMA", fmt::format("{}", sigma)}};
            const auto result = run::run_timed(command);
            if (!result.succeeded()) throw std::runtime_error("the harness failed: " + result.err);
            invocations.push_back(ingest::parse(result.out, "harness", "auto").results);
        }
    std::filesystem::remove_all(state);
    return invocations;
}

struct Tally {
    std::vector<int> rounds;  // of each decided replay
    int wrong = 0;
    int undecided = 0;
};

double percentile(std::vector<int> values, double fraction) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    return values[static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1))];
}

double mean(const std::vector<int>& values) {
    double total = 0;
    for (const int value : values) total += value;
    return values.empty() ? 0 : total / static_cast<double>(values.size());
}

run::ConfirmTarget flagged(const std::string& name, double change) {
    run::ConfirmTarget target;
    target.name = name;
    target.flagged = model::Verdict::Slower;
    target.flagged_change = change;
    return target;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        fmt::print(stderr, "usage: confirm_rounds NOISY_HARNESS [REPLAYS] [SIGMA...]\n");
        return 64;
    }
    const std::string harness = argv[1];
    const int replays = argc > 2 ? std::atoi(argv[2]) : 200;
    std::vector<double> sigmas;
    for (int i = 3; i < argc; ++i) sigmas.push_back(std::strtod(argv[i], nullptr));
    if (sigmas.empty()) sigmas = {0.01, 0.02, 0.03};

    const std::vector<const char*> rules{"confidence sequence"};
    fmt::print("| σ | rule | change | rounds: median | mean | 95th pct | wrong | undecided |\n");
    fmt::print("|--:|:--|:--|--:|--:|--:|--:|--:|\n");
    for (const double sigma : sigmas) {
        std::map<std::pair<int, std::string>, Tally> tallies;  // by rule and benchmark
        for (int seed = 1; seed <= replays; ++seed) {
            const auto invocations = measure_replay(harness, sigma, seed);
            for (std::size_t r = 0; r < rules.size(); ++r) {
                run::ConfirmSettings settings;
                settings.max_rounds = kRounds;
                std::size_t next = 0;
                const auto confirmation = run::confirm(
                    std::vector{flagged("BM_Fluke", 0.12), flagged("BM_Real", 0.10)}, {},
                    [&](run::Build) { return invocations.at(next++); }, [] { return 0.0; },
                    settings);
                for (const auto& judged : confirmation.benchmarks) {
                    auto& tally = tallies[{static_cast<int>(r), judged.name}];
                    const bool real = judged.name == "BM_Real";
                    if (judged.verdict == model::ConfirmationVerdict::Undecided) {
                        ++tally.undecided;
                        continue;
                    }
                    tally.rounds.push_back(judged.rounds);
                    const bool confirmed = judged.verdict == model::ConfirmationVerdict::Confirmed;
                    if (confirmed != real) ++tally.wrong;
                }
            }
        }
        for (const auto& [key, tally] : tallies)
            fmt::print("| {:.0f}% | {} | {} | {:.0f} | {:.1f} | {:.0f} | {}/{} | {}/{} |\n",
                       sigma * 100, rules[static_cast<std::size_t>(key.first)],
                       key.second == "BM_Real" ? "real +10%" : "fluke flagged +12%",
                       percentile(tally.rounds, 0.5), mean(tally.rounds),
                       percentile(tally.rounds, 0.95), tally.wrong, replays, tally.undecided,
                       replays);
    }
    return 0;
}
