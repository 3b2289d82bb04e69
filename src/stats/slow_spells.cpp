#include "stats/slow_spells.hpp"

#include <cmath>
#include <cstdlib>

#include "stats/stats.hpp"

namespace benchwatch::stats {

namespace {

constexpr int kPasses = 3;
constexpr std::size_t kFewestNeighbourValues = 3;

// The median of benchmark `b`'s values in the kSpellNeighbours runs nearest `run` that have one
// and have not moved; NaN when fewer than kFewestNeighbourValues do.
double neighbour_median(const std::vector<std::vector<double>>& logs,
                        const std::vector<bool>& moved, std::size_t run, std::size_t b,
                        std::vector<double>& scratch) {
    scratch.clear();
    const auto usable = [&](std::size_t other) {
        return !moved[other] && b < logs[other].size() && !std::isnan(logs[other][b]);
    };
    // Outwards from `run`, the earlier side first at each distance.
    for (std::size_t distance = 1;
         scratch.size() < kSpellNeighbours && (distance <= run || run + distance < logs.size());
         ++distance) {
        if (distance <= run && usable(run - distance)) scratch.push_back(logs[run - distance][b]);
        if (scratch.size() < kSpellNeighbours && run + distance < logs.size() &&
            usable(run + distance))
            scratch.push_back(logs[run + distance][b]);
    }
    if (scratch.size() < kFewestNeighbourValues) return NAN;
    return median(scratch);
}

}  // namespace

SlowSpells find_slow_spells(const std::vector<std::vector<double>>& logs, double smallest_move) {
    const std::size_t runs = logs.size();
    SlowSpells found;
    found.moved.assign(runs, false);
    found.suite_deviation.assign(runs, 0);
    std::vector<double> scratch;
    std::vector<std::vector<double>> deviations(runs);
    for (int pass = 0; pass < kPasses; ++pass) {
        const auto before = found.moved;
        std::vector<double> sizes;
        for (std::size_t run = 0; run < runs; ++run) {
            auto& row = deviations[run];
            row.clear();
            for (std::size_t b = 0; b < logs[run].size(); ++b) {
                if (std::isnan(logs[run][b])) continue;
                const double reference = neighbour_median(logs, before, run, b, scratch);
                if (!std::isnan(reference)) row.push_back(logs[run][b] - reference);
            }
            found.suite_deviation[run] = row.size() >= kSpellSuiteMinimum ? median(row) : 0;
            // The spells found so far would widen the very yardstick they are found by.
            if (row.size() >= kSpellSuiteMinimum && !before[run])
                sizes.push_back(std::abs(found.suite_deviation[run]));
        }
        if (sizes.empty()) break;
        const double bound = std::max(kSpellNoises * kMadToSigma * median(sizes), smallest_move);
        for (std::size_t run = 0; run < runs; ++run) {
            const double shift = found.suite_deviation[run];
            const auto& row = deviations[run];
            if (row.size() < kSpellSuiteMinimum || !(std::abs(shift) > bound)) {
                found.moved[run] = false;
                continue;
            }
            std::size_t agreeing = 0;
            for (const double deviation : row)
                if (deviation * shift > 0 && std::abs(deviation) >= bound / 2) ++agreeing;
            found.moved[run] =
                static_cast<double>(agreeing) >= kSpellAgreement * static_cast<double>(row.size());
        }
        if (found.moved == before) break;
    }
    found.unsettled = runs > 0 && found.moved.back();
    return found;
}

}  // namespace benchwatch::stats
