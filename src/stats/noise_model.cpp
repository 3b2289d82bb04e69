#include "stats/noise_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

namespace benchwatch::stats {

namespace {

// Tries at placing the steps apart before settling for fewer.
constexpr int kPlacementAttempts = 100;

// `count` positions in [spacing, length − spacing], ascending and at least `spacing` apart;
// fewer when they do not fit after kPlacementAttempts tries.
std::vector<std::size_t> place_steps(SeededRandom& random, std::size_t length, std::size_t count,
                                     std::size_t spacing) {
    if (length < 2 * spacing) return {};
    for (; count > 0; --count) {
        for (int attempt = 0; attempt < kPlacementAttempts; ++attempt) {
            std::vector<std::size_t> positions;
            for (std::size_t i = 0; i < count; ++i)
                positions.push_back(random.integer(spacing, length - spacing));
            std::sort(positions.begin(), positions.end());
            bool apart = true;
            for (std::size_t i = 1; i < positions.size(); ++i)
                apart = apart && positions[i] - positions[i - 1] >= spacing;
            if (apart) return positions;
        }
    }
    return {};
}

// A lasting change's size in log space: ±u with u log-uniform in [ln(1 + smallest),
// ln(1 + largest)], each sign equally likely (the size drawn first, then the sign).
double signed_log_size(SeededRandom& random, double smallest, double largest) {
    const double size =
        std::exp(random.uniform(std::log(std::log1p(smallest)), std::log(std::log1p(largest))));
    return random.uniform() < 0.5 ? -size : size;
}

}  // namespace

double SeededRandom::uniform() {
    // The top 53 bits make a double in [0, 1) with every value equally likely.
    return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double SeededRandom::uniform(double low, double high) {
    return low + (high - low) * uniform();
}

std::size_t SeededRandom::integer(std::size_t low, std::size_t high) {
    assert(low <= high);
    const auto span = static_cast<double>(high - low + 1);
    return low + std::min(high - low, static_cast<std::size_t>(uniform() * span));
}

double SeededRandom::normal() {
    // Box–Muller; 1 − u keeps the logarithm's argument in (0, 1].
    const double radius = std::sqrt(-2 * std::log(1 - uniform()));
    return radius * std::cos(2 * std::numbers::pi * uniform());
}

double SeededRandom::student_t3() {
    // t with k degrees of freedom is Z / sqrt(χ²_k / k); χ²_3 is a sum of three squared normals.
    const double numerator = normal();
    double chi_squared = 0;
    for (int i = 0; i < 3; ++i) {
        const double z = normal();
        chi_squared += z * z;
    }
    return numerator / std::sqrt(chi_squared / 3);
}

GeneratedSeries generate_series(std::uint64_t seed, const NoiseModel& model) {
    SeededRandom random(seed);
    GeneratedSeries series;
    const std::size_t length = random.integer(model.min_length, model.max_length);
    series.noise = std::exp(random.uniform(std::log(model.min_noise), std::log(model.max_noise)));
    const std::size_t count = random.integer(0, model.max_steps);
    series.steps = place_steps(random, length, count, model.spacing);
    for (std::size_t i = 0; i < series.steps.size(); ++i)
        series.ratios.push_back(std::exp(signed_log_size(random, model.min_step, model.max_step)));

    double level = 0;
    std::size_t next_step = 0;
    series.values.reserve(length);
    for (std::size_t i = 0; i < length; ++i) {
        if (next_step < series.steps.size() && series.steps[next_step] == i)
            level += std::log(series.ratios[next_step++]);
        const bool new_regime = model.regime_start > 0 && i >= model.regime_start;
        const double noise = new_regime ? series.noise * model.regime_noise_factor : series.noise;
        const double regime = new_regime ? std::log(model.regime_level_factor) : 0.0;
        double value = model.base * std::exp(level + regime + noise * random.student_t3());
        if (random.uniform() < model.outlier_probability)
            value *= 1 + random.uniform(model.min_outlier, model.max_outlier);
        series.values.push_back(value);
    }
    return series;
}

GeneratedSuite generate_suite(std::uint64_t seed, const SuiteModel& model) {
    auto series_model = model.series;
    series_model.min_length = model.runs;
    series_model.max_length = model.runs;
    GeneratedSuite suite;
    if (model.regime_noise_factor != 1 || model.regime_level_factor != 1) {
        SeededRandom regime_random(seed ^ 0x5eed5eedULL);
        suite.regime_start = regime_random.integer(model.runs / 3, 2 * model.runs / 3);
        series_model.regime_start = suite.regime_start;
        series_model.regime_noise_factor = model.regime_noise_factor;
        series_model.regime_level_factor = model.regime_level_factor;
    }
    for (std::size_t b = 0; b < model.benchmarks; ++b)
        suite.values.push_back(generate_series(seed * 1'000'003 + b + 1, series_model).values);

    SeededRandom random(seed);
    for (std::size_t t = 0; t < model.runs; ++t) {
        if (random.uniform() >= model.event_probability) continue;
        suite.events.push_back(t);
        const double move = signed_log_size(random, model.min_event, model.max_event);
        for (auto& values : suite.values) values[t] *= std::exp(move * random.uniform(0.5, 1.5));
    }
    const auto count = random.integer(0, model.max_suite_steps);
    suite.suite_steps = place_steps(random, model.runs, count, model.series.spacing);
    for (const auto step : suite.suite_steps) {
        const double move = signed_log_size(random, model.min_suite_step, model.max_suite_step);
        for (auto& values : suite.values) {
            const double felt = std::exp(move * random.uniform(0.5, 1.5));
            for (std::size_t t = step; t < values.size(); ++t) values[t] *= felt;
        }
    }
    return suite;
}

}  // namespace benchwatch::stats
