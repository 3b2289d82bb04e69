#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "compare/backtest.hpp"

namespace benchwatch::report {

// How `benchwatch backtest` lays its report out, beside the figures themselves.
// What `compare` with the default method says a pull request on top of the latest run could
// flag: each judged benchmark's detectable change, as its report's "Changes beyond … could be
// detected" sentence sums them up.
struct LatestDetectable {
    std::size_t benchmarks = 0;          // with a detectable change
    double median = 0;                   // of their detectable changes, as a fraction
    std::vector<double> within;          // per injection size: the share of them that would flag it
    std::size_t first_history_runs = 0;  // the runs before the first replayed pull request
    std::size_t last_history_runs = 0;   // and before the last
};

struct BacktestLayout {
    std::vector<bool> is_default;         // parallel to BacktestReport::methods: the default one
    std::vector<double> injection_sizes;  // as BacktestOptions::injection_sizes: 0.1 for +10%
    std::optional<double> budget;         // --budget: also the table at the most sensitive setting
    std::optional<LatestDetectable> latest;  // none when no benchmark has a detectable change
};

// The backtest as terminal text: the number of pull requests replayed (with about 95% intervals
// in brackets below 30 of them), a table of each method's budget, setting, flukes and persistent
// flags per pull request and share of each injected regression caught, and with a budget a
// second table at each method's most sensitive setting within it; with `latest`, what compare says
// now beside it, and why the replay catches less when it does.
void render_backtest_text(const compare::BacktestReport& report, const BacktestLayout& layout,
                          std::ostream& out);

// The backtest as JSON (`backtest --format json`): "prs" and per method its name, whether it is
// the default, its budget and setting, flukes and persistent flags per pull request, caught
// shares keyed by injection size ("0.1"), their intervals and, with a budget, "at_budget"; and
// "latest" (LatestDetectable) or null.
void render_backtest_json(const compare::BacktestReport& report, const BacktestLayout& layout,
                          std::ostream& out);

}  // namespace benchwatch::report
