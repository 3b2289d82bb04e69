#pragma once

#include <string>

namespace benchwatch::model {

// How numbers read inside the sentences of a report, shared by the report layer and the judging
// methods whose paragraphs explain them.

// A relative change with sign and one decimal, U+2212 for negatives, the sign kept when it
// rounds to zero: format_change(-0.0001) == "−0.0%", format_change(0.0123) == "+1.2%".
std::string format_change(double change);

// Whether a suite's move shows as a change at the one decimal of a percentage format_change()
// prints: a sentence saying the suite moved by −0.0% says nothing.
bool moved_visibly(double suite_move);

// "2.5%": a fraction as a percentage without trailing zeros.
std::string percent_without_trailing_zeros(double fraction);

// "three times", "2.5 times", "one time".
std::string factor_words(double factor);

// "90th" for 0.9, "75th" for 0.75, "21st" for 0.21.
std::string ordinal_percentile(double quantile);

// "3" for whole counts however large, "2.5" otherwise.
std::string whole_or_general(double count);

}  // namespace benchwatch::model
