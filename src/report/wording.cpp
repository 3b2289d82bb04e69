#include "report/wording.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "compare/level_method.hpp"
#include "compare/replay.hpp"
#include "compare/samples_method.hpp"
#include "model/category.hpp"
#include "model/environment_keys.hpp"
#include "model/utf8.hpp"
#include "report/report.hpp"

namespace benchwatch::report::detail {

std::string plain_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const std::size_t length = model::utf8_sequence_length(text);
        const auto lead = static_cast<unsigned char>(text[0]);
        if (length == 0) {
            // A lone byte 0x80-0x9F is a C1 control to a terminal that is not in UTF-8 mode.
            out += "\ufffd";
            text.remove_prefix(1);
            continue;
        }
        const bool c0_or_delete = length == 1 && (lead < 0x20 || lead == 0x7f);
        const bool c1 = length == 2 && lead == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0;
        if (c0_or_delete || c1 || model::bidi_control_length(text) != 0)
            out += ' ';
        else
            out += text.substr(0, length);
        text.remove_prefix(length);
    }
    return out;
}

namespace {

// The length in bytes of the Unicode White_Space character that `text` starts with, else 0.
std::size_t white_space_length(std::string_view text) {
    const std::size_t length = model::utf8_sequence_length(text);
    if (length == 0) return 0;
    const char32_t code_point = model::utf8_code_point(text.substr(0, length));
    const bool white = (code_point >= 0x09 && code_point <= 0x0D) || code_point == 0x20 ||
                       code_point == 0x85 || code_point == 0xA0 || code_point == 0x1680 ||
                       (code_point >= 0x2000 && code_point <= 0x200A) || code_point == 0x2028 ||
                       code_point == 0x2029 || code_point == 0x202F || code_point == 0x205F ||
                       code_point == 0x3000;
    return white ? length : 0;
}

}  // namespace

std::string without_workflow_commands(std::string_view text) {
    constexpr std::string_view zero_width_space = "\u200b";
    std::string out;
    out.reserve(text.size());
    bool line_start = true;
    while (!text.empty()) {
        if (line_start) {
            while (const std::size_t length = white_space_length(text)) {
                if (text[0] == '\n') break;
                out += text.substr(0, length);
                text.remove_prefix(length);
            }
            line_start = false;
            if (text.starts_with("::")) {
                out += ':';
                out += zero_width_space;
                text.remove_prefix(1);
                continue;
            }
        }
        const char c = text[0];
        if (c == '[' && out.ends_with("##")) out += zero_width_space;
        out += c;
        text.remove_prefix(1);
        if (c == '\n') line_start = true;
    }
    return out;
}

std::string web_url(std::string_view url) {
    const auto starts_with_ignoring_case = [&](std::string_view prefix) {
        return url.size() >= prefix.size() &&
               std::equal(prefix.begin(), prefix.end(), url.begin(), [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
               });
    };
    std::size_t host_start = 0;
    if (starts_with_ignoring_case("https://"))
        host_start = 8;
    else if (starts_with_ignoring_case("http://"))
        host_start = 7;
    else
        return "";
    const auto is_host_character = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == ':';
    };
    const auto host_end = std::find_if(url.begin() + static_cast<std::ptrdiff_t>(host_start),
                                       url.end(), [&](char c) { return !is_host_character(c); });
    const auto host =
        url.substr(host_start, static_cast<std::size_t>(host_end - url.begin()) - host_start);
    if (host.empty() || std::isalnum(static_cast<unsigned char>(host.front())) == 0) return "";
    if (host_end != url.end() && *host_end != '/' && *host_end != '?' && *host_end != '#')
        return "";
    // Characters Markdown, HTML or a mention could read are percent-encoded, so the URL is shown
    // and linked as a whole and nothing in it is read as markup.
    static constexpr std::string_view kKept = "-._~:/?#%=&+,;";
    std::string out;
    for (const char c : url) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) != 0 || kKept.find(c) != std::string_view::npos)
            out += c;
        else
            out += fmt::format("%{:02X}", byte);
    }
    return out;
}

