#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "compare/backtest.hpp"

namespace benchwatch::report {

// How `benchwatch backtest` lays its report out, beside the figures themselves.
struct BacktestLayout {
    std::vector<bool> is_default;        // parallel to BacktestReport::methods: the default one
    std::vector<double> injection_sizes; // as BacktestOptions::injection_sizes: 0.1 for +10%
    std::optional<double> budget;        // --budget: also the table at the most sensitive setting
};

// The backtest as terminal text: the number of pull requests replayed (with about 95% intervals
// in brackets below 30 of them), a table of each method's budget, setting, flukes and persistent
// flags per pull request and share of each injected regression caught, and with a budget a
// second table at each method's most sensitive setting within it.
void render_backtest_text(const compare::BacktestReport& report, const BacktestLayout& layout,
                          std::ostream& out);

// The backtest as JSON (`backtest --format json`): "prs" and per method its name, whether it is
// the default, its budget and setting, flukes and persistent flags per pull request, caught
// shares keyed by injection size ("0.1"), their intervals and, with a budget, "at_budget".
void render_backtest_json(const compare::BacktestReport& report, const BacktestLayout& layout,
                          std::ostream& out);

}  // namespace benchwatch::report
