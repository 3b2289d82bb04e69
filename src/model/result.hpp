#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::model {

// Which way a metric improves: times and memory get better as they shrink, throughput as it grows.
enum class Direction { SmallerIsBetter, BiggerIsBetter };

// "smaller" or "bigger", the spelling used in the store and in JSON output.
const char* to_string(Direction direction);

// Parses "smaller"/"bigger"; std::nullopt for anything else.
std::optional<Direction> parse_direction(std::string_view text);

// Whether a change to `ratio` × the value before it makes a metric of `direction` worse: growing
// (ratio > 1) when smaller is better, shrinking (ratio < 1) when bigger is better. No change
// (ratio 1) is never worse. Example: worse(Direction::BiggerIsBetter, 0.9) == true.
constexpr bool worse(Direction direction, double ratio) {
    return direction == Direction::SmallerIsBetter ? ratio > 1 : ratio < 1;
}

// The most sample values one result keeps; a result of more samples keeps that many of their
// order statistics, evenly spaced from the smallest to the largest.
inline constexpr std::size_t kKeptSampleValues = 64;

// What a format says about the spread of the samples behind one value.
struct SampleSummary {
    std::int64_t count = 0;
    double median = 0;
    double mean = 0;
    double stddev = 0;
    // Ascending: the samples, or kKeptSampleValues of their order statistics where there are
    // more; empty where the format gives a summary only.
    std::vector<double> values = {};

    friend bool operator==(const SampleSummary&, const SampleSummary&) = default;
};

// One benchmark's value of one metric in one run. Times are always stored in nanoseconds
// (unit "ns"); `value` is the best of the samples (the minimum for smaller-is-better metrics).
struct Result {
    std::string benchmark;  // '/'-separated path, e.g. "array/copyto!/gpu_to_cpu"
    std::string metric = "time";
    double value = 0;
    std::string unit = "ns";
    Direction direction = Direction::SmallerIsBetter;
    std::optional<double> allocations;  // allocation count, where the format has it
    std::optional<double> memory;       // bytes allocated (or peak memory of a process)
    std::optional<double> user_time;    // ns of CPU time in user mode, for whole processes
    std::optional<double> system_time;  // ns of CPU time in the kernel, for whole processes
    std::optional<double> gc_time;      // ns spent collecting garbage, where the harness says
    std::optional<SampleSummary> samples;

    friend bool operator==(const Result&, const Result&) = default;
};

}  // namespace benchwatch::model
