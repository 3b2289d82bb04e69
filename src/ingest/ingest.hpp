#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/error.hpp"
#include "model/result.hpp"
#include "model/run.hpp"

namespace benchwatch::ingest {

// A file that cannot be read as benchmark results. what() is one line that names the file and,
// where known, the line and column: "results.json:3:17: expected ',' or '}' after a value".
// Control characters and bytes that are not UTF-8 in the message are shown as \u{1b} and \x{ff},
// so a quoted name cannot drive a terminal or start a CI workflow command on a line of its own.
class InputError : public model::Error {
  public:
    explicit InputError(std::string_view message);
};

// What one results file holds.
struct ParsedResults {
    std::string format;                  // the reader's name, e.g. "benchmarktools"
    std::vector<model::Result> results;  // one per benchmark and metric, names unique
    model::Environment context;          // what the file says of its environment (versions…)
    // The program that wrote the file as the file names it (Google Benchmark's context
    // "executable"), untrusted; empty when the file does not say. Not part of the environment.
    std::string program;
    // One line each, e.g. skipped or errored benchmarks; control characters written out as in
    // InputError's messages.
    std::vector<std::string> warnings;
    std::uint64_t content_hash = 0;  // of the file's bytes: equal files, equal hashes
};

// The names accepted by --format, in detection order: "benchmarktools", "googlebenchmark",
// "hyperfine".
std::vector<std::string> format_names();

// Reads `content` (the text of the file called `source` in messages). `format` is "auto" to
// detect it from the content, or one of format_names(). Throws InputError for an unknown
// format, malformed content, or values that are not finite and positive. `other_fix` is what
// else the message of blank content or an unknown format suggests, before --input-format:
// "if the harness writes its results to a file, pass --results FILE".
ParsedResults parse(std::string_view content, std::string_view source, std::string_view format,
                    std::string_view other_fix = {});

// Reads the file at `path` once, into a buffer the JSON parser can use in place, and parses it
// as parse() does. Throws InputError when the file cannot be read or is empty.
ParsedResults parse_file(const std::filesystem::path& path, std::string_view format);

}  // namespace benchwatch::ingest
