#pragma once

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/ingest.hpp"
#include "model/run_checks.hpp"

namespace benchwatch::ingest::detail {

// Where a JsonInput's text from byte `at` on lies in the file: at `line` and `column` (from 1).
// A text cut from a file, or pieced together from two parts of one, has one per part.
struct TextOrigin {
    std::size_t at = 0;
    std::uintmax_t line = 1;
    std::uintmax_t column = 1;
};

// One results file's text, walked once with simdjson On-Demand, and the turning of every failure
// into a one-line InputError naming the file and, where simdjson says where, line and column.
// Values that a reader skips are only checked for balanced brackets, not parsed.
class JsonInput {
  public:
    // Starts iterating over `content`, copied into padded storage unless `capacity` (the bytes
    // readable from content.data()) already leaves simdjson's padding; throws InputError when
    // simdjson rejects the text outright (an unclosed string, invalid UTF-8).
    JsonInput(std::string_view content, std::size_t capacity, std::string_view source);
    // The same for a text cut from the file, whose messages place positions by `origins`
    // (sorted by `at`, the first at 0), parsed with `parser`, which must outlive this.
    JsonInput(std::string_view content, std::size_t capacity, std::string_view source,
              std::vector<TextOrigin> origins, simdjson::ondemand::parser& parser);
    JsonInput(const JsonInput&) = delete;
    JsonInput& operator=(const JsonInput&) = delete;

    simdjson::ondemand::document& document() { return document_; }
    const std::string& source() const { return source_; }
    // The length of the text in bytes.
    std::size_t size() const { return text_.size(); }

    // Where `value` starts in the text, for messages about it; nullptr when unknown.
    const char* where(simdjson::ondemand::value& value);

    // Throws "source: message".
    [[noreturn]] void fail(std::string_view message) const;
    // Throws "source:line:column: message", or "source: message" when `where` is nullptr.
    [[noreturn]] void fail_at(const char* where, std::string_view message) const;
    // Throws the InputError for a simdjson error met at the document's current position.
    [[noreturn]] void fail_json(simdjson::error_code error);
    // Throws the InputError for a simdjson error at `where` in the text.
    [[noreturn]] void fail_json_at(const char* where, simdjson::error_code error) const;

    // Fails unless `value` has the JSON type `expected`; `what` names it in the message
    // ("\"benchmarks\"" → "expected an array for \"benchmarks\", got a string").
    void expect(simdjson::ondemand::value& value, simdjson::ondemand::json_type expected,
                std::string_view what);
    // The number in `value`, failing for any other type.
    double number(simdjson::ondemand::value& value, std::string_view what);
    // The number in `value`, or nullopt for null (how Julia writes NaN and Inf).
    std::optional<double> number_or_null(simdjson::ondemand::value& value, std::string_view what);
    // The string in `value`, unescaped, failing for any other type. The view stays valid as long
    // as this JsonInput.
    std::string_view string(simdjson::ondemand::value& value, std::string_view what);
    // The boolean in `value`, failing for any other type.
    bool boolean(simdjson::ondemand::value& value, std::string_view what);
    // A scalar as text for the environment: strings unescaped, numbers and booleans as written;
    // nullopt for null, objects and arrays.
    std::optional<std::string> scalar_text(simdjson::ondemand::value& value);

    // Fails when anything but whitespace follows the document the reader walked.
    void expect_end();

    // Calls `visit` with each element of the array under `key` in the root object, skipping the
    // other keys; fails "expected a JSON object with a "KEY" array" when there is none.
    template <class Visit>
    void for_each_in_root_array(std::string_view key, Visit&& visit) {
        for_each_in_root_array(key, std::forward<Visit>(visit),
                               [](std::string_view, simdjson::ondemand::value&) {});
    }

    // The same, calling `other(key, value)` with every other field of the root object, in the
    // order of the file, for the readers that also take something from beside the array.
    template <class Visit, class Other>
    void for_each_in_root_array(std::string_view key, Visit&& visit, Other&& other) {
        simdjson::ondemand::value root = document().get_value().value();
        expect(root, simdjson::ondemand::json_type::object, "the document");
        const std::string quoted = "\"" + std::string(key) + "\"";
        bool found = false;
        for (auto field : root.get_object()) {
            const std::string_view field_key = field.unescaped_key().value();
            simdjson::ondemand::value value = field.value();
            if (field_key != key) {
                other(field_key, value);
                continue;
            }
            expect(value, simdjson::ondemand::json_type::array, quoted);
            for (auto element : value.get_array()) {
                simdjson::ondemand::value element_value = element.value();
                visit(element_value);
            }
            found = true;
        }
        if (!found) fail("expected a JSON object with a " + quoted + " array");
    }

