#pragma once

// A documented, seeded model of benchmark histories with known steps, for measuring change-point
// detection (and anything else that needs realistic noise) without real data.
//
// One series, from one seed:
// - length n uniform in [min_length, max_length];
// - a noise level s per series, log-uniform in [min_noise, max_noise] (0.005–0.05: 0.5%–5%);
// - 0 to max_steps steps (uniform count), at positions uniform in [spacing, n − spacing] and at
//   least `spacing` runs apart (fewer when the series is too short to hold them); each step
//   multiplies the level by exp(±m), m log-uniform in [ln(1 + min_step), ln(1 + max_step)]
//   (3%–30%), sign up or down with equal chance;
// - each value is base × exp(level + s × t₃), t₃ a Student-t variate with 3 degrees of freedom
//   (heavy tails: its variance is 3 and about 1 value in 20 lies beyond 3.2 scale units);
// - then, with probability outlier_probability (2%), a one-run spike multiplies the value by
//   1 + u, u uniform in [min_outlier, max_outlier] (20%–100% slower), as a busy machine does.
// The random numbers come from std::mt19937_64 (whose output the C++ standard fixes) turned into
// uniforms, normals (Box–Muller) and t₃ here, so a seed gives the same series everywhere.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace benchwatch::stats {

// Uniform, normal and Student-t variates that are the same for a seed on every platform (the
// standard library's distributions are not).
class SeededRandom {
  public:
    explicit SeededRandom(std::uint64_t seed) : engine_(seed) {}

    // Uniform in [0, 1).
    double uniform();
    // Uniform in [low, high).
    double uniform(double low, double high);
    // Uniform integer in [low, high]; requires low <= high.
    std::size_t integer(std::size_t low, std::size_t high);
    // Standard normal.
    double normal();
    // Student-t with 3 degrees of freedom (scale 1).
    double student_t3();

  private:
    std::mt19937_64 engine_;
};

// The parameters of the model described above.
struct NoiseModel {
    std::size_t min_length = 60;
    std::size_t max_length = 200;
    double min_noise = 0.005;
    double max_noise = 0.05;
    std::size_t max_steps = 3;
    std::size_t spacing = 10;
    double min_step = 0.03;
    double max_step = 0.30;
    double outlier_probability = 0.02;
    double min_outlier = 0.2;
    double max_outlier = 1.0;
    double base = 1000;  // the first level, e.g. ns
    // A change of regime from value `regime_start` on (0: none): the noise level is multiplied by
    // regime_noise_factor and the level moved by ln(regime_level_factor), as a new machine, or a
    // harness that switched from the median to the minimum, would do.
    std::size_t regime_start = 0;
    double regime_noise_factor = 1;
    double regime_level_factor = 1;
};

// One generated history and what is true about it.
struct GeneratedSeries {
    std::vector<double> values;      // oldest first, all positive
    std::vector<std::size_t> steps;  // the first value after each step, ascending
    std::vector<double> ratios;      // parallel to steps: the level after / the level before
    double noise = 0;                // the series' noise level s
};

// The series the model gives for `seed`, the same on every platform. Example:
// generate_series(7).values.size() is in [60, 200].
GeneratedSeries generate_series(std::uint64_t seed, const NoiseModel& model = {});

// A suite of benchmarks measured together on one machine, from one seed:
// - every benchmark is its own series of the model above (its noise level, steps and spikes),
//   all `runs` long, the i-th from the seed seed × 1,000,003 + i + 1;
// - each run, with probability event_probability, the machine has a bad or good moment: a shared
//   move g = ±u, u log-uniform in [ln(1 + min_event), ln(1 + max_event)], that each benchmark
//   feels as g × v, v uniform in [0.5, 1.5], for that run only;
// - 0 to max_suite_steps lasting changes of the machine (a driver, a compiler), placed as steps
//   are: a shared ln-size ±u, u log-uniform in [ln(1 + min_suite_step), ln(1 + max_suite_step)],
//   felt by each benchmark as u × v, v uniform in [0.5, 1.5], from that run on.
// - with regime_noise_factor or regime_level_factor other than 1, every benchmark changes regime
//   (NoiseModel's regime_*) at one run drawn uniformly from the middle third of the suite.
struct SuiteModel {
    std::size_t runs = 200;
    std::size_t benchmarks = 60;
    NoiseModel series;
    double event_probability = 0.03;
    double min_event = 0.2;
    double max_event = 1.0;
    std::size_t max_suite_steps = 2;
    double min_suite_step = 0.05;
    double max_suite_step = 0.4;
    double regime_noise_factor = 1;
    double regime_level_factor = 1;
};

// A generated suite: values[b][t] is benchmark b's value at run t, all positive.
struct GeneratedSuite {
    std::vector<std::vector<double>> values;
    std::vector<std::size_t> suite_steps;  // the first run after each lasting change, ascending
    std::vector<std::size_t> events;       // the runs of one-run moments, ascending
    std::size_t regime_start = 0;          // the first run of the new regime; 0 for none
};

// The suite the model gives for `seed`, the same on every platform.
GeneratedSuite generate_suite(std::uint64_t seed, const SuiteModel& model = {});

}  // namespace benchwatch::stats
