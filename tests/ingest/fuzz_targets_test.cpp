// What could break: a reader added to ingest's table without a fuzz target, or a fuzz target left
// for a format that is gone — fuzz/CMakeLists.txt's list must name exactly format_names().
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path fuzz_cmake =
    std::filesystem::path(BENCHWATCH_TEST_DATA).parent_path().parent_path() / "fuzz" /
    "CMakeLists.txt";

// The names between the "# fuzz-formats-begin" and "# fuzz-formats-end" lines, one per line after
// "set(BENCHWATCH_FUZZ_FORMATS".
std::vector<std::string> fuzzed_formats() {
    std::ifstream file(fuzz_cmake);
    std::vector<std::string> names;
    bool inside = false;
    for (std::string line; std::getline(file, line);) {
        if (line == "# fuzz-formats-begin") inside = true;
        if (line == "# fuzz-formats-end") break;
        if (inside && line.rfind("  ", 0) == 0) names.push_back(line.substr(2));
    }
    return names;
}

TEST(FuzzTargets, EveryFormatHasExactlyOneFuzzTarget) {
    std::vector<std::string> fuzzed = fuzzed_formats();
    ASSERT_FALSE(fuzzed.empty()) << "no format list between the markers in " << fuzz_cmake;
    std::vector<std::string> formats = format_names();
    std::sort(fuzzed.begin(), fuzzed.end());
    std::sort(formats.begin(), formats.end());
    EXPECT_EQ(fuzzed, formats) << "update BENCHWATCH_FUZZ_FORMATS in " << fuzz_cmake;
}

}  // namespace
}  // namespace benchwatch::ingest
