#include "textkit.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <unordered_map>

namespace textkit {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

template <typename Visit>
void for_each_word(std::string_view text, Visit visit) {
    std::size_t position = 0;
    while (position < text.size()) {
        while (position < text.size() && is_space(text[position])) ++position;
        const std::size_t start = position;
        while (position < text.size() && !is_space(text[position])) ++position;
        if (position > start) visit(text.substr(start, position - start));
    }
}

}  // namespace

std::size_t count_words(std::string_view text) {
    std::size_t words = 0;
    for_each_word(text, [&words](std::string_view) { ++words; });
    return words;
}

std::uint32_t adler32(std::string_view data) {
    constexpr std::uint32_t modulus = 65521;
    // The largest block whose sums cannot overflow 32 bits before the modulo (zlib's NMAX).
    constexpr std::size_t block = 5552;
    std::uint32_t low = 1;
    std::uint32_t high = 0;
    for (std::size_t begin = 0; begin < data.size(); begin += block) {
        const std::size_t end = std::min(data.size(), begin + block);
        for (std::size_t i = begin; i < end; ++i) {
            low += static_cast<unsigned char>(data[i]);
            high += low;
        }
        low %= modulus;
        high %= modulus;
    }
    return (high << 16) | low;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string joined;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) joined += separator;
        joined += parts[i];
    }
    return joined;
}

std::vector<std::string_view> split(std::string_view text, char delimiter) {
    std::vector<std::string_view> pieces;
    std::size_t start = 0;
    for (std::size_t end = text.find(delimiter); end != std::string_view::npos;
         end = text.find(delimiter, start)) {
        pieces.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    pieces.push_back(text.substr(start));
    return pieces;
}

std::vector<std::int64_t> parse_integers(std::string_view csv) {
    std::vector<std::int64_t> numbers;
    std::size_t offset = 0;
    for (const std::string_view field : split(csv, ',')) {
        std::int64_t number = 0;
        const auto [end, error] =
            std::from_chars(field.data(), field.data() + field.size(), number);
        if (error != std::errc{} || end != field.data() + field.size()) {
            throw std::invalid_argument("parse_integers: field \"" + std::string(field) +
                                        "\" at offset " + std::to_string(offset) +
                                        " is not a decimal integer");
        }
        numbers.push_back(number);
        offset += field.size() + 1;
    }
    return numbers;
}

void sort_records(std::vector<Record>& records) {
    // Insertion sort: stable, and fast on the short, nearly sorted tables it was written for.
    for (std::size_t i = 1; i < records.size(); ++i) {
        Record moving = std::move(records[i]);
        std::size_t hole = i;
        while (hole > 0 && moving.key < records[hole - 1].key) {
            records[hole] = std::move(records[hole - 1]);
            --hole;
        }
        records[hole] = std::move(moving);
    }
}

std::vector<std::pair<std::string, std::size_t>> top_words(std::string_view text,
                                                           std::size_t limit) {
    std::unordered_map<std::string_view, std::size_t> counts;
    for_each_word(text, [&counts](std::string_view word) { ++counts[word]; });
    std::vector<std::pair<std::string_view, std::size_t>> ranked(counts.begin(), counts.end());
    const auto more_frequent = [](const auto& left, const auto& right) {
        return left.second != right.second ? left.second > right.second : left.first < right.first;
    };
    const std::size_t kept = std::min(limit, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(kept),
                      ranked.end(), more_frequent);
    std::vector<std::pair<std::string, std::size_t>> top;
    top.reserve(kept);
    for (std::size_t i = 0; i < kept; ++i) top.emplace_back(ranked[i].first, ranked[i].second);
    return top;
}

}  // namespace textkit
