#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::model {

// The smallest change worth reporting, by default, in a metric an instrument counts rather than
// times (is_counted_metric()): such a count moves by less than 0.01% between runs of one binary
// however busy the machine (docs/instrument.md), so a change far below a time's 3% is real.
inline constexpr double kDefaultCountedMinimumChange = 0.002;

// A named group of benchmarks chosen by name prefix, with the smallest change worth reporting.
struct Category {
    std::string name;                   // "Latency"
    std::vector<std::string> prefixes;  // {"latency/"}; empty means "everything else"
    double minimum_change = 0.03;       // relative, 0.05 is 5%
    // The same for the metrics an instrument counts (instructions, estimated cycles).
    double counted_minimum_change = kDefaultCountedMinimumChange;

    friend bool operator==(const Category&, const Category&) = default;
};

// The category of every benchmark that no prefix takes: "Performance", without prefixes, at the
// default minimum (3%), named as the seeds' reports name it.
Category catch_all_category();

// The seeds' categories in their order: catch_all_category() (everything else, 3%), Latency
// (latency/, 5%), Applications (integration/ and applications/, 3%), Other (other/, 3%).
std::vector<Category> default_categories();

// Where a benchmark belongs: the index into `categories` of the first category with a matching
// prefix, else the first category without prefixes, else categories.size().
std::size_t categorize(std::string_view benchmark, const std::vector<Category>& categories);

// True for the metrics an instrument counts rather than times: "instructions" and
// "estimated_cycles".
bool is_counted_metric(std::string_view metric);

// The smallest change that counts for `metric` of `benchmark`: its category's minimum (its
// counted minimum for a counted metric), or catch_all_category()'s when no category takes it.
// Example: minimum_change_of("BM_a", "instructions", default_categories()) == 0.002.
double minimum_change_of(std::string_view benchmark, std::string_view metric,
                         const std::vector<Category>& categories);

// The name shown inside its category: the matching prefix removed ("latency/ttfp" → "ttfp").
std::string_view display_name(std::string_view benchmark, const Category& category);

// A benchmark's name as reports show one of its metrics: the name alone for "time", else the
// metric in parentheses ("io/read (throughput)"), so that two metrics of one benchmark differ.
std::string with_metric(std::string_view name, std::string_view metric);

}  // namespace benchwatch::model

namespace benchwatch::model {

// The order of benchmark rows: case-insensitive by bytes, ties broken case-sensitively, so that
// "reverse/1d_inplace" sorts before "reverse/1dL" as in the seeds.
bool name_less(std::string_view a, std::string_view b);

// A benchmark's name as reports show one of its metrics: the name alone for "time", else the
// metric in parentheses ("io/read (throughput)"), so that two metrics of one benchmark differ.
std::string with_metric(std::string_view name, std::string_view metric);

}  // namespace benchwatch::model
