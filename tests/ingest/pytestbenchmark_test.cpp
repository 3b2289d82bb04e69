// What could break: reading pytest-benchmark JSON — seconds turned into ns, the fastest round as
// the value, samples from per-round "data" when saved and from "stats" otherwise, node ids as
// names, and only the machine's identifying keys kept as context.
// Expected values are read by hand from the committed output in tests/data/pytest-benchmark/.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(BENCHWATCH_TEST_DATA) / "pytest-benchmark";

// Seconds become ns by one multiplication; a thousandth of a ns absorbs its rounding.
constexpr double ns_tolerance = 1e-3;

TEST(PytestBenchmark, PerRoundDataGivesTheFastestRoundAndItsSummary) {
    const auto parsed = parse_file(data_dir / "with_data.json", "auto");
    EXPECT_EQ(parsed.format, "pytest-benchmark");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 4u);
    EXPECT_EQ(parsed.results[0].benchmark, "bench_example.py::test_sum_range");
    EXPECT_EQ(parsed.results[1].benchmark, "bench_example.py::test_sorted_list");
    EXPECT_EQ(parsed.results[2].benchmark, "bench_example.py::test_join_words[10]");
    EXPECT_EQ(parsed.results[3].benchmark, "bench_example.py::test_join_words[100]");

    const auto& sum = parsed.results[0];
    EXPECT_EQ(sum.metric, "time");
    EXPECT_EQ(sum.unit, "ns");
    EXPECT_EQ(sum.direction, model::Direction::SmallerIsBetter);
    // data 7.510006980737671e-07, 5.410001904238015e-07, 2.9660004656761885e-06,
    // 5.099991540191695e-07, 4.2099964048247784e-07 s → min 420.99964048247784 ns (= stats.min)
    EXPECT_NEAR(sum.value, 420.99964048247784, ns_tolerance);
    ASSERT_TRUE(sum.samples.has_value());
    EXPECT_EQ(sum.samples->count, 5);
    // sorted, the third is 5.410001904238015e-07 s; stats "median", "mean" and "stddev" (n−1)
    // agree: 541.0001904238015, 1037.8000297350809 and 1084.6701506371893 ns
    EXPECT_NEAR(sum.samples->median, 541.0001904238015, ns_tolerance);
    EXPECT_NEAR(sum.samples->mean, 1037.8000297350809, ns_tolerance);
    EXPECT_NEAR(sum.samples->stddev, 1084.6701506371893, ns_tolerance);

    // each round's time is already per iteration (100 iterations a round here):
    // min 8.386999979848042e-08 s, median 8.426000931649469e-08 s
    const auto& join_ten = parsed.results[2];
    EXPECT_NEAR(join_ten.value, 83.86999979848042, ns_tolerance);
    EXPECT_EQ(join_ten.samples->count, 5);
    EXPECT_NEAR(join_ten.samples->median, 84.26000931649469, ns_tolerance);
    // min of the five rounds of test_join_words[100]: 6.211001164047048e-07 s
    EXPECT_NEAR(parsed.results[3].value, 621.1001164047048, ns_tolerance);
}

TEST(PytestBenchmark, WithoutDataTheStatsAreTheSamples) {
    const auto parsed = parse_file(data_dir / "without_data.json", "auto");
    EXPECT_EQ(parsed.format, "pytest-benchmark");
    ASSERT_EQ(parsed.results.size(), 4u);
    const auto& sorted = parsed.results[1];
    EXPECT_EQ(sorted.benchmark, "bench_example.py::test_sorted_list");
    // stats: min 2.3952374509203113e-07, rounds 5, median 2.486190385839325e-07,
    // mean 2.482856957829513e-07, stddev 5.661582684492479e-09 s
    EXPECT_NEAR(sorted.value, 239.52374509203113, ns_tolerance);
    ASSERT_TRUE(sorted.samples.has_value());
    EXPECT_EQ(sorted.samples->count, 5);
    EXPECT_NEAR(sorted.samples->median, 248.6190385839325, ns_tolerance);
    EXPECT_NEAR(sorted.samples->mean, 248.2856957829513, ns_tolerance);
    EXPECT_NEAR(sorted.samples->stddev, 5.661582684492479, ns_tolerance);
    // test_join_words[10]: min 7.945000106701627e-08 s
    EXPECT_NEAR(parsed.results[2].value, 79.45000106701627, ns_tolerance);
}

TEST(PytestBenchmark, ContextKeepsVersionsAndTheCpuButNotTheHostOrBuildDate) {
    const auto parsed = parse_file(data_dir / "with_data.json", "auto");
    EXPECT_EQ(parsed.context, (model::Environment{
                                  {"pytest.benchmark_version", "3.2.2"},
                                  {"pytest.cpu.brand", "AMD EPYC"},
                                  {"pytest.cpu.vendor_id", "AuthenticAMD"},
                                  {"pytest.machine", "x86_64"},
                                  {"pytest.python_compiler", "GCC 12.2.0"},
                                  {"pytest.python_implementation", "CPython"},
                                  {"pytest.python_implementation_version", "3.11.2"},
                                  {"pytest.python_version", "3.11.2"},
                                  {"pytest.release", "6.18.44-fc-v782"},
                                  {"pytest.system", "Linux"},
                                  {"statistic", "minimum"},
                              }));
}

// The smallest file the reader accepts, with one benchmark's fields replaced by `benchmark`.
std::string file_with(const std::string& benchmark) {
    return R"({"machine_info":{},"benchmarks":[)" + benchmark + "]}";
}

TEST(PytestBenchmark, BadInputIsAOneLineError) {
    const std::string stats =
        R"("stats":{"min":1e-6,"rounds":1,"median":1e-6,"mean":1e-6,"stddev":0})";
    EXPECT_EQ(parse(file_with(R"({"fullname":"t.py::a",)" + stats + "}"), "results.json", "auto")
                  .results.at(0)
                  .value,
              1000.0);  // 1e-6 s
    EXPECT_EQ(parse_error(file_with(R"({"fullname":"t.py::a",)" + stats +
                                    R"(},{"fullname":"t.py::a",)" + stats + "}")),
              "results.json: benchmark 't.py::a' appears twice; pytest node ids are unique within "
              "one session, so give each session's results their own file");
    EXPECT_EQ(parse_error(file_with(R"({"name":"a",)" + stats + "}"), "pytest-benchmark"),
              "results.json:1:34: expected a \"fullname\" in each element of \"benchmarks\"");
    EXPECT_EQ(parse_error(file_with(R"({"fullname":"t.py::a","stats":{"min":1e-6}})"),
                          "pytest-benchmark"),
              "results.json:1:34: benchmark 't.py::a': expected \"min\", \"rounds\", \"median\", "
              "\"mean\" and \"stddev\" in \"stats\"");
    EXPECT_EQ(parse_error(file_with(R"({"fullname":"t.py::a","stats":{"data":[1e-6,-2e-6]}})")),
              "results.json: benchmark 't.py::a': time must be a positive number, got -2000");
    EXPECT_EQ(parse_error(file_with(R"({"fullname":"t.py::a","stats":{"min":"fast"}})")),
              "results.json:1:71: expected a number for \"min\", got a string");
    EXPECT_EQ(parse_error(R"({"machine_info":{},"benchmarks":{}})", "pytest-benchmark"),
              "results.json:1:33: expected an array for \"benchmarks\", got an object");
    EXPECT_EQ(parse_error(R"({"machine_info":{}})", "pytest-benchmark"),
              "results.json: expected a JSON object with a \"benchmarks\" array");
}

}  // namespace
}  // namespace benchwatch::ingest
