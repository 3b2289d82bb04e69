#pragma once

// Internal to the compare layer: the level method's calibration kept in the store between
// compares (store::Store::cached_calibration), under a key that changes whenever anything the
// calibration read or depends on changes, so that a cached one equals the one it replaces.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compare/runs.hpp"
#include "model/benchmark_rules.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "store/store.hpp"

namespace benchwatch::compare::detail {

// The calibration as the store keeps it: one JSON object with "format":
// "benchwatch-calibration", "version": 1 and the fields of model::Calibration, every number
// written so that it reads back exactly.
std::string calibration_text(const model::Calibration& calibration);

// The calibration that calibration_text() wrote; std::nullopt for any other text (not JSON,
// another format or version, a field missing or of the wrong type, a source other than
// calibrated or conservative, a sensitivity that is not a positive finite number).
std::optional<model::Calibration> parse_calibration(std::string_view text);

// The fingerprint of what a calibration depends on besides the runs: the method's settings, the
// categories' prefixes and minimum changes (not their names), the per-benchmark rules (when there
// are any), and the version of the cache's rules, "level-" and 16 hex digits of a hash.
std::string calibration_settings_fingerprint(const model::MethodChoice& choice,
                                             const std::vector<model::Category>& categories,
                                             const model::BenchmarkRules& rules = {});

// The fingerprint of the runs a calibration reads: the newest of `commits` (newest first), how
// many there are, the largest id among their runs in `index` (a new attempt of any of them
// changes it) and a hash of the whole list. Example: "c59 60 61 9f1c2e3d4b5a6978".
std::string calibration_history_fingerprint(std::span<const std::string> commits,
                                            const RunIndex& index);

// The calibration cached in `store` under `key` when there is one that parses and that
// `out_of_range` finds nothing wrong with (from_cache set), else `calibrate()`, which is then
// cached under `key`; when a cached one was ignored for being out of range, cache_refusal says
// why. A store that cannot read or write the cache (read-only, locked, without the privilege)
// only makes it a miss: the answer is the same.
model::Calibration cached_calibration(
    store::Store& store, const store::CalibrationKey& key,
    const std::function<model::Calibration()>& calibrate,
    const std::function<std::optional<std::string>(const model::Calibration&)>& out_of_range);

}  // namespace benchwatch::compare::detail
