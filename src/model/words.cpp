#include "model/words.hpp"

#include <fmt/format.h>

#include <cmath>

namespace benchwatch::model {

std::string format_change(double change) {
    const double percent = std::abs(change) * 100;
    // U+2212 MINUS SIGN for every negative change, including those that round to zero.
    const char* sign = std::signbit(change) ? "\u2212" : "+";
    if (std::isnan(change)) return "nan%";
    return fmt::format("{}{:.1f}%", sign, percent);
}

bool moved_visibly(double suite_move) {
    return std::abs(suite_move) >= 0.0005;
}

std::string percent_without_trailing_zeros(double fraction) {
    auto text = fmt::format("{:.2f}", fraction * 100);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.ends_with('.')) text.pop_back();
    return text + "%";
}

std::string factor_words(double factor) {
    static constexpr const char* kWords[] = {"zero", "one",   "two",   "three", "four", "five",
                                             "six",  "seven", "eight", "nine",  "ten"};
    if (factor == 1) return "one time";
    if (factor >= 0 && factor <= 10 && factor == std::floor(factor))
        return fmt::format("{} times", kWords[static_cast<int>(factor)]);
    return fmt::format("{:g} times", factor);
}

std::string ordinal_percentile(double quantile) {
    const auto percent = static_cast<int>(std::lround(quantile * 100));
    const auto last_two = percent % 100;
    const char* suffix = "th";
    if (last_two < 11 || last_two > 13) {
        if (percent % 10 == 1) suffix = "st";
        if (percent % 10 == 2) suffix = "nd";
        if (percent % 10 == 3) suffix = "rd";
    }
    return fmt::format("{}{}", percent, suffix);
}

std::string whole_or_general(double count) {
    return count == std::floor(count) && std::abs(count) < 1e15 ? fmt::format("{:.0f}", count)
                                                                : fmt::format("{:g}", count);
}

}  // namespace benchwatch::model