std::size_t display_width(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::vector<std::string> text_columns(const std::vector<std::vector<std::string>>& rows,
                                      std::span<const TextColumn> columns) {
    const auto column = [&](std::size_t i) {
        return i < columns.size() ? columns[i] : TextColumn{};
    };
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t i = 0; i < row.size(); ++i)
            widths[i] = std::max({widths[i], column(i).min_width, display_width(row[i])});
    }
    std::vector<std::string> lines;
    lines.reserve(rows.size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i > 0) line += "  ";
            const std::string padding(widths[i] - display_width(row[i]), ' ');
            line += column(i).right_aligned ? padding + row[i] : row[i] + padding;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        lines.push_back(std::move(line));
    }
    return lines;
}

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

std::vector<std::string> context_lines(const model::Comparison& comparison, Escape escape) {
    std::vector<std::string> lines = {
        environment_sentence(comparison.environment_changes, escape),
        machine_sentence(comparison.machine_environment, escape),
        machine_change_sentence(comparison.machine_changes, escape),
        warnings_sentence("this PR's", comparison.head_warnings, escape),
        warnings_sentence("the baseline's", comparison.baseline_warnings, escape),
    };
    std::erase(lines, std::string());
    return lines;
}

std::string percent_without_trailing_zeros(double fraction) {
    auto text = fmt::format("{:.2f}", fraction * 100);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.ends_with('.')) text.pop_back();
    return text + "%";
}

