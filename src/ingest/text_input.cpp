#include "ingest/text_input.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest::detail {

TextInput::TextInput(std::string_view text, std::string_view source)
    : rest_(text), source_(source) {}

bool TextInput::next_line(std::string_view& line) {
    if (rest_.empty()) return false;
    const std::size_t end = rest_.find('\n');
    line = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    ++line_number_;
    return true;
}

std::string TextInput::located(std::string_view message) const {
    return fmt::format("{}:{}: {}", source_, line_number_, message);
}

void TextInput::fail(std::string_view message) const {
    throw InputError(located(message));
}

void TextInput::fail_at_line(std::size_t line, std::string_view message) const {
    throw InputError(fmt::format("{}:{}: {}", source_, line, message));
}

void TextInput::fail_file(std::string_view message) const {
    throw InputError(fmt::format("{}: {}", source_, message));
}

void check_positive_time(const TextInput& input, std::string_view benchmark, double time) {
    if (std::isfinite(time) && time > 0) return;
    if (time > 0)
        input.fail(fmt::format("benchmark '{}': time is too large to store in ns", benchmark));
    input.fail(
        fmt::format("benchmark '{}': time must be a positive number, got {}", benchmark, time));
}

std::size_t line_at_offset(std::string_view text, std::size_t offset) {
    const std::string_view before = text.substr(0, std::min(offset, text.size()));
    return 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t at = 0;
    while (true) {
        at = line.find_first_not_of(" \t\r", at);
        if (at == std::string_view::npos) return fields;
        const std::size_t end = std::min(line.find_first_of(" \t\r", at), line.size());
        fields.push_back(line.substr(at, end - at));
        at = end;
    }
}

std::string_view trim(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::optional<double> parse_number(std::string_view text) {
    double value = 0;
    const char* const end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || text.empty()) return std::nullopt;
    return value;
}

std::optional<std::int64_t> parse_count(std::string_view text) {
    std::int64_t value = 0;
    const char* const end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || text.empty() || value < 0) return std::nullopt;
    return value;
}

}  // namespace benchwatch::ingest::detail
