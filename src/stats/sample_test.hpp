#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace benchwatch::stats {

// What one run says about the spread of one benchmark's samples: their count, median, mean and
// sample standard deviation, in the benchmark's unit, and where the format gives each sample,
// the order statistics kept of them (ascending; all of them, or evenly spaced ones as
// kept_order_statistics() keeps them).
struct SampleSpread {
    std::int64_t count = 0;
    double median = 0;
    double mean = 0;
    double stddev = 0;
    std::span<const double> kept;
    double minimum = 0;  // the smallest sample; 0 where unknown
};

// Which statistic of each run's samples a move is taken between.
enum class SampleStatistic { Median, Minimum, Mean };

// One benchmark's move between two runs as their samples tell it.
struct SampleMove {
    double log_move = 0;         // ln(head statistic / base statistic)
    double within_variance = 0;  // the variance of log_move that each run's own spread explains
    double within_df = 0;        // its degrees of freedom, base count + head count − 2
};

// The variance of the log of the median of `count` samples of which `kept` are the order
// statistics kept (ascending): the Maritz–Jarrett estimate for the ((k + 1) / 2)-th of the k
// kept values of ln x, which weighs every order statistic by the chance that it is the median
// of a sample drawn again, times k / count when fewer than `count` were kept. It follows the
// samples themselves, so a median that could fall on either of two speeds gets the spread
// between them. Requires positive values, k >= 2 and count >= k.
// Example: kept {1, e, e²}, count 3 give 14/27 (weights 7/27, 13/27, 7/27 on ln x = 0, 1, 2).
double log_median_variance(std::span<const double> kept, std::int64_t count);

// The variance of the log of the smallest of `count` samples of which `kept` are the order
// statistics kept (ascending), as log_median_variance() estimates a median's: the
// Maritz–Jarrett weights of the first of the k kept values, (1 − (i − 1)/k)^k − (1 − i/k)^k, the
// exact bootstrap of a minimum, times k / count when fewer than `count` were kept. Requires
// positive values, k >= 2 and count >= k. Example: kept {1, e}, count 2 give 3/16 (weights 3/4,
// 1/4 on ln x = 0, 1).
double log_minimum_variance(std::span<const double> kept, std::int64_t count);

// The move from `base` to `head`: log_move = ln(head.median / base.median), and within_variance
// the sum of each side's variance of the log of its median: log_median_variance() where both
// sides kept at least 2 positive order statistics, else π/2 × cv²/n with cv = stddev / mean, the
// large-sample variance of the log of a median of n values of relative spread cv.
// std::nullopt when either side has fewer than 2 samples or a median, mean or deviation that is
// not finite and positive (a deviation may be 0). Example: base {10, 100, 100, 10}, head {10,
// 110, 110, 11}, nothing kept, give log_move = ln 1.1 and within_variance = π/2 × 0.002.
//
// With `statistic` Minimum the move is between the sides' minimums (std::nullopt where one is
// unknown), its variance log_minimum_variance()'s where both kept order statistics, else the
// median's from the deviation, the spread of a minimum being unknown from a summary. With Mean
// it is between their means, its variance the sum of each side's cv²/n.
std::optional<SampleMove> sample_move(const SampleSpread& base, const SampleSpread& head,
                                      SampleStatistic statistic = SampleStatistic::Median);

// The spread τ of the moves between two runs that their samples do not explain (the machine
// differing from one run to the next), from `deviations` (each benchmark's log move minus the
// suite's median move) and their `within_variances`: the τ ≥ 0 at which the median of
// deviation² / (within_variance + τ²) is 0.4549, the median of a chi-square with one degree of
// freedom, so that most benchmarks lie within the noise as most do when nothing changed; 0 when
// the within variances alone explain the deviations, and for fewer than 2 deviations. A
// deviation of a benchmark that really changed moves the median by one rank only.
// Example: deviations {−0.1, 0, 0.1} with zero within variances give τ = 0.1 / √0.4549.
double run_to_run_spread(std::span<const double> deviations,
                         std::span<const double> within_variances);

// How far from a group's median move, in units of its noise, a benchmark's move may lie and
// still agree with the group.
inline constexpr double kAgreementWidth = 4;

// Fewest benchmarks a group must hold for the suite's move and spread to be learned from it: the
// median of fewer scaled squares is too often near 0.
inline constexpr std::size_t kAgreeingGroupMinimum = 4;

