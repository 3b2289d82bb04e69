#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace benchwatch::ingest {

// What one file of callgrind's output (one part of a profile, as valgrind's callgrind format
// describes it) says in its header and totals; the per-function costs are not read.
struct CallgrindPart {
    int part = 0;         // its "part:" number; 0 when the file has none
    std::string trigger;  // what made callgrind write it ("desc: Trigger: …"), e.g.
                          // "--dump-before=benchmark::State::FinishKeepRunning()"
    std::map<std::string, std::uint64_t, std::less<>> totals;  // by event name: "Ir", "Dr"…
};

// Reads the callgrind output `text` (called `source` in messages). The totals come from the
// "summary:" line, else the "totals:" line, one count per event the "events:" line names.
// Counts left out at the end of the line are 0. Throws InputError (with the line number) when
// there is no "events:" line, no summary or totals, a count that is not a whole number, or more
// counts than events.
// Example: "events: Ir\nsummary: 1200\n" gives totals {"Ir": 1200}.
CallgrindPart parse_callgrind(std::string_view text, std::string_view source);

// Cycles estimated from a part's totals with the cache simulation: each access that hit the
// first-level cache costs 1, one that hit the last level 5, and one that went to memory 35:
// L1 hits = Ir + Dr + Dw − (I1mr + D1mr + D1mw), last-level hits = I1mr + D1mr + D1mw −
// (ILmr + DLmr + DLmw), memory = ILmr + DLmr + DLmw. std::nullopt without the cache events.
// Example: Ir 100, Dr 40, Dw 10, I1mr 2, D1mr 5, D1mw 1, ILmr 1, DLmr 2, DLmw 0 give
// 142 + 5 × 5 + 35 × 3 = 272.
std::optional<double> estimated_cycles(
    const std::map<std::string, std::uint64_t, std::less<>>& totals);

}  // namespace benchwatch::ingest
