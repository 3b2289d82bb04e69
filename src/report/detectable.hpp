#pragma once

// Private to the report layer: what a comparison could detect, and how a row its method did
// not flag is noted.

#include <cstddef>
#include <string>

#include "model/comparison.hpp"
#include "report/escaping.hpp"

namespace benchwatch::report::detail {

// The note of a row beside its slower or faster marker: for a row whose flag was re-measured,
// "confirmed by re-measuring", "flag dismissed by re-measuring" or "undecided after re-measuring";
// else "inconclusive", "too noisy", "within noise" for an unchanged row when `within_noise`
// (says_what_it_could_detect), and "" for the rest.
std::string judgement_note(const model::BenchmarkComparison& benchmark, bool within_noise);

// What one comparison could detect: the smallest change each benchmark could flag, over those
// the history gave a threshold (all but inconclusive benchmarks with under two runs).
struct Detectability {
    std::size_t with_threshold = 0;
    double median = 0;  // the median detectable change of those benchmarks
    // The one with the largest detectable change, the first in report order on a tie; nullptr
    // when no benchmark has a threshold.
    const model::BenchmarkComparison* noisiest = nullptr;
    std::size_t too_noisy = 0;
    double too_noisy_smallest = 0;  // the smallest and largest detectable change of those
    double too_noisy_largest = 0;
    std::size_t inconclusive = 0;
    // Whether some benchmark was judged: unchanged within its noise, slower or faster. Without
    // one, the summary's zeros say nothing about the pull request.
    bool anything_judged = false;
};

// Detectability of the compared benchmarks of `comparison`.
Detectability detectability(const model::Comparison& comparison);

// The line under the summary table: "Changes beyond 4.2% could be detected (median of 79
// benchmarks; the noisiest, kernel/launch, only beyond 31%).", then how many are too noisy when
// any are; or, when nothing could be judged, that sentence, why and what helps. "" when
// !says_what_it_could_detect or nothing was compared.
std::string detectable_sentence(const model::Comparison& comparison, Escape escape);

// A detectable change as the detectable sentence writes it: one decimal under 10% ("4.2%"),
// whole percents from there ("31%", "450%").
std::string detectable_percent(double fraction);

}  // namespace benchwatch::report::detail
