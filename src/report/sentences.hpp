#pragma once

// Private to the report layer: the sentences every renderer writes around the tables, so the
// Markdown, text and JSON outputs never disagree about what a comparison says.

#include <string>
#include <string_view>
#include <vector>

#include "model/comparison.hpp"
#include "report/escaping.hpp"

namespace benchwatch::report::detail {

// "6ecd201bb": the first 9 hex digits of a SHA; any other id is kept whole.
std::string short_commit(std::string_view commit);

// The sentence saying what the head is compared with ("Compared with 6ecd201bb, the merge base.";
// for a head on the default branch, that it is compared with the run before it).
std::string baseline_sentence(const model::Comparison& comparison, Escape escape);

// "LLVM 15 → 16, CUDA added (12.2), GPU removed (was A100)": each change, joined by commas.
std::string change_list(const std::vector<model::EnvironmentChange>& changes, Escape escape);

// "The environment differs from the baseline's: LLVM 15 → 16, CUDA added (12.2)."; "" when the
// list is empty.
std::string environment_sentence(const std::vector<model::EnvironmentChange>& changes,
                                 Escape escape);

// "Measured on: Debian GNU/Linux 12 (bookworm), kernel 6.1.0-18-amd64, x86_64, AMD EPYC 7B13,
// 2 cores, 23.4 GiB of memory, NVIDIA A100, GPU driver 535.104.05." with the keys present, in
// model::machine_keys order; "" when `machine` is empty.
std::string machine_sentence(const model::Environment& machine, Escape escape);

// "The baseline ran on a different machine: cpu AMD EPYC 7402 → AMD EPYC 7B13."; "" when the
// list is empty.
std::string machine_change_sentence(const std::vector<model::EnvironmentChange>& changes,
                                    Escape escape);

// "Measurement warnings for <whose> run: " and each warning's sentence, one after the other;
// "" when there are none. `whose` is "this PR's" or "the baseline's".
std::string warnings_sentence(std::string_view whose, const std::vector<model::Warning>& warnings,
                              Escape escape);

// The lines under the baseline sentence, each only when it has something to say: the
// environment's changes, the machine, a different baseline machine, the head's warnings, the
// baseline's warnings.
std::vector<std::string> context_lines(const model::Comparison& comparison, Escape escape);

// The paragraph explaining the rule, with the configured factor and category minimums; category
// names pass through `escape`.
std::string explanation_paragraph(const model::Comparison& comparison, Escape escape);

// Whether the report says what the comparison could detect, counts too noisy benchmarks and
// calls an unflagged row "within noise": every method but seed, whose reference reports do not.
bool says_what_it_could_detect(const model::Comparison& comparison);

}  // namespace benchwatch::report::detail