namespace {

// "three times", "2.5 times".
std::string factor_words(double factor) {
    static constexpr const char* kWords[] = {"zero", "one",   "two",   "three", "four", "five",
                                             "six",  "seven", "eight", "nine",  "ten"};
    if (factor == 1) return "one time";
    if (factor >= 0 && factor <= 10 && factor == std::floor(factor))
        return fmt::format("{} times", kWords[static_cast<int>(factor)]);
    return fmt::format("{:g} times", factor);
}

// "90th" for 0.9, "75th" for 0.75.
std::string ordinal_percentile(double quantile) {
    const auto percent = static_cast<int>(std::lround(quantile * 100));
    const auto last_two = percent % 100;
    const char* suffix = "th";
    if (last_two < 11 || last_two > 13) {
        if (percent % 10 == 1) suffix = "st";
        if (percent % 10 == 2) suffix = "nd";
        if (percent % 10 == 3) suffix = "rd";
    }
    return fmt::format("{}{}", percent, suffix);
}

// "3" for whole counts however large, "2.5" otherwise.
std::string whole_or_general(double count) {
    return count == std::floor(count) && std::abs(count) < 1e15 ? fmt::format("{:.0f}", count)
                                                                : fmt::format("{:g}", count);
}

std::string lower_ascii(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

namespace {

// `value` rounded to 3 significant digits, so that a calibrated 1.73421 reads "1.73".
double three_digits(double value) {
    return std::stod(fmt::format("{:.3g}", value));
}

// " The factor 1.73 was calibrated …": how the level method's sensitivity was set; "" when the
// configuration fixed it.
std::string calibration_how_sentence(const model::Calibration& calibration,
                                     const model::LevelRuleSettings& settings) {
    const auto budget =
        fmt::format("{:g} false alarm{}", calibration.budget, calibration.budget == 1 ? "" : "s");
    switch (calibration.source) {
        case model::CalibrationSource::Calibrated:
            if (settings.allocation == model::BudgetAllocation::ByNoise)
                return fmt::format(
                    " The thresholds share a budget of {} per pull request out by noise: each "
                    "benchmark's is the one that buys the most catches of 10% and 20% regressions "
                    "for the flukes it risks, at the price of a fluke at which the default "
                    "branch's last {} runs, replayed as pull requests, stay within {} of the "
                    "budget ({:.2f} each on average). Quiet benchmarks so watch for small changes "
                    "and noisy ones give their share up.",
                    budget, calibration.pull_requests,
                    percent_without_trailing_zeros(compare::kCalibrationMargin),
                    calibration.flukes_per_pr);
            return fmt::format(
                " That factor was calibrated to a budget of {} per pull request: it is the "
                "smallest at which the default branch's last {} runs, replayed as pull requests, "
                "stay within {} of it ({:.2f} each on average).",
                budget, calibration.pull_requests,
                percent_without_trailing_zeros(compare::kCalibrationMargin),
                calibration.flukes_per_pr);
        case model::CalibrationSource::Conservative:
            return fmt::format(
                " The default branch has too few runs to calibrate that factor to a budget of {} "
                "per pull request ({} replayed as pull requests, {} needed), so it is at least "
                "{}.",
                budget, calibration.pull_requests, compare::kCalibrationMinimum,
                whole_or_general(compare::kConservativeSensitivity));
        case model::CalibrationSource::Fixed:
            break;
    }
    return "";
}

// " It was read from the store's cache …" when the calibration came from the store's cache, or
// " The store's cache held another calibration … ignored …" when the one cached was out of the
// range calibration produces; "" otherwise.
std::string calibration_origin_sentence(const model::Calibration& calibration) {
    if (calibration.from_cache)
        return " It was read from the store's cache, where an earlier compare of the same runs "
               "and settings kept it.";
    if (!calibration.cache_refusal.empty())
        return fmt::format(
            " The store's cache held another calibration for these runs and settings, ignored "
            "since {}; this one was calibrated again.",
            calibration.cache_refusal);
    return "";
}

// calibration_how_sentence() and calibration_origin_sentence(); "" when the configuration fixed
// the sensitivity.
std::string calibration_sentence(const model::Calibration& calibration,
                                 const model::LevelRuleSettings& settings) {
    if (calibration.source == model::CalibrationSource::Fixed) return "";
    return calibration_how_sentence(calibration, settings) +
           calibration_origin_sentence(calibration);
}

// Whether a suite's move shows as a change at the one decimal of a percentage the report prints:
// a sentence saying the suite moved by −0.0% says nothing.
bool moved_visibly(double suite_move) {
    return std::abs(suite_move) >= 0.0005;
}

// The level method's paragraph (docs/JUDGEMENT.md), with the suite's move when there was one.
std::string level_explanation(const model::Comparison& comparison,
                              const std::vector<std::string>& minimums) {
    const auto& settings = comparison.method.level;
    const bool by_noise = settings.allocation == model::BudgetAllocation::ByNoise &&
                          comparison.calibration.source == model::CalibrationSource::Calibrated;
    auto paragraph = fmt::format(
        "Times are the minimum time of every benchmark. Each is compared with its level, the "
        "median of its last {} runs on the default branch up to the baseline (the Baseline "
        "column). A change is unusual when it exceeds both {} the benchmark's noise (the {} "
        "percentile of its recent one-run deviations that did not last){} and a minimum per "
        "category ({}). A benchmark with fewer than {} such deviations (each run after its "
        "first {} gives one, unless it began a step that lasted) is unusual only beyond {} its "
        "largest change between consecutive runs, and inconclusive otherwise. A benchmark "
        "that starts or stops allocating is listed however few the allocations.",
        settings.level_runs,
        by_noise ? std::string("a threshold chosen for")
                 : factor_words(three_digits(settings.sensitivity)),
        ordinal_percentile(settings.noise_quantile), by_noise ? ", never below that noise," : "",
        join(minimums, ", "), compare::kLevelMinimumDeviations, settings.level_runs,
        factor_words(compare::kLevelShortHistoryFactor));
    paragraph += calibration_sentence(comparison.calibration, settings);
    if (moved_visibly(comparison.suite_move))
        paragraph += fmt::format(
            " The whole suite moved by {} from its levels in this run, as a change of machine, "
            "driver or toolchain would; each benchmark is judged against that move as well.",
            format_change(comparison.suite_move));
    return paragraph;
}

// The samples method's paragraph (docs/JUDGEMENT.md, "Two runs judged by their samples").
std::string samples_explanation(const model::Comparison& comparison,
                                const std::vector<std::string>& minimums) {
    const auto& settings = comparison.method.samples;
    const auto budget = settings.false_alarms_per_pr;
    const std::string noise =
        comparison.run_to_run_assumed
            ? fmt::format(
                  "the spread of its own samples taken {:g} times as wide, since two runs minutes "
                  "apart differ by more than their repetitions suggest and fewer than {} "
                  "benchmarks have samples to learn by how much from. Two runs of so few "
                  "benchmarks cannot tell a machine that ran slower from a change",
                  settings.assumed_spread_factor, settings.suite_minimum)
            : fmt::format(
                  "the spread of its own samples plus the spread between runs that the suite's "
                  "other benchmarks show and their samples do not ({:.1f}% here), since two runs "
                  "minutes apart differ by more than their repetitions suggest",
                  100 * std::expm1(comparison.run_to_run_spread));
    auto paragraph = fmt::format(
        "Times are the median of each benchmark's samples in each run. A change is unusual when "
        "it exceeds both a minimum per category ({}) and its noise at Student's t for {:g} false "
        "alarm{} shared among the benchmarks judged, or among {} where fewer are: {}. Benchmarks "
        "without samples in both runs are inconclusive. A benchmark that starts or stops "
        "allocating is listed however few the allocations.",
        join(minimums, ", "), budget, budget == 1 ? "" : "s", settings.budget_benchmarks, noise);
    if (comparison.history_runs > 0)
        paragraph += fmt::format(
            " A benchmark with at least {} pairs of consecutive default-branch runs is judged by "
            "the spread of its own moves between them where that is larger.",
            compare::kSamplesHistoryMinimumPairs);
    if (moved_visibly(comparison.suite_move))
        paragraph += fmt::format(
            " The whole suite moved by {} between the runs; two runs cannot tell a machine "
            "that ran faster or slower from a change that moved everything, so each benchmark is "
            "judged against that move.",
            format_change(comparison.suite_move));
    return paragraph;
}

}  // namespace

std::string explanation_paragraph(const model::Comparison& comparison, Escape escape) {
    std::vector<std::string> minimums;
    for (const auto& category : comparison.categories)
        minimums.push_back(fmt::format("{} {}", escape(lower_ascii(category.name)),
                                       percent_without_trailing_zeros(category.minimum_change)));
    if (comparison.method.kind == model::MethodKind::Level)
        return level_explanation(comparison, minimums);
    if (comparison.method.kind == model::MethodKind::Samples)
        return samples_explanation(comparison, minimums);
    return fmt::format(
        "Times are the minimum time of every benchmark. A change is unusual when it exceeds both "
        "{} the benchmark's typical change between consecutive runs on the default branch and a "
        "minimum per category ({}). A benchmark that starts or stops allocating is listed however "
        "few the allocations. A single run can still be a fluke, so {}.",
        factor_words(comparison.method.seed.factor), join(minimums, ", "),
        comparison.confirmation ? "each flagged change was measured again below"
                                : "rerun before drawing conclusions");
}

bool says_what_it_could_detect(const model::Comparison& comparison) {
    return comparison.method.kind != model::MethodKind::Seed;
}

std::string unflagged_note(const model::BenchmarkComparison& benchmark, bool within_noise) {
    switch (benchmark.verdict) {
        case model::Verdict::Inconclusive:
            return "inconclusive";
        case model::Verdict::TooNoisy:
            return "too noisy";
        case model::Verdict::Unchanged:
            return within_noise ? "within noise" : "";
        case model::Verdict::Slower:
        case model::Verdict::Faster:
            break;
    }
    return "";
}

Detectability detectability(const model::Comparison& comparison) {
    Detectability found;
    std::vector<double> changes;  // the detectable changes of benchmarks with a threshold
    for (const auto& benchmark : comparison.benchmarks) {
        const auto verdict = benchmark.verdict;
        if (verdict == model::Verdict::Inconclusive) ++found.inconclusive;
        if (verdict == model::Verdict::Unchanged || model::flags_change(verdict))
            found.anything_judged = true;
        if (verdict == model::Verdict::TooNoisy) {
            const double detectable = benchmark.detectable_change;
            if (found.too_noisy == 0 || detectable < found.too_noisy_smallest)
                found.too_noisy_smallest = detectable;
            found.too_noisy_largest = std::max(found.too_noisy_largest, detectable);
            ++found.too_noisy;
        }
        if (verdict == model::Verdict::Inconclusive && benchmark.history_pairs == 0) continue;
        changes.push_back(benchmark.detectable_change);
        if (found.noisiest == nullptr ||
            benchmark.detectable_change > found.noisiest->detectable_change)
            found.noisiest = &benchmark;
    }
    found.with_threshold = changes.size();
    if (!changes.empty()) {
        std::sort(changes.begin(), changes.end());
        const auto middle = changes.size() / 2;
        found.median =
            changes.size() % 2 == 1 ? changes[middle] : (changes[middle - 1] + changes[middle]) / 2;
    }
    return found;
}

std::string detectable_percent(double fraction) {
    const double percent = fraction * 100;
    if (std::round(percent * 10) < 100) return fmt::format("{:.1f}%", percent);
    return fmt::format("{:.0f}%", percent);
}

namespace {

// "1 benchmark is", "3 benchmarks are".
std::string benchmarks_are(std::size_t count) {
    return fmt::format("{} benchmark{}", count, count == 1 ? " is" : "s are");
}

// "120%", or "100% to 450%" when they differ as written.
std::string percent_range(double smallest, double largest) {
    const auto low = detectable_percent(smallest);
    const auto high = detectable_percent(largest);
    return low == high ? low : fmt::format("{} to {}", low, high);
}

// "Changes beyond 4.2% could be detected (…)."; "" without a benchmark that has a threshold.
std::string typical_and_worst(const Detectability& found, Escape escape) {
    if (found.noisiest == nullptr) return "";
    const auto median = detectable_percent(found.median);
    const auto worst = detectable_percent(found.noisiest->detectable_change);
    const auto noisiest = escape(model::with_metric(found.noisiest->name, found.noisiest->metric));
    if (found.with_threshold == 1)
        return fmt::format("Changes beyond {} could be detected (1 benchmark: {}).", median,
                           noisiest);
    if (median == worst)
        return fmt::format("Changes beyond {} could be detected in each of the {} benchmarks.",
                           median, found.with_threshold);
    return fmt::format(
        "Changes beyond {} could be detected (median of {} benchmarks; the noisiest, {}, only "
        "beyond {}).",
        median, found.with_threshold, noisiest, worst);
}

// The sentence counting the too noisy benchmarks among judged ones, with the bound.
std::string too_noisy_sentence(std::size_t count) {
    return fmt::format(
        "{} too noisy to judge and marked so under All benchmarks: the smallest change {} could "
        "flag is more than {} its category's minimum and more than {}.",
        benchmarks_are(count), count == 1 ? "it" : "each", factor_words(model::too_noisy_multiple),
        percent_without_trailing_zeros(model::too_noisy_floor));
}

// Why nothing could be judged, and what would help; `by_samples`: the samples method, whose
// inconclusive benchmarks lack samples rather than history.
std::string nothing_judged_sentence(const Detectability& found, bool by_samples) {
    std::vector<std::string> reasons;
    std::vector<std::string> remedies;
    if (found.too_noisy > 0) {
        reasons.push_back(
            fmt::format("{} too noisy (the smallest change {} could flag is {})",
                        benchmarks_are(found.too_noisy), found.too_noisy == 1 ? "it" : "they",
                        percent_range(found.too_noisy_smallest, found.too_noisy_largest)));
        remedies.push_back(
            "a quieter machine or more repetitions of each benchmark lower the noise");
    }
    if (found.inconclusive > 0 && by_samples) {
        reasons.push_back(
            fmt::format("{} {} too few samples (at least 2 in each run)", found.inconclusive,
                        found.inconclusive == 1 ? "benchmark has" : "benchmarks have"));
        remedies.push_back(
            "running each benchmark several times gives it samples (Google Benchmark's "
            "--benchmark_repetitions=10, hyperfine's --runs 10)");
    } else if (found.inconclusive > 0) {
        reasons.push_back(
            fmt::format("{} {} too little history on the default branch", found.inconclusive,
                        found.inconclusive == 1 ? "benchmark has" : "benchmarks have"));
        remedies.push_back(
            "more runs recorded on the default branch give the benchmarks a history");
    }
    assert(!remedies.empty() &&
           "nothing judged means every benchmark is too noisy or inconclusive");
    auto remedy = join(remedies, "; ");
    remedy.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(remedy.front())));
    return fmt::format(
        "Nothing could be judged, so the zeros above do not mean that nothing changed: {}. {}.",
        join(reasons, " and "), remedy);
}

}  // namespace