  private:
    void start(std::string_view content, std::size_t capacity);

    std::string source_;
    simdjson::padded_string owned_;  // empty when the caller's buffer has the padding
    std::string_view text_;
    std::vector<TextOrigin> origins_ = {TextOrigin{}};
    std::optional<simdjson::ondemand::parser> own_parser_;
    simdjson::ondemand::parser* parser_ = nullptr;
    simdjson::ondemand::document document_;
};

// "an object", "an array", "a number", "a string", "a boolean" or "null", for messages.
const char* describe_type(simdjson::ondemand::json_type type);

// Fails "source: benchmark 'name': time must be a positive number, got -3" unless `time` is
// finite and positive.
void check_positive_time(const JsonInput& input, std::string_view benchmark, double time);

// A hash of `bytes` that tells apart the few result files of one commit, at memory speed (FNV-1a
// over 8-byte words); stable across builds and machines, since stores keep it. No defence
// against attackers, and none is needed.
std::uint64_t content_hash(std::string_view bytes);

// content_hash() of a file fed in pieces of any size, for a file read in batches.
class ContentHasher {
  public:
    // Starts the hash of `size` bytes in all.
    explicit ContentHasher(std::uintmax_t size);
    // Adds the next bytes of the file.
    void update(std::string_view bytes);
    // The hash of the bytes added, equal to content_hash() of them all.
    std::uint64_t value() const;

  private:
    std::uint64_t hash_;
    std::array<char, 8> pending_{};  // the start of a word not yet complete
    std::size_t pending_size_ = 0;
};

// Fails "source:LINE: invalid UTF-8 (byte 0xFF at offset N) …" unless `content` is UTF-8;
// `content` starts at byte `offset` and line `line` of the file.
void check_utf8(std::string_view content, std::string_view source, std::uintmax_t offset = 0,
                std::uintmax_t line = 1);

// The bytes of the results file at `path` (a regular file or a pipe), with simdjson's padding
// free after them in the string's capacity. Throws InputError when it cannot be read or is over
// the size benchwatch reads.
std::string read_results_file(const std::filesystem::path& path);

// Fails with model::results_problem()'s message for a result that no store may keep: a name too
// long or holding a control character, a number that is not finite, a time that is not
// positive. Every way a run comes in applies the same rules (model/run_checks.hpp).
void check_results(std::span<const model::Result> results, std::string_view source);

// Longest benchmark or metric name accepted, in bytes: far above any harness's names, short
// enough to show in a report.
inline constexpr std::size_t max_name_bytes = model::kLongestName;

// What the names that one file's results and warnings repeat may add up to: this many bytes per
// byte of the file, and max_names_bytes_beyond_file more, so that a short file may still hold a
// few long names. A result takes a few hundred bytes of memory apart from its names.
inline constexpr std::uintmax_t max_names_bytes_per_file_byte = 8;
inline constexpr std::uintmax_t max_names_bytes_beyond_file = std::uintmax_t{64} << 10;

// The bounds on names that a reader builds from parts several results share (a BenchmarkTools
// group's path, an nvbench benchmark's name before its axes, a Bencher benchmark's key before
// each measure, a go package, a Catch2 test case's name), so that its memory stays proportional to the file: each part is checked against
// max_name_bytes before it is copied, and the names made from them may add up to at most
// max_names_bytes_per_file_byte times the file's size plus max_names_bytes_beyond_file.
class NameBudget {
  public:
    // The budget of a file of `file_bytes` bytes called `source` in messages.
    NameBudget(std::uintmax_t file_bytes, std::string_view source);
    // Fails "source: benchmark name of N bytes is longer than the 4096 allowed: "…"" (as
    // check_names does) when `name` is over max_name_bytes; `what` names it.
    void check_length(std::string_view name, std::string_view what = "benchmark name") const;
    // check_length(), then counts `name` as copied once more, failing once the copies add up to
    // more than the budget.
    void take(std::string_view name);

