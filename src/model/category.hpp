#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::model {

// A named group of benchmarks chosen by name prefix, with the smallest change worth reporting.
struct Category {
    std::string name;                   // "Latency"
    std::vector<std::string> prefixes;  // {"latency/"}; empty means "everything else"
    double minimum_change = 0.03;       // relative, 0.05 is 5%

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

// The smallest change that counts for `benchmark`: its category's minimum, or
// catch_all_category()'s (3%) when no category takes it.
double minimum_change_of(std::string_view benchmark, const std::vector<Category>& categories);

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
