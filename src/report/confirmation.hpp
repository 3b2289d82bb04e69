#pragma once

#include <ostream>

#include "model/confirmation.hpp"

namespace benchwatch::report {

// Whether the rounds re-measured a report's flags or every benchmark (`confirm`, `compare
// --confirm`), or were the pull request's only measurement of base and head (`compare --paired`).
enum class Rounds { ReMeasured, SideBySide };

// `benchwatch confirm` as aligned terminal text: one line on how the rounds went, a table of the
// benchmarks (flagged change, re-measured change and its interval, rounds, verdict) and a count.
// SideBySide says the benchmarks were measured, not re-measured, and leaves out the flagged column.
void render_confirmation_text(const model::Confirmation& confirmation, std::ostream& out,
                              Rounds rounds = Rounds::ReMeasured);

// The same as a "### Confirmation" Markdown section to append to the pull-request comment
// ("### Side by side" for SideBySide).
void render_confirmation_markdown(const model::Confirmation& confirmation, std::ostream& out,
                                  Rounds rounds = Rounds::ReMeasured);

// The same as JSON, every number unrounded; changes are head/base − 1, null where unknown.
void render_confirmation_json(const model::Confirmation& confirmation, std::ostream& out);

}  // namespace benchwatch::report