  private:
    std::string source_;
    std::uintmax_t limit_;
    std::uintmax_t used_ = 0;
};

// Count, median, mean and sample standard deviation of a benchmark's sample times, and the
// order statistics of them that a result keeps.
model::SampleSummary summarize(std::span<const double> times);

// What a reader's detect function may look at: the file's text, and its JSON document when the
// text is a JSON object or array (nullptr otherwise). Detection rewinds the document after each
// reader, so a reader reads only as far as it must to decide.
struct Probe {
    std::string_view text;
    simdjson::ondemand::document* json = nullptr;
};

// For detection: the keys of the first element of the array under `key` in the probe's root
// object, in the order of the file. nullopt when the document is no object or holds no array
// under `key`; empty when the array is empty or its first element is no object.
std::optional<std::vector<std::string>> first_element_keys(const Probe& probe,
                                                           std::string_view key);

// A reader's answer to "is this file yours?".
struct Claim {
    Claim() = default;
    Claim(bool claims, std::string looks_like = {}, std::string refuses = {})
        : matches(claims), looked_like(std::move(looks_like)), refusal(std::move(refuses)) {}

    bool matches = false;
    // When not matching: what the file looked like to this reader ("a JSON object without a
    // "benchmarks" array"), or empty when the file is not even of this reader's shape. The
    // unknown-format message shows the first non-empty one in table order.
    std::string looked_like;
    // When not matching though the file is recognisably a tool's output that holds no results
    // (go test run without -bench, benchstat's summary): what it is and what to give instead,
    // the whole message in place of "unknown results format".
    std::string refusal;
};

// One results format. A JSON reader sets parse_json and is asked to detect only when the file is
// a JSON object or array; a text reader (go test -bench, libtest) sets parse_text and is always
// asked. A reader of a whole folder (Criterion.rs's target/criterion) sets parse_directory and is
// the one asked when a folder is given. Each reader lives in its own file, which defines its
// Reader; ingest.cpp lists them.
struct Reader {
    std::string_view name;  // as given to --format
    Claim (*detect)(const Probe& probe) = nullptr;
    ParsedResults (*parse_json)(JsonInput& input) = nullptr;
    // Reads the text of the file called `source` in messages.
    ParsedResults (*parse_text)(std::string_view text, std::string_view source) = nullptr;
    // Reads the folder at `path`.
    ParsedResults (*parse_directory)(const std::filesystem::path& path) = nullptr;
};

class RootArrayPieces;

// Reads a Google Benchmark file a batch of "benchmarks" rows at a time, on two threads unless
// `second_thread` is false; the results are those the whole-text reader gives.
ParsedResults read_googlebenchmark_in_pieces(RootArrayPieces& pieces, bool second_thread);

// Reads `in`, the `size` bytes of the file called `source`, in batches of about `batch_bytes`
// when it is a Google Benchmark file (`format` "auto" or "googlebenchmark") and opens like one,
// with every check parse() makes; nullopt when it is not, for the whole-text path to read.
// `second_thread` false reads the batches on the calling thread alone.
std::optional<ParsedResults> parse_in_pieces(std::istream& in, std::uintmax_t size,
                                             std::string_view source, std::string_view format,
                                             std::size_t batch_bytes, bool second_thread = true);

// BenchmarkTools.jl's `BenchmarkTools.save` output; see README.md for the mapping.
extern const Reader benchmarktools_reader;

// Google Benchmark's --benchmark_format=json output; see README.md for the mapping.
extern const Reader googlebenchmark_reader;

// hyperfine's --export-json output; see README.md for the mapping.
extern const Reader hyperfine_reader;

// pytest-benchmark's --benchmark-json output; see README.md for the mapping.
extern const Reader pytestbenchmark_reader;

// Criterion.rs's target/criterion folder (new/estimates.json and benchmark.json per benchmark).
extern const Reader criterion_reader;

// cargo-criterion's --message-format=json lines.
extern const Reader cargocriterion_reader;

// `go test -bench` text output.
extern const Reader gotest_reader;

// `go test -json -bench` output: test2json's events, one JSON object per line.
extern const Reader gotestjson_reader;

// libtest's `cargo bench` text output.
extern const Reader libtest_reader;

// Catch2's XML reporter output.
extern const Reader catch2_reader;

// nanobench's JSON template output.
extern const Reader nanobench_reader;

// JMH's -rf json output.
extern const Reader jmh_reader;

// BenchmarkDotNet's JSON exporter output.
extern const Reader benchmarkdotnet_reader;

// NVIDIA nvbench's --json output.
extern const Reader nvbench_reader;

// github-action-benchmark's customSmallerIsBetter / customBiggerIsBetter JSON.
extern const Reader githubactionbenchmark_reader;

// Bencher's metric format (BMF) JSON.
extern const Reader bencher_reader;

}  // namespace benchwatch::ingest::detail
