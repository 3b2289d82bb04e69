#include "report/detectable.hpp"

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
#include "report/sentences.hpp"

namespace benchwatch::report::detail {

std::string judgement_note(const model::BenchmarkComparison& benchmark, bool within_noise) {
    if (benchmark.confirmation) switch (*benchmark.confirmation) {
            case model::ConfirmationVerdict::Confirmed:
                return "confirmed by re-measuring";
            case model::ConfirmationVerdict::Dismissed:
                return "flag dismissed by re-measuring";
            case model::ConfirmationVerdict::Undecided:
                return "undecided after re-measuring";
        }
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
        benchmarks_are(count), count == 1 ? "it" : "each",
        model::factor_words(model::too_noisy_multiple),
        model::percent_without_trailing_zeros(model::too_noisy_floor));
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
    if (!found.anything_judged && comparison.paired)
        return fmt::format(
            "Nothing could be judged, so the zeros above do not mean that nothing changed: after "
            "{} round{} every benchmark's interval still straddles its category's minimum change. "
            "A longer --paired-budget, a suite narrowed to fewer or longer benchmarks, or a "
            "quieter machine would decide them.",
            comparison.confirmation ? comparison.confirmation->rounds : 0,
            comparison.confirmation && comparison.confirmation->rounds == 1 ? "" : "s");
    if (!found.anything_judged)
        return nothing_judged_sentence(found,
                                       compare::make_method(comparison.method)->reads_samples());
    auto sentence = typical_and_worst(found, escape);
    if (found.too_noisy > 0) {
        if (!sentence.empty()) sentence += ' ';
        sentence += too_noisy_sentence(found.too_noisy);
    }
    return sentence;
}

}  // namespace benchwatch::report::detail