std::string detectable_sentence(const model::Comparison& comparison, Escape escape) {
    if (!says_what_it_could_detect(comparison) || comparison.benchmarks.empty()) return "";
    const auto found = detectability(comparison);
    if (!found.anything_judged)
        return nothing_judged_sentence(found, comparison.method.kind == model::MethodKind::Samples);
    auto sentence = typical_and_worst(found, escape);
    if (found.too_noisy > 0) {
        if (!sentence.empty()) sentence += ' ';
        sentence += too_noisy_sentence(found.too_noisy);
    }
    return sentence;
}

std::string allocation_note(const model::BenchmarkComparison& benchmark) {
    switch (benchmark.allocation_change) {
        case model::AllocationChange::Starts:
            return fmt::format("starts allocating ({})",
                               whole_or_general(benchmark.head_allocations.value_or(0)));
        case model::AllocationChange::Stops:
            return "stops allocating";
        case model::AllocationChange::None:
            break;
    }
    return "";
}

std::vector<CategoryRows> all_rows(const model::Comparison& comparison) {
    std::vector<CategoryRows> groups;
    for (std::size_t index = 0; index < comparison.categories.size(); ++index) {
        CategoryRows group{&comparison.categories[index], {}};
        for (const auto& benchmark : comparison.benchmarks)
            if (benchmark.category == index) group.rows.push_back(&benchmark);
        if (!group.rows.empty()) groups.push_back(std::move(group));
    }
    CategoryRows uncategorized;
    for (const auto& benchmark : comparison.benchmarks)
        if (benchmark.category >= comparison.categories.size())
            uncategorized.rows.push_back(&benchmark);
    if (!uncategorized.rows.empty()) groups.push_back(std::move(uncategorized));
    return groups;
}

