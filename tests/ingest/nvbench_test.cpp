// What could break: reading nvbench --json — string-encoded seconds turned into ns, GPU, CPU and
// batch times as three metrics, axis values in the name, skipped states as warnings, the GPU name
// in the context, and detection that leaves other "benchmarks" arrays alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "claim_probe.hpp"
#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

namespace fs = std::filesystem;

const fs::path data_dir = fs::path(BENCHWATCH_TEST_DATA) / "nvbench";

// Seconds written as decimal text become ns; a thousandth of a ns absorbs the rounding.
constexpr double tolerance = 1e-3;

std::string parse_error(const std::string& content, std::string_view format = "auto") {
    try {
        parse(content, "nvbench.json", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// A document with one benchmark of one state holding `summaries`.
std::string one_state(std::string_view summaries, std::string_view extra = "") {
    return std::string(
               R"({"benchmarks":[{"name":"k","devices":[0],"states":[{"name":"Device=0",)") +
           std::string(extra) + R"("axis_values":null,"summaries":)" + std::string(summaries) +
           R"(,"is_skipped":false}]}]})";
}

TEST(Nvbench, GpuCpuAndBatchTimesAreThreeMetricsInNanoseconds) {
    const auto parsed = parse_file(data_dir / "results.json", "auto");
    EXPECT_EQ(parsed.format, "nvbench");
    ASSERT_EQ(parsed.results.size(), 4u);

    const auto& gpu = parsed.results[0];
    EXPECT_EQ(gpu.benchmark, "copy/T=F32/Elements=1048576");
    EXPECT_EQ(gpu.metric, "time");
    EXPECT_EQ(gpu.unit, "ns");
    EXPECT_EQ(gpu.direction, model::Direction::SmallerIsBetter);
    EXPECT_NEAR(gpu.value, 12000, tolerance);  // nv/cold/time/gpu/min "1.2e-05" s
    ASSERT_TRUE(gpu.samples.has_value());
    EXPECT_EQ(gpu.samples->count, 1000);                 // nv/cold/sample_size
    EXPECT_NEAR(gpu.samples->mean, 12500, tolerance);    // gpu/mean "1.25e-05" s
    EXPECT_NEAR(gpu.samples->median, 12500, tolerance);  // no median reported: the mean
    EXPECT_NEAR(gpu.samples->stddev, 250, tolerance);    // relative 0.02 × 12500 ns

    const auto& cpu = parsed.results[1];
    EXPECT_EQ(cpu.benchmark, "copy/T=F32/Elements=1048576");
    EXPECT_EQ(cpu.metric, "cpu_time");
    EXPECT_EQ(cpu.unit, "ns");
    EXPECT_NEAR(cpu.value, 18000, tolerance);          // cpu/min "1.8e-05" s
    EXPECT_NEAR(cpu.samples->stddev, 950, tolerance);  // 0.05 × 19000 ns

    const auto& batch = parsed.results[2];
    EXPECT_EQ(batch.metric, "batch_time");
    EXPECT_NEAR(batch.value, 11800, tolerance);  // batch/time/gpu/mean "1.18e-05" s
    EXPECT_EQ(batch.samples->count, 20000);      // nv/batch/sample_size

    const auto& reduce = parsed.results[3];
    EXPECT_EQ(reduce.benchmark, "reduce");         // axis_values null: the benchmark's name alone
    EXPECT_NEAR(reduce.value, 500000, tolerance);  // no min: the mean, 0.0005 s
    EXPECT_EQ(reduce.samples->count, 42);
}

TEST(Nvbench, SkippedStatesAreWarningsAndTheGpuIsContext) {
    const auto parsed = parse_file(data_dir / "results.json", "nvbench");
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(parsed.warnings[0],
              (data_dir / "results.json").string() +
                  ": benchmark 'copy/T=F64/Elements=1048576' was skipped and left out: Not enough "
                  "device memory.");
    EXPECT_EQ(parsed.context.at("nvbench.gpu"), "NVIDIA A100-SXM4-40GB");
}

TEST(Nvbench, NumbersMayBeWrittenAsNumbersAndDevicesNameTheStateWhenSeveral) {
    const auto parsed = parse(
        R"({"benchmarks":[{"name":"k","devices":[0,1],"states":[)"
        R"({"device":0,"axis_values":[{"name":"N","type":"int64","value":"8"}],"summaries":[)"
        R"({"tag":"nv/cold/time/gpu/mean","data":[{"name":"value","type":"float64","value":2e-6}]}]},)"
        R"({"device":1,"axis_values":[{"name":"N","type":"int64","value":"8"}],"summaries":[)"
        R"({"tag":"nv/cold/time/gpu/mean","data":[{"name":"value","type":"float64","value":"3e-6"}]}]}]}]})",
        "nvbench.json", "auto");
    ASSERT_EQ(parsed.results.size(), 2u);
    EXPECT_EQ(parsed.results[0].benchmark, "k/Device=0/N=8");
    EXPECT_NEAR(parsed.results[0].value, 2000, tolerance);
    EXPECT_EQ(parsed.results[1].benchmark, "k/Device=1/N=8");
    EXPECT_NEAR(parsed.results[1].value, 3000, tolerance);
}

TEST(Nvbench, BadInputIsAOneLineError) {
    EXPECT_EQ(parse_error(one_state(
                  R"([{"tag":"nv/cold/time/gpu/mean","data":[{"name":"value","value":"fast"}]}])")),
              "nvbench.json: summary 'nv/cold/time/gpu/mean': expected a number, got 'fast'");
    EXPECT_EQ(
        parse_error(one_state(
            R"([{"tag":"nv/cold/time/gpu/mean","data":[{"name":"value","value":"-1e-6"}]}])")),
        "nvbench.json: benchmark 'k': time must be a positive number, got -1000");
    EXPECT_EQ(parse_error(one_state(R"([{"tag":"nv/cold/walltime","data":[]}])")),
              "nvbench.json: no benchmark results; all were left out, e.g. benchmark 'k' has no "
              "GPU, CPU or batch time and was left out");
    EXPECT_EQ(parse_error(R"({"benchmarks":[{"states":[]}]})"),
              "nvbench.json:1:16: expected a benchmark's \"name\" before its \"states\"");
    EXPECT_EQ(parse_error(
                  R"({"benchmarks":[{"name":"k","states":[{"summaries":[]},{"summaries":[]}]}]})"),
              "nvbench.json:1:55: benchmark 'k' appears twice");
    EXPECT_EQ(parse_error(R"({"devices":[]})", "nvbench"),
              "nvbench.json: expected a JSON object with a \"benchmarks\" array");
}

TEST(Nvbench, DetectsItsFixtureAndNoOtherBenchmarksArray) {
    EXPECT_TRUE(test::claims(detail::nvbench_reader, data_dir / "results.json"));
    for (const auto& file : test::other_fixtures(BENCHWATCH_TEST_DATA, "nvbench"))
        EXPECT_FALSE(test::claims(detail::nvbench_reader, file)) << file;
}

}  // namespace
}  // namespace benchwatch::ingest
