#pragma once

#include <memory>
#include <string_view>

#include "compare/method.hpp"

namespace benchwatch::compare {

// The settings of the seed rule, the JuliaGPU reports' own.
struct SeedSettings {
    static constexpr std::string_view method_name = "seed";

    double factor = 3.0;  // a change must exceed factor × the typical change
    int pairs = 30;       // typical change from at most this many most recent pairs
};

// The JuliaGPU reports' rule: head against the baseline run, flagged beyond factor × the median
// |ln ratio| of the last `pairs` history pairs, and never below the category's minimum change.
// Its name is "seed".
std::unique_ptr<Method> make_seed_method(const SeedSettings& settings);

// The seed rule as a unit: its report paragraph and its JSON member "settings".
const MethodUnit& seed_unit();

}  // namespace benchwatch::compare
