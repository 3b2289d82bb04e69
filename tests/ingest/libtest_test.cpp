// What could break: reading libtest's `--bench` text — thousands separators and the decimals of
// newer Rust, MB/s as a throughput, ignored and failed tests, a 0 ns/iter left out with a
// warning, and detection that claims only libtest's lines. Expected values are read by hand
// from the committed output in tests/data/libtest/.
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

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA) / "libtest";

std::string read_fixture(const std::string& name) {
    std::ifstream file(data_dir / name, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
}

std::string parse_error(const std::string& content, std::string_view format = "libtest") {
    try {
        parse(content, "bench.txt", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(Libtest, DebianRustcPrintsWholeNanoseconds) {
    const auto parsed =
        parse(read_fixture("debian_rustc_1_63.txt"), "debian_rustc_1_63.txt", "auto");
    EXPECT_EQ(parsed.format, "libtest");
    // add_two printed 0 ns/iter on line 4 (the output opens with an empty line): left out, named in
    // a warning.
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(parsed.warnings[0],
              "debian_rustc_1_63.txt:4: benchmark 'tests::add_two': 0 ns/iter, too fast for "
              "libtest to show; left out");
    // sort_ten_thousand's time and throughput, format_number's time; ignored tests give nothing.
    ASSERT_EQ(parsed.results.size(), 3u);

    const auto& sort = parsed.results[0];
    EXPECT_EQ(sort.benchmark, "tests::sort_ten_thousand");
    EXPECT_EQ(sort.metric, "time");
    EXPECT_EQ(sort.unit, "ns");
    EXPECT_EQ(sort.direction, model::Direction::SmallerIsBetter);
    // "117,116 ns/iter (+/- 19,908)": libtest's median; the range is not a standard deviation
    EXPECT_EQ(sort.value, 117116.0);
    EXPECT_FALSE(sort.samples.has_value());

    const auto& sort_throughput = parsed.results[1];
    EXPECT_EQ(sort_throughput.benchmark, "tests::sort_ten_thousand");
    EXPECT_EQ(sort_throughput.metric, "throughput");
    EXPECT_EQ(sort_throughput.unit, "B/s");
    EXPECT_EQ(sort_throughput.direction, model::Direction::BiggerIsBetter);
    // "= 683 MB/s" → 683e6 B/s (b.bytes 80,000 / 117,116 ns = 0.683 B/ns)
    EXPECT_EQ(sort_throughput.value, 683e6);

    EXPECT_EQ(parsed.results[2].benchmark, "tests::strings::format_number");
    EXPECT_EQ(parsed.results[2].value, 62.0);
}

TEST(Libtest, NewerRustPrintsDecimals) {
    const auto parsed = parse(read_fixture("rustc_1_95.txt"), "rustc_1_95.txt", "auto");
    EXPECT_EQ(parsed.format, "libtest");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 4u);
    EXPECT_EQ(parsed.results[0].benchmark, "tests::add_two");
    EXPECT_EQ(parsed.results[0].value, 0.89);  // "0.89 ns/iter (+/- 0.52)"
    EXPECT_EQ(parsed.results[1].benchmark, "tests::sort_ten_thousand");
    EXPECT_EQ(parsed.results[1].value, 88838.45);  // "88,838.45 ns/iter (+/- 520,033.38)"
    EXPECT_EQ(parsed.results[2].metric, "throughput");
    EXPECT_EQ(parsed.results[2].value, 900e6);  // "= 900 MB/s"
    EXPECT_EQ(parsed.results[3].benchmark, "tests::strings::format_number");
    EXPECT_EQ(parsed.results[3].value, 82.24);  // "82.24 ns/iter (+/- 23.07)"
}

TEST(Libtest, FailedBenchmarksAreWarnings) {
    const auto parsed =
        parse("running 2 tests\ntest a ... FAILED\ntest b ... bench:  1,000,000 ns/iter (+/- 3)\n",
              "bench.txt", "auto");
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(parsed.warnings[0], "bench.txt:2: benchmark 'a' failed");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].value, 1e6);  // "1,000,000"
}

TEST(Libtest, BadBenchLinesAreOneLineErrors) {
    EXPECT_EQ(parse_error("\ntest a ... bench: 12 ns/op (+/- 1)\n"),
              "bench.txt:2: benchmark 'a': expected '<number> ns/iter' after 'bench:'");
    EXPECT_EQ(parse_error("test a ... bench: fast ns/iter (+/- 1)\n"),
              "bench.txt:1: benchmark 'a': expected a number of ns/iter, got 'fast'");
    EXPECT_EQ(parse_error("test a ... bench: -5 ns/iter (+/- 1)\n"),
              "bench.txt:1: benchmark 'a': time must be a positive number, got -5");
    EXPECT_EQ(parse_error("test a ... bench: 5 ns/iter (+/- 1) = many MB/s\n"),
              "bench.txt:1: benchmark 'a': expected a number of MB/s, got 'many'");
    EXPECT_EQ(parse_error("test a ... bench: 5 ns/iter (+/- 1) = 3 GB/s\n"),
              "bench.txt:1: benchmark 'a': expected '= <number> MB/s' after the time");
    EXPECT_EQ(parse_error("test a ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 6 ns/iter "
                          "(+/- 1)\n",
                          "auto"),
              "bench.txt:2: benchmark 'a' appears twice");
    EXPECT_EQ(parse_error("test a ... ignored\n"), "bench.txt: no benchmark results in the file");
}

TEST(Libtest, DetectionNeedsABenchLineInNanosecondsPerIteration) {
    EXPECT_FALSE(detail::libtest_reader.detect({"test a ... ok\ntest b ... ignored\n"}).matches);
    EXPECT_FALSE(detail::libtest_reader.detect({"test a ... bench: 5 ns/op\n"}).matches);
    EXPECT_FALSE(detail::libtest_reader.detect({"BenchmarkA-8 10 5 ns/op\n"}).matches);
    EXPECT_TRUE(detail::libtest_reader.detect({"test a ... bench: 1,234 ns/iter (+/- 5)"}).matches);
}

TEST(Libtest, EveryFixtureIsDetectedAndNoOtherIsClaimed) {
    for (const char* name : {"debian_rustc_1_63.txt", "rustc_1_95.txt"})
        EXPECT_EQ(parse_file(data_dir / name, "auto").format, "libtest") << name;
    for (const auto& path :
         test::other_fixtures(std::filesystem::path(BENCHWATCH_TEST_DATA), "libtest"))
        EXPECT_FALSE(test::claims(detail::libtest_reader, path)) << path;
}

}  // namespace
}  // namespace benchwatch::ingest
