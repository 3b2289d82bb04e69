#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace benchwatch::model {

// The longest benchmark name, metric name or unit a run may hold, in bytes: far above any
// harness's names, short enough to show in a report.
inline constexpr std::size_t kLongestName = 4096;

// Why `results` cannot be stored, as one line "SOURCE: problem" naming the first result at
// fault; std::nullopt when every result can be. The same rules for every way a run comes in
// (record, run, upload, import, a history branch, copy): each name at most
// kLongestName bytes without control characters (C0, DEL, C1); every number finite (but the
// deviation of a single sample, which may be NaN); a time
// (unit "ns") and its samples' median, mean and values positive and normal (at least
// 2.2250738585072014e-308); any other value, the samples' deviation, allocations, memory and
// CPU and GC times 0 or positive and normal; a samples' count of 0 or more
// (0: the format does not say).
// Example: a time of 0 in "a.json" gives "a.json: benchmark 'x': time must be a positive
// number, got 0".
std::optional<std::string> results_problem(std::span<const Result> results,
                                           std::string_view source);

// Why a run of project `project` on `machine` and `branch` cannot be stored, as one line
// "SOURCE: problem"; std::nullopt when it can be. Each name as results_problem() wants a
// benchmark's: at most kLongestName bytes, no control characters. Example: machine "m" ESC
// "[31m" from "the run" gives "the run: machine name \"m\x1b[31m\" holds control character
// U+001B; names must be printable on one line".
std::optional<std::string> run_names_problem(std::string_view project, std::string_view machine,
                                             std::string_view branch, std::string_view source);

}  // namespace benchwatch::model
