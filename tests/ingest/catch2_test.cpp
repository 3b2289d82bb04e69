// What could break: reading Catch2's XML reporter — v2's <Catch><Group> and v3's <Catch2TestRun>,
// names joined from test case, sections and benchmark, the mean as the value with Catch2's sample
// count and standard deviation, failures as warnings, XML errors with their line, and a DOCTYPE
// refused. Expected values are read by hand from the committed report in tests/data/catch2/.
#include "ingest/catch2.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "claim_probe.hpp"
#include "ingest/ingest.hpp"
#include "ingest/readers.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA) / "catch2";

std::string read_fixture(const std::string& name) {
    std::ifstream file(data_dir / name, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
}

std::string parse_error(const std::string& content, std::string_view format = "catch2") {
    try {
        parse(content, "report.xml", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// One benchmark in Catch2 v2's layout, with `inner` inside its <BenchmarkResults>.
std::string v2_report(const std::string& inner, const std::string& samples = "20") {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Catch name=\"t\">\n"
           "  <Group name=\"t\">\n    <TestCase name=\"Case\">\n"
           "      <BenchmarkResults name=\"b\" samples=\"" +
           samples + "\">\n" + inner +
           "      </BenchmarkResults>\n      <OverallResult success=\"true\"/>\n"
           "    </TestCase>\n  </Group>\n</Catch>\n";
}

TEST(Catch2, Version2ReportGivesTheMeanOfEachBenchmark) {
    const auto parsed = parse(read_fixture("catch2_v2.xml"), "catch2_v2.xml", "auto");
    EXPECT_EQ(parsed.format, "catch2");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 3u);

    const auto& fib10 = parsed.results[0];
    EXPECT_EQ(fib10.benchmark, "Fibonacci/fib 10");
    EXPECT_EQ(fib10.metric, "time");
    EXPECT_EQ(fib10.unit, "ns");
    EXPECT_EQ(fib10.direction, model::Direction::SmallerIsBetter);
    // <mean value="82.8298"/>, <standardDeviation value="19.3839"/>, samples="20"; no median in
    // the report, so the mean stands in for it
    EXPECT_EQ(fib10.value, 82.8298);
    ASSERT_TRUE(fib10.samples.has_value());
    EXPECT_EQ(*fib10.samples, (model::SampleSummary{20, 82.8298, 82.8298, 19.3839, {}}));

    const auto& fib15 = parsed.results[1];
    EXPECT_EQ(fib15.benchmark, "Fibonacci/fib 15");
    EXPECT_EQ(fib15.value, 4088.81);
    EXPECT_EQ(fib15.samples->stddev, 13792.8);

    // The benchmark inside SECTION("sorting") of TEST_CASE("Vector").
    const auto& sort = parsed.results[2];
    EXPECT_EQ(sort.benchmark, "Vector/sorting/sort 1000");
    EXPECT_EQ(sort.value, 3877.28);
    EXPECT_EQ(*sort.samples, (model::SampleSummary{20, 3877.28, 3877.28, 985.026, {}}));
}

TEST(Catch2, Version3ReportHasNoGroup) {
    // Written from Catch2 v3's XmlReporter (catch_reporter_xml.cpp): <Catch2TestRun>, test cases
    // directly under it, the same <BenchmarkResults>.
    const std::string report = R"(<?xml version="1.0" encoding="UTF-8"?>
<Catch2TestRun name="bench" rng-seed="7" xml-format-version="3" catch2-version="3.4.0">
  <TestCase name="Hash" tags="[hash]" filename="hash.cpp" line="3">
    <BenchmarkResults name="crc32" samples="100" resamples="100000" iterations="2" clockResolution="19.8" estimatedDuration="2.1e+06">
      <!-- All values in nano seconds -->
      <mean value="1.5e+03" lowerBound="1400" upperBound="1600" ci="0.95"/>
      <standardDeviation value="25.5" lowerBound="20" upperBound="30" ci="0.95"/>
      <outliers variance="0.01" lowMild="0" lowSevere="0" highMild="1" highSevere="0"/>
    </BenchmarkResults>
    <OverallResult success="true" skips="0"/>
  </TestCase>
  <OverallResults successes="0" failures="0" expectedFailures="0" skips="0"/>
  <OverallResultsCases successes="1" failures="0" expectedFailures="0" skips="0"/>
</Catch2TestRun>
)";
    const auto parsed = parse(report, "report.xml", "auto");
    EXPECT_EQ(parsed.format, "catch2");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].benchmark, "Hash/crc32");
    EXPECT_EQ(parsed.results[0].value, 1500.0);  // 1.5e+03
    EXPECT_EQ(*parsed.results[0].samples, (model::SampleSummary{100, 1500, 1500, 25.5, {}}));
    EXPECT_EQ(parsed.context.at("catch2.version"), "3.4.0");
}

