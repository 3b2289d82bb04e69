// What could break: auto-detection of pytest-benchmark, nanobench, BenchmarkDotNet and Bencher —
// a fixture of theirs not recognised, or one of their readers claiming another harness's file.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ingest/ingest.hpp"
#include "ingest/readers.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA);

// Each format's --format name, its fixture folder under tests/data and its reader.
struct Format {
    std::string_view name;
    const detail::Reader& reader;
};

const std::array<Format, 4> formats = {{
    {"pytest-benchmark", detail::pytestbenchmark_reader},
    {"nanobench", detail::nanobench_reader},
    {"benchmarkdotnet", detail::benchmarkdotnet_reader},
    {"bencher", detail::bencher_reader},
}};

bool is_fixture(const std::filesystem::directory_entry& entry) {
    return entry.is_regular_file() && entry.path().extension() == ".json";
}

TEST(FourJsonFormatsDetection, EveryFixtureIsDetectedAsItsFormat) {
    for (const auto& format : formats) {
        int fixtures = 0;
        for (const auto& entry : std::filesystem::directory_iterator(data_dir / format.name)) {
            if (!is_fixture(entry)) continue;
            ++fixtures;
            EXPECT_EQ(parse_file(entry.path(), "auto").format, format.name) << entry.path();
        }
        EXPECT_GE(fixtures, 2) << format.name;
    }
}

// Whether `reader` claims the text at `path`, asked as ingest.cpp asks a JSON reader: only when
// the text is a JSON object or array.
bool claims(const detail::Reader& reader, const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    const std::string content = bytes.str();
    try {
        detail::JsonInput json(content, content.size(), path.string());
        simdjson::ondemand::json_type type{};
        if (json.document().type().get(type) != simdjson::SUCCESS) return false;
        if (type != simdjson::ondemand::json_type::object &&
            type != simdjson::ondemand::json_type::array)
            return false;
        return reader.detect({content, &json.document()}).matches;
    } catch (const InputError&) {
        return false;  // not JSON: no JSON reader is asked
    } catch (const simdjson::simdjson_error&) {
        return false;  // malformed past the part detection reads
    }
}

TEST(FourJsonFormatsDetection, NoOtherHarnessFixtureIsClaimed) {
    int others = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(data_dir)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
        const auto folder = *std::filesystem::relative(entry.path(), data_dir).begin();
        for (const auto& format : formats) {
            if (folder == format.name) continue;
            ++others;
            EXPECT_FALSE(claims(format.reader, entry.path()))
                << format.name << " claims " << entry.path();
        }
    }
    EXPECT_GT(others, 0);
}

}  // namespace
}  // namespace benchwatch::ingest
