#pragma once

// Private to the ingest layer: what the readers of `go test -bench` text (gotest.cpp) and of
// `go test -json -bench` events (gotestjson.cpp) share, since both read the lines go test printed.

#include <cstddef>
#include <functional>
#include <string_view>

#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

// One line go test printed, without its newline, and the line of the results file that messages
// about it name.
struct GoOutputLine {
    std::string_view text;
    std::size_t file_line = 0;
};

// Gives the next printed line in `line` and returns true, or returns false after the last.
using NextGoLine = std::function<bool(GoOutputLine& line)>;

// Reads go test's printed lines (README.md, go test -bench) into results of reader `format`;
// messages are "source:LINE: message". The lines' text must stay valid until this returns.
ParsedResults read_go_output(const NextGoLine& next, std::string_view source,
                             std::string_view format);

// Whether go test's printed lines hold a benchmark result with a time per operation; when they do
// not, a refusal when they are recognisably `command`'s output without benchmarks ("go test",
// "go test -json"), or benchstat's summary, naming what to record instead.
Claim claim_go_output(const NextGoLine& next, std::string_view command);

}  // namespace benchwatch::ingest::detail
