#pragma once

#include <ostream>

#include "model/confirmation.hpp"

namespace benchwatch::report {

// `benchwatch confirm` as aligned terminal text: one line on how the rounds went, a table of the
// benchmarks (flagged change, re-measured change and its interval, rounds, verdict) and a count.
void render_confirmation_text(const model::Confirmation& confirmation, std::ostream& out);

// The same as a "### Confirmation" Markdown section to append to the pull-request comment.
void render_confirmation_markdown(const model::Confirmation& confirmation, std::ostream& out);

// The same as JSON, every number unrounded; changes are head/base − 1, null where unknown.
void render_confirmation_json(const model::Confirmation& confirmation, std::ostream& out);

}  // namespace benchwatch::report
