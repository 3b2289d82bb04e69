// What could break: callgrind's totals read from the wrong line or event, the counts it leaves
// out at the end of a line taken for missing rather than zero, the part and trigger of a dump
// lost (the instrument matches loops by them), a truncated profile read as zero instructions, and
// the estimated cycles off their weights.
#include "ingest/callgrind.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ingest/googlebenchmark.hpp"
#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

// The header and a little of the body of a part that callgrind 3.19 dumped before a function.
constexpr std::string_view kPart =
    "# callgrind format\n"
    "version: 1\n"
    "creator: callgrind-3.19.0\n"
    "pid: 9446\n"
    "cmd:  ./bench --benchmark_min_time=0.000000001\n"
    "part: 4\n"
    "\n"
    "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
    "desc: Timerange: Basic block 9012 - 9031\n"
    "desc: Trigger: --dump-before=benchmark::State::FinishKeepRunning()\n"
    "\n"
    "positions: line\n"
    "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
    "summary: 100 40 10 2 5 1 1 2\n"
    "\n"
    "\n"
    "ob=(1) /usr/lib/x86_64-linux-gnu/libbenchmark.so.1.7.1\n"
    "fl=(1) ???\n"
    "fn=(1) 0x000000000001a2b0\n"
    "0 3 1\n"
    "totals: 100 40 10 2 5 1 1 2\n";

TEST(Callgrind, ReadsThePartItsTriggerAndTheSummaryWithTrailingZeros) {
    const auto part = parse_callgrind(kPart, "callgrind.out.9446.4");
    EXPECT_EQ(part.part, 4);
    EXPECT_EQ(part.trigger, "--dump-before=benchmark::State::FinishKeepRunning()");
    EXPECT_EQ(part.totals.at("Ir"), 100u);
    EXPECT_EQ(part.totals.at("D1mr"), 5u);
    EXPECT_EQ(part.totals.at("DLmr"), 2u);
    EXPECT_EQ(part.totals.at("DLmw"), 0u) << "left out at the end of the line";
    // L1 hits 150 − 8 = 142, last-level hits 8 − 3 = 5, memory 3.
    EXPECT_DOUBLE_EQ(*estimated_cycles(part.totals), 142 + 5 * 5 + 35 * 3);
}

TEST(Callgrind, TotalsServeWithoutASummaryAndInstructionsAloneEstimateNothing) {
    const auto part = parse_callgrind("events: Ir\nfn=(1) main\n0 7\ntotals: 1200\n", "p");
    EXPECT_EQ(part.part, 0);
    EXPECT_EQ(part.trigger, "");
    EXPECT_EQ(part.totals.at("Ir"), 1200u);
    EXPECT_EQ(estimated_cycles(part.totals), std::nullopt);
}

TEST(Callgrind, AProfileItCannotReadGetsOneLineNamingTheFile) {
    const auto message = [](std::string_view text) {
        try {
            parse_callgrind(text, "callgrind.out.7");
        } catch (const InputError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("summary: 12\n"),
              "callgrind.out.7: no 'events:' line; is this callgrind's output "
              "(callgrind.out.<pid>)?");
    EXPECT_EQ(message("events: Ir\nfn=(1) main\n0 7\n"),
              "callgrind.out.7: no 'summary:' or 'totals:' line; the profile was cut short");
    EXPECT_EQ(message("events: Ir Dr\nsummary: 12 -3\n"),
              "callgrind.out.7:2: the count of Dr is '-3', not a whole number");
    EXPECT_EQ(message("events: Ir\nsummary: 12 4\n"),
              "callgrind.out.7:2: 2 counts for 1 events (Ir)");
    EXPECT_EQ(message("part: two\nevents: Ir\nsummary: 1\n"),
              "callgrind.out.7:1: 'part:' expects a whole number, got 'two'");
}

TEST(GoogleBenchmarkRows, AreTheIterationRowsInTheOrderTheyRan) {
    const auto rows = google_benchmark_rows(
        R"({"context": {"library_build_type": "release"}, "benchmarks": [
          {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "iterations": 3,
           "threads": 1},
          {"name": "BM_a_mean", "run_name": "BM_a", "run_type": "aggregate", "iterations": 2},
          {"name": "BM_b/threads:2", "run_type": "iteration", "iterations": 8, "threads": 2},
          {"name": "BM_c", "run_type": "iteration", "iterations": 0, "error_occurred": true}
        ]})",
        "out.json");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].benchmark, "BM_a");
    EXPECT_EQ(rows[0].iterations, 3);
    EXPECT_EQ(rows[1].benchmark, "BM_b/threads:2");
    EXPECT_EQ(rows[1].threads, 2);
    EXPECT_TRUE(rows[2].left_out);
    EXPECT_THROW(google_benchmark_rows("hello", "out.txt"), InputError);
}

}  // namespace
}  // namespace benchwatch::ingest