// The largest group of benchmarks whose `moves` (log, with their `within_variances`) agree, as
// indices in ascending order. Its core is the shortest half: the ⌈m/2⌉ moves that lie closest
// together (of equally close ones, those whose median is nearest no move). Every benchmark whose
// move lies within kAgreementWidth × √(max(its within variance, the group's median one) + τ²) of
// the core's median move joins it, with τ learned by run_to_run_spread() from the core as from a
// whole population (so that a second population does not widen it, and a suite where nothing
// moved still agrees with it by about 95%). Where the benchmarks left out number at
// least the group's size and ⌈m/2⌉, the same is done among them; the largest group wins, and of
// two as large the one whose median is nearest no move. Empty for no moves.
// Example: moves {0, 0.01, −0.01, 0.3, 0.31, 0.29} with within variances of 10⁻⁴ give {0, 1, 2}:
// both halves agree within themselves, and the one at no move is chosen.
std::vector<std::size_t> largest_agreeing_group(std::span<const double> moves,
                                                std::span<const double> within_variances);

// The suite's move between two runs and the spread between runs that the samples do not
// explain, with how many benchmarks they were learned from.
struct SuiteSpread {
    double centre = 0;             // the suite's move, log scale
    double spread = 0;             // τ, log scale
    std::size_t learned_from = 0;  // the benchmarks the two were learned from
};

// The suite's move and spread from `moves` and their `within_variances`: the median move and
// run_to_run_spread() of the deviations from it over the whole suite while at least two thirds
// of it agree (largest_agreeing_group()), since the benchmarks outside then move the median of
// the scaled squares to the group's third quartile at most; over the group alone where fewer
// agree and it holds at least kAgreeingGroupMinimum, so that benchmarks that changed, even as
// many as those that did not, do not widen the spread or move the centre.
// Example: moves {0, 0.02, −0.02, 0.01, 0.3, 0.32, 0.28, 0.31} with within variances of 10⁻⁴
// give centre 0.005 and τ² = 1.25e-4 / 0.4549 − 10⁻⁴, learned from 4.
SuiteSpread suite_spread(std::span<const double> moves, std::span<const double> within_variances);

// Fewest benchmarks whose moves can show how heavy the tails of a suite's moves are.
inline constexpr std::size_t kTailSuiteMinimum = 50;

// The degrees of freedom ν of the Student t whose tails a suite's moves between two runs show,
// from `scaled_moves`, each unchanged benchmark's deviation / √(within_variance + τ²) (the
// caller leaves out the moves too large to be noise, which would make a suite in which some
// benchmarks changed look heavy-tailed): the ν at which the
// 90th percentile of |t_ν| over its median (6.31 at ν = 1, 3.58 at ν = 2, 2.44 for a normal) is
// that ratio of |scaled_moves|; at least 1, and infinity where the ratio is no more than a
// normal's. Suites of fewer than kTailSuiteMinimum moves cannot show their tails and get 2: between
// two runs of real suites the moves have heavy tails (a slow phase of the machine moves a few
// benchmarks by ten times the suite's spread), and those of the example suite, run again and again
// on a noisy 2-core machine, are close to a t with 2 degrees of freedom. Example: 101 moves of
// sizes 0.5 (50 of them), 1, 2 (39), 4 and 8 (10) give a ratio of 4 and ν ≈ 1.637.
double move_tail_degrees_of_freedom(std::span<const double> scaled_moves);

// Degrees of freedom of a run-to-run spread learned from `deviations` benchmarks as
// run_to_run_spread() learns it: 0.37 × (deviations − 1), the share of a normal sample's
// information a median-based spread keeps, at least 1.
double run_to_run_degrees_of_freedom(std::size_t deviations);

// The Welch–Satterthwaite degrees of freedom of a sum of two variance estimates:
// (a + b)² / (a²/df_a + b²/df_b); df_a where b is 0, df_b where a is 0.
double satterthwaite_degrees_of_freedom(double a, double df_a, double b, double df_b);

// The |t| whose two-sided tail probability is `p` with `df` degrees of freedom (0 < p ≤ 1).
// Example: student_t_critical(0.05, 10) ≈ 2.228.
double student_t_critical(double p, double df);

}  // namespace benchwatch::stats
