#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::ingest::detail {

// The text of a results file read line by line, and the one-line InputError of a text reader:
// "source:LINE: message", lines numbered from 1.
class TextInput {
  public:
    TextInput(std::string_view text, std::string_view source);

    // Moves to the next line and gives it without its "\n" or "\r\n"; false after the last.
    bool next_line(std::string_view& line);
    // The 1-based number of the line next_line gave last (0 before the first).
    std::size_t line_number() const { return line_number_; }
    const std::string& source() const { return source_; }

    // "source:LINE: message" for the current line, as a warning's text.
    std::string located(std::string_view message) const;
    // Throws "source:LINE: message" for the current line.
    [[noreturn]] void fail(std::string_view message) const;
    // Throws "source:line: message".
    [[noreturn]] void fail_at_line(std::size_t line, std::string_view message) const;
    // Throws "source: message", for what belongs to no one line.
    [[noreturn]] void fail_file(std::string_view message) const;

  private:
    std::string_view rest_;
    std::string source_;
    std::size_t line_number_ = 0;
};

// Fails "source:LINE: benchmark 'name': time must be a positive number, got -3" for the current
// line unless `time` is finite and positive.
void check_positive_time(const TextInput& input, std::string_view benchmark, double time);

// The 1-based line holding the byte at `offset` of `text`.
std::size_t line_at_offset(std::string_view text, std::size_t offset);

// The fields of `line` between runs of spaces and tabs.
std::vector<std::string_view> split_fields(std::string_view line);

// `text` without leading and trailing spaces, tabs and carriage returns.
std::string_view trim(std::string_view text);

// The decimal number that is all of `text` ("12.5", "1e-3"), or nullopt.
std::optional<double> parse_number(std::string_view text);

// The non-negative integer that is all of `text`, or nullopt.
std::optional<std::int64_t> parse_count(std::string_view text);

}  // namespace benchwatch::ingest::detail