TEST(Catch2, RowsListEachBenchmarksSamplesAndIterationsInOrder) {
    // What the instrument matches its calls with: catch2_v2.xml's three benchmarks as read by hand.
    const auto rows = catch2_rows(read_fixture("catch2_v2.xml"), "catch2_v2.xml");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].samples, 20);
    EXPECT_EQ(rows[0].iterations, 619);
    EXPECT_EQ(rows[1].iterations, 66);
    EXPECT_EQ(rows[2].iterations, 11);
    EXPECT_FALSE(rows[2].failed);
    const auto failed = catch2_rows(v2_report("<failed message=\"boom\"/>\n"), "report.xml");
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].benchmark, "Case/b");
    EXPECT_TRUE(failed[0].failed);
}

TEST(Catch2, FailuresAreWarnings) {
    // benchmarkFailed writes <failed message/> and closes the benchmark; a failed assertion
    // makes <OverallResult success="false"/>.
    const std::string report =
        "<Catch2TestRun>\n<TestCase name=\"T\">\n"
        "<BenchmarkResults name=\"throws\">\n"
        "<failed message=\"bad_alloc\"/>\n</BenchmarkResults>\n"
        "<BenchmarkResults name=\"ok\" samples=\"3\"><mean value=\"5\"/>"
        "<standardDeviation value=\"1\"/></BenchmarkResults>\n"
        "<OverallResult success=\"false\"/>\n</TestCase>\n</Catch2TestRun>\n";
    const auto parsed = parse(report, "report.xml", "auto");
    ASSERT_EQ(parsed.warnings.size(), 2u);
    EXPECT_EQ(parsed.warnings[0], "report.xml:4: benchmark 'T/throws' failed: bad_alloc; left out");
    EXPECT_EQ(parsed.warnings[1], "report.xml:7: test case 'T' failed; its benchmarks are kept");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].benchmark, "T/ok");
}

TEST(Catch2, BadReportsAreOneLineErrors) {
    EXPECT_EQ(parse_error("<?xml version=\"1.0\"?>\n<Catch>\n  <TestCase name=\"a\">\n</Catch>\n"),
              "report.xml:4: XML error: Start-end tags mismatch");
    EXPECT_EQ(parse_error(v2_report("<mean value=\"fast\"/><standardDeviation value=\"1\"/>\n")),
              "report.xml:6: benchmark 'Case/b': expected a number in <mean value>, got 'fast'");
    EXPECT_EQ(parse_error(v2_report("<mean value=\"3\"/>\n")),
              "report.xml:5: benchmark 'Case/b': expected a <standardDeviation> element");
    EXPECT_EQ(parse_error(v2_report("<mean value=\"-3\"/><standardDeviation value=\"1\"/>\n")),
              "report.xml:6: benchmark 'Case/b': time must be a positive number, got -3");
    EXPECT_EQ(
        parse_error(v2_report("<mean value=\"3\"/><standardDeviation value=\"1\"/>\n", "many")),
        "report.xml:5: benchmark 'Case/b': expected a positive sample count in \"samples\", got "
        "'many'");
    EXPECT_EQ(parse_error("<Catch2TestRun><TestCase name=\"T\"><BenchmarkResults name=\"b\" "
                          "samples=\"1\"><mean value=\"1\"/><standardDeviation value=\"0\"/>"
                          "</BenchmarkResults>\n<BenchmarkResults name=\"b\"/></TestCase>"
                          "</Catch2TestRun>",
                          "auto"),
              "report.xml:2: benchmark 'T/b' appears twice");
    EXPECT_EQ(parse_error("<testsuites/>"),
              "report.xml:1: expected Catch2's <Catch> or <Catch2TestRun> as the root element, "
              "got <testsuites>");
}

TEST(Catch2, DoctypeIsRefusedSoEntitiesAreNeverExpanded) {
    // A billion-laughs document: pugixml would not expand &lol3; anyway (it knows only the five
    // predefined entities and character references), and the reader refuses any DOCTYPE.
    const std::string laughs =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE Catch [\n"
        "  <!ENTITY lol \"lol\">\n"
        "  <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
        "  <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
        "]>\n<Catch><TestCase name=\"&lol3;\"/></Catch>\n";
    EXPECT_EQ(parse_error(laughs),
              "report.xml:2: a DOCTYPE is not part of Catch2's XML; refusing it rather than "
              "reading its entity declarations");
    // Not detected either: the document does not open with <Catch.
    EXPECT_FALSE(detail::catch2_reader.detect({laughs}).matches);
}

TEST(Catch2, DetectionNeedsACatchRootElement) {
    EXPECT_TRUE(detail::catch2_reader.detect({"\n  <Catch name=\"x\">"}).matches);
    EXPECT_TRUE(detail::catch2_reader.detect({"<?xml version=\"1.0\"?>\n<Catch2TestRun>"}).matches);
    EXPECT_FALSE(detail::catch2_reader.detect({"<CatchAll>"}).matches);
    EXPECT_FALSE(detail::catch2_reader.detect({"<testsuites><Catch/></testsuites>"}).matches);
}

TEST(Catch2, EveryFixtureIsDetectedAndNoOtherIsClaimed) {
    EXPECT_EQ(parse_file(data_dir / "catch2_v2.xml", "auto").format, "catch2");
    for (const auto& path :
         test::other_fixtures(std::filesystem::path(BENCHWATCH_TEST_DATA), "catch2"))
        EXPECT_FALSE(test::claims(detail::catch2_reader, path)) << path;
}

}  // namespace
}  // namespace benchwatch::ingest
