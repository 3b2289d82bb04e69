// What could break: a hostile or mistaken results file — too large, not UTF-8, with absurd or
// control-character names, nested 10,000 deep, or with values a reader's conversion made
// infinite — crashing, hanging, filling memory or storing what cannot be read back instead of
// being refused with one clear line, for every format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "ingest/ingest.hpp"
#include "ingest/readers.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

// A Google Benchmark file with one iteration row whose "name" is `name` (JSON string content).
std::string gbench_named(const std::string& name) {
    return R"({"context":{"library_build_type":"release"},"benchmarks":[{"name":")" + name +
           R"(","run_type":"iteration","real_time":3,"time_unit":"ns"}]})";
}

// `levels` nested JSON arrays, or objects each holding the next under "a".
std::string deep_array(int levels) {
    return std::string(levels, '[') + std::string(levels, ']');
}
std::string deep_object(int levels) {
    std::string text;
    for (int level = 0; level < levels; ++level) text += R"({"a":)";
    text += "1";
    return text + std::string(levels, '}');
}

class TemporaryFolder {
  public:
    TemporaryFolder() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "benchwatch-limits-XXXXXX").string();
        path_ = mkdtemp(pattern.data());
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
    ~TemporaryFolder() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

TEST(Limits, OneGibibyteFileIsRefusedFromItsSize) {
    const TemporaryFolder folder;
    const auto file = folder.path() / "results.json";
    std::ofstream(file).close();
    std::filesystem::resize_file(file, std::uintmax_t{1} << 30);  // sparse: nothing written
    try {
        parse_file(file, "auto");
        FAIL() << "a 1 GiB file was accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()),
                  file.string() +
                      ": file is 1.0 GiB; benchwatch reads results files up to 256 MiB, Google "
                      "Benchmark files up to 4 GiB; split the run into several files");
    }
}

TEST(Limits, AFileOverTheCapOfGoogleBenchmarkFilesIsRefusedFromItsSize) {
    // Google Benchmark files are read in batches, so they may be larger, but not without bound.
    const TemporaryFolder folder;
    const auto file = folder.path() / "results.json";
    std::ofstream(file) << R"({"context": {"library_build_type": "release"}, "benchmarks": [)";
    std::filesystem::resize_file(file, (std::uintmax_t{4} << 30) + 1);  // sparse
    try {
        parse_file(file, "auto");
        FAIL() << "a file over 4 GiB was accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()),
                  file.string() +
                      ": file is 4.0 GiB; benchwatch reads results files up to 256 MiB, Google "
                      "Benchmark files up to 4 GiB; split the run into several files");
    }
}

TEST(Limits, TextOverTheCapIsRefusedBeforeParsing) {
    // 256 MiB + 1 byte of spaces: refused for its size before the blank-file check could run.
    const std::string content((std::size_t{256} << 20) + 1, ' ');
    EXPECT_EQ(parse_error(content),
              "results.json: file is 256.0 MiB; benchwatch reads results files up to 256 MiB, "
              "Google Benchmark files up to 4 GiB; split the run into several files");
}

TEST(Limits, InvalidUtf8IsRefusedForEveryFormatWithItsLineAndOffset) {
    // "{\n" is bytes 0–1 and "\"name\": \"" bytes 2–10, so the lead byte 0xC3 (followed by '(',
    // not a continuation byte) is byte 11, on line 2.
    const std::string content = "{\n\"name\": \"\xC3(\"}\n";
    const std::string expected =
        "results.json:2: invalid UTF-8 (byte 0xC3 at offset 11); results files must be UTF-8 text";
    EXPECT_EQ(parse_error(content), expected);
    for (const std::string& format : format_names())
        EXPECT_EQ(parse_error(content, format), expected) << "--format " << format;
}