std::vector<CategoryRows> unusual_rows(const model::Comparison& comparison) {
    auto size_of_change = [](const model::BenchmarkComparison* benchmark) {
        return std::abs(std::log(benchmark->head / benchmark->base));
    };
    std::vector<CategoryRows> groups;
    for (auto& group : all_rows(comparison)) {
        std::erase_if(group.rows, [](const auto* benchmark) { return !benchmark->unusual(); });
        std::stable_sort(group.rows.begin(), group.rows.end(), [&](const auto* a, const auto* b) {
            return size_of_change(a) > size_of_change(b);
        });
        if (!group.rows.empty()) groups.push_back(std::move(group));
    }
    return groups;
}

std::vector<HeadGroup> head_rows(const model::Comparison& comparison) {
    const auto& categories = comparison.categories;
    std::vector<HeadGroup> groups(categories.size() + 1);
    for (std::size_t index = 0; index < categories.size(); ++index)
        groups[index].category_name = categories[index].name;
    groups.back().category_name = model::catch_all_category().name;
    for (const auto& result : comparison.head_only_results) {
        const auto index = model::categorize(result.benchmark, categories);
        const auto shown = index < categories.size()
                               ? model::display_name(result.benchmark, categories[index])
                               : std::string_view(result.benchmark);
        groups[index].rows.push_back({model::with_metric(shown, result.metric), &result});
    }
    for (auto& group : groups)
        std::stable_sort(group.rows.begin(), group.rows.end(), [](const auto& a, const auto& b) {
            return model::name_less(a.display_name, b.display_name);
        });
    std::erase_if(groups, [](const HeadGroup& group) { return group.rows.empty(); });
    return groups;
}

std::vector<std::string> sorted_names(const std::vector<model::Result>& results) {
    std::vector<std::string> names;
    for (const auto& result : results)
        names.push_back(model::with_metric(result.benchmark, result.metric));
    std::sort(names.begin(), names.end(), model::name_less);
    return names;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string joined;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) joined += separator;
        joined += items[i];
    }
    return joined;
}

}  // namespace benchwatch::report::detail
