#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::ingest {

// One run of one benchmark as Google Benchmark's JSON output lists it (a row whose run_type is
// "iteration"): what an instrument that counts per run needs beside the file's results.
struct GoogleBenchmarkRow {
    std::string benchmark;  // run_name, else the name
    std::int64_t iterations = 0;
    std::int64_t threads = 1;
    bool left_out = false;  // errored or skipped: no result
};

// The iteration rows of Google Benchmark's JSON output `json` (called `source` in messages), in
// the order it ran them. Throws InputError for JSON that is not such output.
// Example: {"benchmarks": [{"name": "BM_a", "run_type": "iteration", "iterations": 3}]} gives
// one row {"BM_a", 3, 1, false}.
std::vector<GoogleBenchmarkRow> google_benchmark_rows(std::string_view json,
                                                      std::string_view source);

}  // namespace benchwatch::ingest
