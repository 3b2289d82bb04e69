// textkit: small text and record utilities, the example library that scripts/demo benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace textkit {

// A row of a small table: sorted by key, then kept in input order among equal keys.
struct Record {
    std::string key;
    std::int64_t value = 0;
};

// Number of maximal runs of non-space characters; spaces are ' ', '\t', '\n', '\r', '\f', '\v'.
// count_words("  to be  or ") == 3; count_words("") == 0.
std::size_t count_words(std::string_view text);

// Adler-32 of the bytes of `data` (RFC 1950); adler32("") == 1, adler32("Wikipedia") == 0x11E60398.
std::uint32_t adler32(std::string_view data);

// The parts in order with `separator` between neighbours; join({}, ",") == "".
std::string join(const std::vector<std::string>& parts, std::string_view separator);

// The pieces between occurrences of `delimiter`, empty ones included; they view into `text`.
// split("a,,b", ',') == {"a", "", "b"}; split("", ',') == {""}.
std::vector<std::string_view> split(std::string_view text, char delimiter);

// Decimal integers separated by commas, e.g. "12,-7,300"; throws std::invalid_argument naming
// the offending field and its position when a field is not an integer.
std::vector<std::int64_t> parse_integers(std::string_view csv);

// Sorts by key, stable: records with equal keys keep their relative order.
void sort_records(std::vector<Record>& records);

// The `limit` most frequent words of `text` (as count_words splits them) with their counts, most
// frequent first, ties broken alphabetically.
std::vector<std::pair<std::string, std::size_t>> top_words(std::string_view text,
                                                           std::size_t limit);

}  // namespace textkit
