#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::ingest {

// One benchmark as Catch2's XML reporter lists it (<BenchmarkResults>): what an instrument that
// counts per sample needs beside the file's results.
struct Catch2Row {
    std::string benchmark;        // named as the catch2 reader names it: test case/section/name
    std::int64_t samples = 0;     // "samples"
    std::int64_t iterations = 0;  // "iterations": the benchmark's calls in each sample
    bool failed = false;          // it has a <failed> element: no result
};

// The benchmarks of Catch2's XML output `xml` (called `source` in messages), in the order it ran
// them. Throws InputError for text that is not such output.
// Example: <Catch><TestCase name="t"><BenchmarkResults name="b" samples="2" iterations="7">
// <mean value="1"/><standardDeviation value="0"/></BenchmarkResults></TestCase></Catch> gives one
// row {"t/b", 2, 7, false}.
std::vector<Catch2Row> catch2_rows(std::string_view xml, std::string_view source);

}  // namespace benchwatch::ingest
