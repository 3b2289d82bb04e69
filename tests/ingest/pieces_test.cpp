// What could break: reading a large Google Benchmark file a batch of rows at a time. Whatever
// the batch size, and wherever a batch or a read ends (inside a string, an escape, a nested
// value), the results, warnings, context, hash and every error message must be those of reading
// the file whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/ingest.hpp"
#include "ingest/parse_error.hpp"
#include "ingest/readers.hpp"
#include "support/test_support.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(BENCHWATCH_TEST_DATA) / "googlebenchmark";

const std::vector<std::size_t> batch_sizes = {1, 2, 3, 7, 64, 1000, std::size_t{1} << 20};

std::string file_text(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::optional<ParsedResults> in_pieces(const std::string& content, std::size_t batch_bytes,
                                       std::string_view format = "auto",
                                       bool second_thread = true) {
    std::istringstream in(content);
    return detail::parse_in_pieces(in, content.size(), "results.json", format, batch_bytes,
                                   second_thread);
}

std::string pieces_error(const std::string& content, std::size_t batch_bytes,
                         std::string_view format = "auto", bool second_thread = true) {
    try {
        if (!in_pieces(content, batch_bytes, format, second_thread)) return "not read in pieces";
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

void expect_same_as_whole(const std::string& content, std::string_view format = "auto") {
    const ParsedResults whole = parse(content, "results.json", format);
    for (const std::size_t batch : batch_sizes) {
        for (const bool second_thread : {true, false}) {
            SCOPED_TRACE("batch of " + std::to_string(batch) + " bytes, " +
                         (second_thread ? "two threads" : "one thread"));
            const auto pieces = in_pieces(content, batch, format, second_thread);
            ASSERT_TRUE(pieces);
            EXPECT_EQ(pieces->format, whole.format);
            EXPECT_EQ(pieces->results, whole.results);
            EXPECT_EQ(pieces->context, whole.context);
            EXPECT_EQ(pieces->warnings, whole.warnings);
            EXPECT_EQ(pieces->content_hash, whole.content_hash);
        }
    }
}

void expect_same_error(const std::string& content, std::string_view format = "auto") {
    const std::string whole = parse_error(content, format);
    ASSERT_NE(whole, "no error");
    for (const std::size_t batch : batch_sizes) {
        for (const bool second_thread : {true, false}) {
            SCOPED_TRACE("batch of " + std::to_string(batch) + " bytes, " +
                         (second_thread ? "two threads" : "one thread"));
            EXPECT_EQ(pieces_error(content, batch, format, second_thread), whole);
        }
    }
}

const std::string context = R"({
  "context": {"executable": "./bench", "library_build_type": "release", "num_cpus": 2},
  "benchmarks": [
)";

std::string row(const std::string& name, double time, int repetition = 0) {
    return R"(    {"name": ")" + name + R"(", "run_name": ")" + name +
           R"(", "run_type": "iteration", "repetitions": 3, "repetition_index": )" +
           std::to_string(repetition) + R"(, "real_time": )" + std::to_string(time) +
           R"(, "time_unit": "ns"})";
}

TEST(GoogleBenchmarkInPieces, TheHarnessFilesReadAsWhole) {
    for (const char* name : {"repetitions.json", "aggregates_only.json", "with_error.json"}) {
        SCOPED_TRACE(name);
        expect_same_as_whole(file_text(data_dir / name));
    }
}

TEST(GoogleBenchmarkInPieces, NamesHoldingQuotesEscapesBracketsAndCommas) {
    std::string content = context;
    const std::vector<std::string> names = {R"(a\"],[{}\\)", R"(b\\\\\",)", R"(c}\u005d,)", "d"};
    for (int repetition = 0; repetition < 3; ++repetition)
        for (std::size_t at = 0; at < names.size(); ++at)
            content += row(names[at], 10.0 + static_cast<double>(at + repetition), repetition) +
                       (repetition == 2 && at + 1 == names.size() ? "\n" : ",\n");
    content += "  ]\n}\n";
    expect_same_as_whole(content);
    EXPECT_EQ(parse(content, "results.json", "auto").results.at(0).benchmark, R"(a"],[{}\)");
}

TEST(GoogleBenchmarkInPieces, EveryShapeOfRowAtEveryOffsetReadsAsWhole) {
    // The scan for the commas between rows takes 64 bytes at a time: strings that hold
    // brackets, braces and commas, escapes (a backslash at a block's last byte among them),
    // nested values whose commas are not between rows, and rows that end at every offset of a
    // block must cut the file where the byte-by-byte scan would.
    const std::vector<std::string> names = {"plain", "a,b",        "x]y",   "{z}", R"(q\"r)",
                                            R"(\\)", R"(e\u005b)", "[[,]]", ",,",  "}{"};
    std::string content = context;
    int count = 0;
    for (int pad = 0; pad < 130; ++pad) {
        const std::string name = names[static_cast<std::size_t>(pad) % names.size()] +
                                 std::string(static_cast<std::size_t>(pad % 67), ' ') + "/" +
                                 std::to_string(count++);
        content += R"(    {"name": ")" + name + R"(", "run_type": "iteration", "real_time": )" +
                   std::to_string(10 + pad) + R"(, "time_unit": "ns", "extra": {"list": [1, )" +
                   R"([2, {"k": ",]"}], 3], "s": "}],["}})" + ",\n";
    }
    content += row("last", 1) + "\n  ]\n}\n";
    const ParsedResults whole = parse(content, "results.json", "auto");
    ASSERT_EQ(whole.results.size(), 131u);
    for (const std::size_t batch : {std::size_t{1}, std::size_t{100}, std::size_t{512},
                                    std::size_t{777}, std::size_t{4096}, std::size_t{1} << 20}) {
        SCOPED_TRACE("batch of " + std::to_string(batch) + " bytes");
        const auto pieces = in_pieces(content, batch);
        ASSERT_TRUE(pieces);
        EXPECT_EQ(pieces->results, whole.results);
        EXPECT_EQ(pieces->content_hash, whole.content_hash);
    }
    // Cut short inside the rows: the same error as the whole file's.
    expect_same_error(content.substr(0, content.size() / 2));
}