TEST(Limits, EachMalformedUtf8FormIsFoundAtItsFirstByte) {
    const auto expected = [](std::string_view byte, int offset) {
        return "results.json:1: invalid UTF-8 (byte 0x" + std::string(byte) + " at offset " +
               std::to_string(offset) + "); results files must be UTF-8 text";
    };
    EXPECT_EQ(parse_error("ab\xC0\xAF"
                          "cd"),
              expected("C0", 2));  // overlong '/'
    EXPECT_EQ(parse_error("ab\xE0\x80\xAF"
                          "cd"),
              expected("E0", 2));  // overlong, 3 bytes
    EXPECT_EQ(parse_error("ab\xED\xA0\x80"
                          "cd"),
              expected("ED", 2));  // surrogate U+D800
    EXPECT_EQ(parse_error("ab\xF4\x90\x80\x80"
                          "cd"),
              expected("F4", 2));  // above U+10FFFF
    EXPECT_EQ(parse_error("ab\x80"
                          "cd"),
              expected("80", 2));                             // continuation without a lead
    EXPECT_EQ(parse_error("ab\xE2\x82"), expected("E2", 2));  // cut off at the end
    // é (2 bytes), € (3) and 😀 (4) are valid: the 0xFF after them is byte 2 + 9 = 11.
    EXPECT_EQ(parse_error("ab\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF"), expected("FF", 11));
}

TEST(Limits, MegabyteNameInJsonIsRefusedShowingItsStartAndLength) {
    const std::string name(1 << 20, 'n');
    EXPECT_EQ(parse_error(gbench_named(name)),
              "results.json: benchmark name of 1048576 bytes is longer than the 4096 allowed: \"" +
                  std::string(60, 'n') + "…\"");
}

TEST(Limits, MegabyteNameInGoTestTextIsRefused) {
    const std::string name = "Benchmark" + std::string((1 << 20) - 9, 'N');
    EXPECT_EQ(parse_error(name + "   \t 1000\t        12.5 ns/op\nPASS\n", "go"),
              "results.json: benchmark name of 1048576 bytes is longer than the 4096 allowed: "
              "\"Benchmark" +
                  std::string(51, 'N') + "…\"");
}

TEST(Limits, NamesUpTo4096BytesAreKept) {
    const std::string longest(4096, 'n');
    EXPECT_EQ(parse(gbench_named(longest), "results.json", "auto").results.at(0).benchmark,
              longest);
    EXPECT_EQ(parse_error(gbench_named(longest + "n")),
              "results.json: benchmark name of 4097 bytes is longer than the 4096 allowed: \"" +
                  std::string(60, 'n') + "…\"");
}

TEST(Limits, RefusedNameIsCutAtWholeCharacters) {
    std::string name;
    for (int count = 0; count < 5000; ++count) name += "é";  // 2 bytes each: 10000 bytes
    std::string shown;
    for (int count = 0; count < 60; ++count) shown += "é";
    EXPECT_EQ(parse_error(gbench_named(name)),
              "results.json: benchmark name of 10000 bytes is longer than the 4096 allowed: \"" +
                  shown + "…\"");
}

