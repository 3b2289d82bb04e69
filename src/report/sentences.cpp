#include "report/sentences.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "compare/method.hpp"
#include "model/category.hpp"
#include "model/environment_keys.hpp"
#include "model/words.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"
#include "report/rows.hpp"

namespace benchwatch::report::detail {

std::string short_commit(std::string_view commit) {
    const bool is_sha = commit.size() >= 9 && std::all_of(commit.begin(), commit.end(), [](char c) {
                            return std::isxdigit(static_cast<unsigned char>(c)) != 0;
                        });
    return std::string(is_sha ? commit.substr(0, 9) : commit);
}

std::string baseline_sentence(const model::Comparison& comparison, Escape escape) {
    const auto& baseline = comparison.baseline;
    const auto commit = escape(short_commit(baseline.commit));
    switch (baseline.kind) {
        case model::BaselineKind::MergeBase:
            return fmt::format("Compared with {}, the merge base.", commit);
        case model::BaselineKind::NearestAncestor:
            // The head is its own merge base when it is on the default branch.
            if (!baseline.merge_base.empty() && baseline.merge_base == comparison.head_commit)
                return fmt::format(
                    "This commit is on the default branch, so it is compared with the run before "
                    "it: {}, {} commit{} earlier.",
                    commit, baseline.commits_earlier, baseline.commits_earlier == 1 ? "" : "s");
            return fmt::format(
                "Compared with {}, the nearest benchmarked ancestor of the merge base {} ({} "
                "commit{} earlier).",
                commit, escape(short_commit(baseline.merge_base)), baseline.commits_earlier,
                baseline.commits_earlier == 1 ? "" : "s");
        case model::BaselineKind::Explicit:
            return fmt::format("Compared with {}.", commit);
        case model::BaselineKind::LatestOnDefaultBranch:
            return fmt::format(
                "Compared with {}, the latest run recorded on the default branch (no git history "
                "to find the merge base).",
                commit);
        case model::BaselineKind::Files:
            return fmt::format(
                "Compared {} with {}, file against file: two runs without a history, judged by "
                "the samples each carries.",
                escape(comparison.head_commit), commit);
        case model::BaselineKind::None:
            break;
    }
    return "No baseline: no run of the merge base or its ancestors was found, so nothing is "
           "compared.";
}

std::string change_list(const std::vector<model::EnvironmentChange>& changes, Escape escape) {
    std::vector<std::string> parts;
    for (const auto& change : changes) {
        const auto key = escape(change.key);
        if (change.before && change.after)
            parts.push_back(
                fmt::format("{} {} → {}", key, escape(*change.before), escape(*change.after)));
        else if (change.after)
            parts.push_back(fmt::format("{} added ({})", key, escape(*change.after)));
        else if (change.before)
            parts.push_back(fmt::format("{} removed (was {})", key, escape(*change.before)));
        else
            parts.push_back(key);
    }
    return join(parts, ", ");
}

namespace {

// How one machine key reads in "Measured on: …": "2 cores", "kernel 6.1.0", or the value alone.
std::string machine_part(std::string_view key, const std::string& value) {
    if (key == "kernel") return "kernel " + value;
    if (key == "cores") return value == "1" ? "1 core" : value + " cores";
    if (key == "memory") return value + " of memory";
    if (key == "gpu.driver") return "GPU driver " + value;
    if (model::is_machine_key(key)) return value;
    return fmt::format("{} {}", key, value);
}

}  // namespace

std::string environment_sentence(const std::vector<model::EnvironmentChange>& changes,
                                 Escape escape) {
    if (changes.empty()) return "";
    return fmt::format("The environment differs from the baseline's: {}.",
                       change_list(changes, escape));
}

std::string machine_sentence(const model::Environment& machine, Escape escape) {
    if (machine.empty()) return "";
    std::vector<std::string> parts;
    for (const auto key : model::machine_keys)
        if (const auto found = machine.find(std::string(key)); found != machine.end())
            parts.push_back(escape(machine_part(key, found->second)));
    for (const auto& [key, value] : machine)
        if (!model::is_machine_key(key)) parts.push_back(escape(machine_part(key, value)));
    return fmt::format("Measured on: {}.", join(parts, ", "));
}

std::string machine_change_sentence(const std::vector<model::EnvironmentChange>& changes,
                                    Escape escape) {
    if (changes.empty()) return "";
    return fmt::format("The baseline ran on a different machine: {}.",
                       change_list(changes, escape));
}

std::string warnings_sentence(std::string_view whose, const std::vector<model::Warning>& warnings,
                              Escape escape) {
    if (warnings.empty()) return "";
    std::vector<std::string> sentences;
    for (const auto& warning : warnings) {
        auto sentence = escape(plain_text(warning.message));
        if (!sentence.ends_with('.') && !sentence.ends_with('!') && !sentence.ends_with('?'))
            sentence += '.';
        sentences.push_back(std::move(sentence));
    }
    return fmt::format("Measurement warnings for {} run: {}", whose, join(sentences, " "));
}

namespace {

// The most left-out runs a report names; the rest are counted.
constexpr std::size_t kLeftOutRunsNamed = 5;

// "Left out of the levels and noises: 4 default-branch runs (abc1234, …) in which the whole suite
// moved together by +42.5% and came back, a slow spell of the machine (backfill …).", or "" when
// none were.
std::string left_out_sentence(const model::Comparison& comparison, Escape escape) {
    const auto& runs = comparison.left_out_runs;
    if (runs.empty()) return "";
    std::vector<std::string> named;
    for (std::size_t i = 0; i < runs.size() && i < kLeftOutRunsNamed; ++i)
        named.push_back(escape(runs[i].substr(0, 9)));
    if (runs.size() > kLeftOutRunsNamed)
        named.push_back(fmt::format("{} more", runs.size() - kLeftOutRunsNamed));
    const auto which = fmt::format("{} default-branch run{} ({})", runs.size(),
                                   runs.size() == 1 ? "" : "s", join(named, ", "));
    if (comparison.left_out_move == 0)
        return fmt::format(
            "Left out of the levels and noises: {} recorded while the machine was busy "
            "(backfill --remeasure-disturbed measures them again).",
            which);
    if (comparison.left_out_unsettled)
        return fmt::format(
            "Left out of the levels and noises: {} in which the whole suite moved together by {} "
            "away from the runs before; the newest run is one of them, so whether that was the "
            "machine or a lasting change is not known yet. Record those commits again, or compare "
            "this pull request side by side (compare --paired), to be sure.",
            which, model::format_change(comparison.left_out_move));
    return fmt::format(
        "Left out of the levels and noises: {} in which the whole suite moved together by {} and "
        "came back, a slow spell of the machine (backfill --remeasure-disturbed measures them "
        "again).",
        which, model::format_change(comparison.left_out_move));
}

// "This PR's run was made under load …", or "" when it was not (or most default-branch runs were
// too).
std::string head_under_load_sentence(const model::Comparison& comparison) {
    if (!comparison.head_under_load) return "";
    return "This PR's run was made while other work kept the machine busy, and most "
           "default-branch runs were not; other work only slows a run down, so its slowdowns are "
           "left inconclusive: run it again at a quiet time, or compare base and head side by "
           "side (compare --paired).";
}

// "Accepted by @alice with the label `performance-accepted`: …", or "" when not accepted.
std::string accepted_sentence(const model::Comparison& comparison, Escape escape) {
    if (!comparison.accepted) return "";
    const auto& accepted = *comparison.accepted;
    const auto slower = std::count_if(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                                      [](const model::BenchmarkComparison& one) {
                                          return one.verdict == model::Verdict::Slower;
                                      });
    auto sentence = fmt::format("Accepted{} with the label {}",
                                accepted.by.empty() ? "" : " by " + escape(accepted.by),
                                escape(accepted.label));
    if (slower == 0) return sentence + "; no benchmark is slower.";
    return sentence + fmt::format(": {} slower benchmark{} {} not fail the check.", slower,
                                  slower == 1 ? "" : "s", slower == 1 ? "does" : "do");
}

}  // namespace

std::vector<std::string> context_lines(const model::Comparison& comparison, Escape escape) {
    std::vector<std::string> lines = {
        accepted_sentence(comparison, escape),
        environment_sentence(comparison.environment_changes, escape),
        machine_sentence(comparison.machine_environment, escape),
        machine_change_sentence(comparison.machine_changes, escape),
        warnings_sentence("this PR's", comparison.head_warnings, escape),
        head_under_load_sentence(comparison),
        warnings_sentence("the baseline's", comparison.baseline_warnings, escape),
        left_out_sentence(comparison, escape),
    };
    std::erase(lines, std::string());
    return lines;
}

namespace {

std::string lower_ascii(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

namespace {

// How base and head measured side by side were judged, in place of a method's paragraph.
std::string paired_paragraph(const model::Comparison& comparison,
                             const std::vector<std::string>& minimums) {
    const auto& rounds = *comparison.confirmation;
    const auto budget =
        rounds.false_alarms_per_suite > 0
            ? fmt::format(
                  "the suite's budget of {:g} false verdict{} per pull request is shared "
                  "by its {} benchmarks, so each verdict is wrong with probability at "
                  "most {}",
                  rounds.false_alarms_per_suite, rounds.false_alarms_per_suite == 1 ? "" : "s",
                  rounds.benchmarks.size(), model::percent_without_trailing_zeros(rounds.alpha))
            : fmt::format("each verdict is wrong with probability at most {}",
                          model::percent_without_trailing_zeros(rounds.alpha));
    return fmt::format(
        "Measured side by side: the baseline and this PR were built once each and their suites "
        "run in {} interleaved round{} in this job, each pair of rounds in a random order, so that "
        "a busy machine slows both alike and no history is needed. Each benchmark's change is the "
        "median of its per-round ratios (its baseline value is the median of the baseline's "
        "runs); it is flagged when the interval of that median lies beyond its category's minimum "
        "change ({}), unchanged when the interval lies within it, and inconclusive while it "
        "straddles it; {}.",
        rounds.rounds, rounds.rounds == 1 ? "" : "s", join(minimums, ", "), budget);
}

}  // namespace

std::string explanation_paragraph(const model::Comparison& comparison, Escape escape) {
    std::vector<std::string> minimums;
    for (const auto& category : comparison.categories)
        minimums.push_back(
            fmt::format("{} {}", escape(lower_ascii(category.name)),
                        model::percent_without_trailing_zeros(category.minimum_change)));
    auto paragraph =
        comparison.paired
            ? paired_paragraph(comparison, minimums)
            : compare::method_unit(comparison.method.name()).explanation(comparison, minimums);
    if (std::any_of(
            comparison.benchmarks.begin(), comparison.benchmarks.end(),
            [](const auto& benchmark) { return model::is_counted_metric(benchmark.metric); })) {
        std::vector<std::string> counted;
        for (const auto& category : comparison.categories)
            counted.push_back(fmt::format(
                "{} {}", escape(lower_ascii(category.name)),
                model::percent_without_trailing_zeros(category.counted_minimum_change)));
        paragraph += fmt::format(
            " Instructions and estimated cycles were counted under valgrind's callgrind, per "
            "iteration of each benchmark's loop, and repeat from run to run however busy the "
            "machine; for them the minimum change per category is smaller ({}).",
            join(counted, ", "));
    }
    return paragraph;
}

bool says_what_it_could_detect(const model::Comparison& comparison) {
    return comparison.paired ||
           compare::method_unit(comparison.method.name()).says_what_it_could_detect;
}

}  // namespace benchwatch::report::detail