TEST(GoogleBenchmarkInPieces, RandomNamesReadAsWhole) {
    // Names drawn from the characters that steer the scan, escaped as JSON escapes them, over
    // files of a few hundred rows: a fixed seed, so that a failure repeats.
    std::mt19937 random(20261203);
    const std::vector<std::string> pieces = {"a", "b", " ",     ",",     "[",         "]",     "{",
                                             "}", ":", R"(\")", R"(\\)", R"(\u0041)", R"(\/)", "/"};
    std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
    std::uniform_int_distribution<int> length(0, 90);
    for (int file = 0; file < 40; ++file) {
        std::string content = context;
        for (int at = 0; at < 200; ++at) {
            std::string name = "n" + std::to_string(at);
            for (int i = length(random); i > 0; --i) name += pieces[pick(random)];
            content += row(name, 1.0 + at) + ",\n";
        }
        content += row("last", 1) + "\n  ]\n}\n";
        const ParsedResults whole = parse(content, "results.json", "auto");
        for (const std::size_t batch : {std::size_t{64}, std::size_t{1000}, std::size_t{1} << 20}) {
            SCOPED_TRACE("file " + std::to_string(file) + ", batch of " + std::to_string(batch));
            const auto in_batches = in_pieces(content, batch);
            ASSERT_TRUE(in_batches);
            EXPECT_EQ(in_batches->results, whole.results);
        }
    }
}

TEST(GoogleBenchmarkInPieces, WhatFollowsTheArrayIsReadToo) {
    // Context after the rows, and the rows' key twice: read as the whole file reads them.
    const std::string content =
        R"({"benchmarks": [)" + row("x", 5) + "," + row("y", 6) +
        R"(], "context": {"library_build_type": "debug"}, "benchmarks": [)" + row("z", 7) + "]}";
    expect_same_as_whole(content, "googlebenchmark");
    EXPECT_EQ(parse(content, "results.json", "googlebenchmark").results.size(), 3u);
}

TEST(GoogleBenchmarkInPieces, ErrorsNameTheSameLineAndColumn) {
    const std::string rows = row("a", 1) + ",\n" + row("b", 2) + ",\n";
    // A missing comma inside a row, a bare word, a negative time, a repeated repetition.
    expect_same_error(context + rows + R"(    {"name": "c" "real_time": 3})" + "\n]}");
    expect_same_error(context + rows + R"(    {"name": "c", "real_time": NaN})" + "\n]}");
    expect_same_error(context + rows + row("c", -3) + "\n]}");
    expect_same_error(context + rows + row("a", 4) + "\n]}");
    // A trailing comma, a brace closing the array, a row that is no object.
    expect_same_error(context + rows + row("c", 3) + ",\n]}");
    expect_same_error(context + rows + row("c", 3) + "\n}}");
    expect_same_error(context + rows + "42\n]}");
    // Cut short: inside a row, between rows, inside a string.
    expect_same_error(context + rows + R"(    {"name": "c", "real_ti)");
    expect_same_error(context + rows);
    expect_same_error(context + rows + R"(    {"name": "c)");
    // Invalid UTF-8 before the array, in a row, and after the array.
    expect_same_error("{\"context\": {\"executable\": \"\xff\"},\n\"benchmarks\": [" + row("c", 3) +
                      "]}");
    expect_same_error(context + rows + row("c\xff", 3) + "\n]}");
    expect_same_error(context + rows + row("c", 3) + "\n], \"x\": \"\xfe\"}");
    // Two commas between rows.
    expect_same_error(context + row("a", 1) + ",\n,\n" + row("b", 2) + "\n]}");
    // Nothing after the array closes, or a malformed context after it.
    expect_same_error(R"({"benchmarks": [)" + row("x", 5) + "]", "googlebenchmark");
    expect_same_error(R"({"benchmarks": [)" + row("x", 5) + R"(], "context": {"a" 1}})",
                      "googlebenchmark");
}

