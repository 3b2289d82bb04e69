#pragma once

namespace benchwatch::model {

// The outcome of judging one benchmark: only changes beyond its noise are Slower or Faster;
// Inconclusive when the method could not judge it (the level method, on too short a history);
// TooNoisy when it was not flagged but could only have flagged a change far beyond its
// category's minimum (see too_noisy_multiple), so that "not flagged" does not mean unchanged.
enum class Verdict { Unchanged, Slower, Faster, Inconclusive, TooNoisy };

// "unchanged", "slower", "faster", "inconclusive", "too_noisy".
const char* to_string(Verdict verdict);

// A benchmark is too noisy to judge when the smallest change it could flag exceeds both this
// many times its category's minimum and too_noisy_floor (docs/report.md says why these bounds).
inline constexpr double too_noisy_multiple = 10;
inline constexpr double too_noisy_floor = 0.25;

// Whether the verdict flags a change: Slower or Faster.
constexpr bool flags_change(Verdict verdict) {
    return verdict == Verdict::Slower || verdict == Verdict::Faster;
}

}  // namespace benchwatch::model
