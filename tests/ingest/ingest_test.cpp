// What could break: choosing the reader by content, and every bad input failing with one line
// that names the file (and line:column where known) instead of crashing or guessing.
#include "ingest/ingest.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA);

std::string parse_file_error(const std::filesystem::path& path, std::string_view format = "auto") {
    try {
        parse_file(path, format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// A file in a fresh temporary directory, removed with it.
class TemporaryFile {
  public:
    explicit TemporaryFile(const std::string& content)
        : directory_(std::filesystem::temp_directory_path() /
                     ("benchwatch-ingest-" +
                      std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
        std::filesystem::create_directories(directory_);
        std::ofstream(path()) << content;
    }
    ~TemporaryFile() { std::filesystem::remove_all(directory_); }
    std::filesystem::path path() const { return directory_ / "results.json"; }

  private:
    std::filesystem::path directory_;
};

const std::string all_format_names =
    "benchmarktools, googlebenchmark, hyperfine, pytest-benchmark, criterion, cargo-criterion, "
    "go, go-json, libtest, catch2, nanobench, jmh, benchmarkdotnet, nvbench, "
    "github-action-benchmark, "
    "bencher";

TEST(Ingest, FormatNamesInDetectionOrder) {
    EXPECT_EQ(format_names(),
              (std::vector<std::string>{
                  "benchmarktools", "googlebenchmark", "hyperfine", "pytest-benchmark", "criterion",
                  "cargo-criterion", "go", "go-json", "libtest", "catch2", "nanobench", "jmh",
                  "benchmarkdotnet", "nvbench", "github-action-benchmark", "bencher"}));
}

TEST(Ingest, DetectsEachFormatByContent) {
    EXPECT_EQ(parse_file(data_dir / "benchmarktools/estimates.json", "auto").format,
              "benchmarktools");
    EXPECT_EQ(parse_file(data_dir / "googlebenchmark/with_error.json", "auto").format,
              "googlebenchmark");
    EXPECT_EQ(parse_file(data_dir / "hyperfine/two_commands.json", "auto").format, "hyperfine");
}

TEST(Ingest, FileTwoReadersClaimIsAmbiguous) {
    const std::string both =
        R"({"benchmarks":[{"name":"a","real_time":1}],"results":[{"command":"sleep 1","times":[1.0]}]})";
    EXPECT_EQ(parse_error(both),
              "results.json: ambiguous results format (looked like googlebenchmark and hyperfine "
              "alike); pass --input-format googlebenchmark or --input-format hyperfine");
    // 1.0 s
    EXPECT_EQ(parse(both, "results.json", "hyperfine").results.at(0).value, 1e9);
}

TEST(Ingest, VersionsNamingBenchmarkToolsAreEnoughToDetect) {
    // A first element naming BenchmarkTools decides, even before the values array is seen.
    EXPECT_EQ(parse_error(R"([{"BenchmarkTools":"1.4.0"},{"not":"an array"}])"),
              "results.json:1:29: expected an array for the saved values, got an object");
}

TEST(Ingest, ExplicitFormatSkipsDetection) {
    const auto parsed =
        parse(R"({"benchmarks":[{"name":"a","real_time":1}]})", "r.json", "googlebenchmark");
    EXPECT_EQ(parsed.results.at(0).benchmark, "a");
}

TEST(Ingest, ExplicitFormatThatDoesNotFitIsAnError) {
    EXPECT_EQ(parse_error(R"({"benchmarks":[]})", "benchmarktools"),
              "results.json: expected a JSON array [versions, values], as BenchmarkTools.save "
              "writes");
    EXPECT_EQ(parse_error(R"([{},[]])", "googlebenchmark"),
              "results.json: expected a JSON object with a \"benchmarks\" array");
}

TEST(Ingest, UnknownFormatNameIsAnError) {
    EXPECT_EQ(parse_error(R"({"benchmarks":[]})", "divan"),
              "results.json: unknown format 'divan'; expected auto or one of: " + all_format_names);
}

TEST(Ingest, ObjectWithoutBenchmarksIsAnUnknownFormat) {
    EXPECT_EQ(parse_error(R"({"results":[{"name":"a"}]})"),
              "results.json: unknown results format (looked like: a JSON object without a "
              "\"benchmarks\" array); pass --input-format with one of: " +
                  all_format_names);
}

TEST(Ingest, OtherArrayIsAnUnknownFormat) {
    EXPECT_EQ(parse_error("[1, 2, 3]"),
              "results.json: unknown results format (looked like: a JSON array that is not a "
              "versions object followed by an array of saved values); pass --input-format with one "
              "of: " +
                  all_format_names);
}

TEST(Ingest, ScalarIsAnUnknownFormat) {
    EXPECT_EQ(parse_error(R"("fast")"),
              "results.json: unknown results format (looked like: a string rather than an "
              "object or array); pass --input-format with one of: " +
                  all_format_names);
}

TEST(Ingest, EmptyContentIsAnError) {
    EXPECT_EQ(parse_error(""), "results.json: empty file; expected benchmark results");
    EXPECT_EQ(parse_error(" \n\t\n"), "results.json: empty file; expected benchmark results");
}

TEST(Ingest, EmptyFileIsAnError) {
    const TemporaryFile file("");
    EXPECT_EQ(parse_file_error(file.path()),
              file.path().string() + ": empty file; expected benchmark results");
}

TEST(Ingest, MissingFileCannotBeRead) {
    const auto path = data_dir / "no-such-dir" / "results.json";
    EXPECT_EQ(parse_file_error(path), path.string() + ": cannot read: No such file or directory");
}

TEST(Ingest, FolderIsReadOnlyByAFolderFormat) {
    EXPECT_EQ(parse_file_error(data_dir, "hyperfine"),
              data_dir.string() +
                  ": is a folder; only criterion reads a folder, any other format needs the "
                  "results file");
}

TEST(Ingest, TruncatedJsonPointsAtTheEnd) {
    // The last line has 44 characters; the file ends at column 45.
    const std::string content =
        "{\"context\": {},\n \"benchmarks\": [{\"name\": \"a\", \"real_time\": 1";
    EXPECT_EQ(parse_error(content),
              "results.json:2:45: truncated JSON: the file ends inside an object or array");
}

TEST(Ingest, TruncatedFileReadFromDisk) {
    const std::string whole = R"({"benchmarks":[{"name":"a","real_time":1}]})";
    const TemporaryFile file(whole.substr(0, 30));  // {"benchmarks":[{"name":"a","re
    EXPECT_EQ(parse_file_error(file.path()),
              file.path().string() + ": truncated JSON: a string is never closed");
}

TEST(Ingest, MissingCommaNamesLineAndColumn) {
    const std::string content =
        "{\n"
        "  \"benchmarks\": [\n"
        "    {\"name\": \"a\" \"real_time\": 1}\n"
        "  ]\n"
        "}\n";
    // line 3: 4 spaces, {"name": "a" then a space; "real_time" starts at column 18
    EXPECT_EQ(parse_error(content),
              "results.json:3:18: malformed JSON: a missing or extra comma, colon, brace, "
              "bracket or key");
}

TEST(Ingest, WrongTypeNamesLineAndColumn) {
    // {"benchmarks":[{"name":"a","real_time":"fast"}]}: "fast" starts at column 40
    EXPECT_EQ(parse_error(R"({"benchmarks":[{"name":"a","real_time":"fast"}]})"),
              "results.json:1:40: expected a number for \"real_time\", got a string");
}

TEST(Ingest, TrailingContentIsAnError) {
    EXPECT_EQ(parse_error(R"({"benchmarks":[{"name":"a","real_time":1}]} {})"),
              "results.json:1:45: unexpected content after the JSON document");
}

TEST(Ingest, InvalidUtf8IsAnError) {
    EXPECT_EQ(parse_error("{\"benchmarks\":[{\"name\":\"\xff\",\"real_time\":1}]}"),
              "results.json:1: invalid UTF-8 (byte 0xFF at offset 24); results files must be "
              "UTF-8 text");
}

TEST(Ingest, TextOfNoHarnessIsAnUnknownFormat) {
    EXPECT_EQ(parse_error("hello\nworld\n"),
              "results.json: unknown results format (looked like: text that is neither JSON nor "
              "the output of a harness benchwatch reads); pass --input-format with one of: " +
                  all_format_names);
}

TEST(Ingest, TextFormatWithEveryResultLeftOutSaysWhy) {
    // libtest leaves a 0 ns/iter out with a warning "results.txt:1: …"; the message quotes the
    // warning without its place.
    const std::string message = parse_error("test tiny ... bench:           0 ns/iter (+/- 0)\n");
    EXPECT_TRUE(
        message.starts_with("results.json: no benchmark results; all were left out, e.g. "
                            "benchmark 'tiny'"))
        << message;
}

TEST(Ingest, DeepNestingIsAnErrorNotACrash) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_EQ(parse_error(deep),
              "results.json: unknown results format (looked like: a JSON array that is not a "
              "versions object followed by an array of saved values); pass --input-format with one "
              "of: " +
                  all_format_names);
    EXPECT_EQ(parse_error(deep, "benchmarktools"),
              "results.json:1:2: expected an object for the versions, got an array");
}

}  // namespace
}  // namespace benchwatch::ingest