TEST(Limits, ControlCharactersInNamesAreRefused) {
    const auto expected = [](std::string_view shown, std::string_view code_point) {
        return "results.json: benchmark name " + std::string(shown) +
               " holds control character U+" + std::string(code_point) +
               "; names must be printable on one line";
    };
    EXPECT_EQ(parse_error(gbench_named(R"(a\nb)")), expected(R"("a\nb")", "000A"));
    EXPECT_EQ(parse_error(gbench_named(R"(a\u0000b)")), expected(R"("a\x00b")", "0000"));
    EXPECT_EQ(parse_error(gbench_named(R"(\u001b[31mred)")), expected(R"("\x1b[31mred")", "001B"));
    EXPECT_EQ(parse_error(gbench_named(R"(a\u007f)")), expected(R"("a\x7f")", "007F"));
    EXPECT_EQ(parse_error(gbench_named(R"(a\u009b)")), expected(R"("a\x9b")", "009B"));
}

TEST(Limits, ValuesThatAreNotFiniteAreRefusedWhateverTheReader) {
    const auto refusal = [](const model::Result& result) -> std::string {
        try {
            detail::check_results(std::span(&result, 1), "results.json");
        } catch (const InputError& error) {
            return error.what();
        }
        return "no error";
    };
    model::Result rate;
    rate.benchmark = "copy";
    rate.metric = "throughput";
    rate.unit = "B/s";
    rate.value = 1e308;
    EXPECT_EQ(refusal(rate), "no error");
    rate.value *= 1e6;
    EXPECT_EQ(refusal(rate),
              "results.json: benchmark 'copy', metric 'throughput': the value in B/s is inf, not "
              "a finite number; results must hold finite values");
    rate.value = 1;
    rate.samples = model::SampleSummary{2, 1, std::numeric_limits<double>::quiet_NaN(), 0, {}};
    EXPECT_EQ(refusal(rate),
              "results.json: benchmark 'copy', metric 'throughput': the mean in B/s is nan, not a "
              "finite number; results must hold finite values");
    rate.samples.reset();
    rate.memory = -std::numeric_limits<double>::infinity();
    EXPECT_EQ(refusal(rate),
              "results.json: benchmark 'copy', metric 'throughput': the memory in bytes is -inf, "
              "not a finite number; results must hold finite values");
}

TEST(Limits, AMeanThatOverflowsIsRefusedAtInput) {
    // Each repetition is a finite number of ns; their median and mean are not.
    EXPECT_EQ(
        parse_error("BenchmarkX \t 1\t 1.7e308 ns/op\nBenchmarkX \t 1\t 1.7e308 ns/op\n", "go"),
        "results.json: benchmark 'BenchmarkX', metric 'time': the median in ns is inf, not a "
        "finite number; results must hold finite values");
}

TEST(Limits, TenThousandDeepJsonIsRefusedByEveryFormatWithOneLine) {
    for (const std::string& document : {deep_array(10000), deep_object(10000)}) {
        for (const std::string& format : format_names()) {
            const std::string message = parse_error(document, format);
            EXPECT_EQ(message.rfind("results.json", 0), 0u)
                << "--format " << format << ": " << message.substr(0, 200);
            EXPECT_EQ(message.find('\n'), std::string::npos) << "--format " << format;
        }
    }
}

// The readers walk only the levels they expect and simdjson skips the rest without recursion,
// so the depth itself needs no limit: each reader says what it expected at the top.
TEST(Limits, TenThousandDeepJsonGetsTheFinishedReadersMessages) {
    EXPECT_EQ(parse_error(deep_array(10000), "benchmarktools"),
              "results.json:1:2: expected an object for the versions, got an array");
    EXPECT_EQ(parse_error(deep_object(10000), "benchmarktools"),
              "results.json: expected a JSON array [versions, values], as BenchmarkTools.save "
              "writes");
    EXPECT_EQ(parse_error(deep_array(10000), "googlebenchmark"),
              "results.json: expected a JSON object with a \"benchmarks\" array");
    EXPECT_EQ(parse_error(deep_object(10000), "googlebenchmark"),
              "results.json: no benchmark results in the file");
    EXPECT_EQ(parse_error(deep_array(10000), "hyperfine"),
              "results.json:1:1: expected an object for the document, got an array");
    EXPECT_EQ(parse_error(deep_object(10000), "hyperfine"),
              "results.json: expected a JSON object with a \"results\" array");
    EXPECT_EQ(parse_error(deep_object(10000))
                  .rfind("results.json: unknown results format (looked like: a JSON object", 0),
              0u);
}

TEST(Limits, TenThousandDeepXmlIsRefusedByCatch2) {
    std::string document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    for (int level = 0; level < 10000; ++level) document += "<Group>";
    for (int level = 0; level < 10000; ++level) document += "</Group>";
    const std::string message = parse_error(document, "catch2");
    EXPECT_EQ(message.rfind("results.json", 0), 0u) << message.substr(0, 200);
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(Limits, FolderFormatGivenTextIsRefused) {
    EXPECT_EQ(
        parse_error(R"({"mean":{"point_estimate":1}})", "criterion"),
        "results.json: --input-format criterion reads a folder, not a file; pass the folder it "
        "wrote instead");
}

}  // namespace
}  // namespace benchwatch::ingest