TEST(GoogleBenchmarkInPieces, OfTwoFailuresTheFirstInTheFileIsReported) {
    // Batches are parsed two at a time, and a row is taken in only after its batch is parsed:
    // whichever failure is met first, the one reported is the one reading the file whole
    // reports. That is the first in the file, except that invalid UTF-8 anywhere comes before
    // everything else. The failures lie a few rows apart, so that some batch sizes put them in
    // one batch and others in two batches read at once.
    std::string between;
    for (int i = 0; i < 6; ++i) between += row("ok" + std::to_string(i), 1 + i) + ",\n";
    const std::string taken_in_badly = row("negative", -3) + ",\n";
    const std::string read_badly = R"(    {"name": "c" "real_time": 3},)"
                                   "\n";
    const std::string not_utf8 = row("c\xff", 3) + ",\n";
    const std::string unknown_unit =
        R"(    {"name": "u", "run_type": "iteration", "real_time": 1, "time_unit": "ks"},)"
        "\n";
    // A good row as long as `bad`, so that the other failure keeps its offset.
    const auto good_instead_of = [](const std::string& bad) {
        const std::string good = R"(    {"name":"g","real_time":2})";
        return good + std::string(bad.size() - good.size() - 2, ' ') + ",\n";
    };
    const std::string end = row("last", 9) + "\n]}";
    struct Case {
        std::string first, second;
        bool first_reported;
    };
    for (const auto& [first, second, first_reported] :
         {Case{taken_in_badly, read_badly, true}, Case{read_badly, taken_in_badly, true},
          Case{taken_in_badly, not_utf8, false}, Case{not_utf8, taken_in_badly, true},
          Case{read_badly, not_utf8, false}, Case{unknown_unit, taken_in_badly, true},
          Case{taken_in_badly, unknown_unit, true}}) {
        SCOPED_TRACE(first + " before " + second);
        const std::string content = context + between + first + between + second + between + end;
        expect_same_error(content);
        const std::string only_reported =
            first_reported
                ? context + between + first + between + good_instead_of(second) + between + end
                : context + between + good_instead_of(first) + between + second + between + end;
        EXPECT_EQ(parse_error(content), parse_error(only_reported));
    }
}

TEST(GoogleBenchmarkInPieces, OnlyGoogleBenchmarkFilesAreReadInPieces) {
    for (const std::size_t batch : {std::size_t{1}, std::size_t{4096}}) {
        EXPECT_EQ(pieces_error(R"([{"name": "a", "real_time": 1}])", batch), "not read in pieces");
        EXPECT_EQ(pieces_error(R"({"results": [{"command": "a", "times": [1]}]})", batch),
                  "not read in pieces");
        // pytest-benchmark's "benchmarks" with a context that is not Google Benchmark's.
        EXPECT_EQ(pieces_error(R"({"machine_info": {}, "benchmarks": [{"stats": {}}]})", batch),
                  "not read in pieces");
        EXPECT_EQ(pieces_error(context + row("a", 1) + "]}", batch, "hyperfine"),
                  "not read in pieces");
        // "benchmarks" as a nested key or as a value is not the array sought.
        EXPECT_EQ(pieces_error(R"({"x": {"benchmarks": [1]}, "y": "benchmarks"})", batch),
                  "not read in pieces");
    }
}

TEST(GoogleBenchmarkInPieces, HashOfAFileFedInPiecesIsTheHashOfItWhole) {
    const std::string bytes = "0123456789abcdefghijklmnopqrstuvwxyz!";
    for (std::size_t first = 0; first <= bytes.size(); ++first)
        for (std::size_t second = first; second <= bytes.size(); ++second) {
            detail::ContentHasher hasher(bytes.size());
            hasher.update(std::string_view(bytes).substr(0, first));
            hasher.update(std::string_view(bytes).substr(first, second - first));
            hasher.update(std::string_view(bytes).substr(second));
            EXPECT_EQ(hasher.value(), detail::content_hash(bytes)) << first << ", " << second;
        }
}

TEST(GoogleBenchmarkInPieces, ALargeFileIsReadInPiecesAsWhole) {
    // Over the size from which parse_file reads in pieces, and over the batch it reads at once.
    std::string content = context;
    int count = 0;
    while (content.size() < (std::size_t{20} << 20)) {
        for (int repetition = 0; repetition < 3; ++repetition)
            content += row("BM_generated/" + std::to_string(count), 100.0 + count % 17 + repetition,
                           repetition) +
                       ",\n";
        ++count;
    }
    content += row("BM_last", 1) + "\n  ]\n}\n";
    const testing::TemporaryDirectory dir("benchwatch-pieces");
    const auto path = dir.path() / "large.json";
    std::ofstream(path, std::ios::binary) << content;
    const ParsedResults whole = parse(content, path.string(), "auto");
    const ParsedResults from_file = parse_file(path, "auto");
    EXPECT_EQ(from_file.results.size(), static_cast<std::size_t>(count) + 1);
    EXPECT_EQ(from_file.results, whole.results);
    EXPECT_EQ(from_file.content_hash, whole.content_hash);
}

}  // namespace
}  // namespace benchwatch::ingest
