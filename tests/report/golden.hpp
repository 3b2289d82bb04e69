#pragma once

// Approval testing: whole outputs compared with files under tests/data/report/. With
// BENCHWATCH_UPDATE_GOLDEN=1 the actual output replaces the file instead (review the diff).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace benchwatch::report::testing {

inline std::string golden_path(const std::string& name) {
    return std::string(BENCHWATCH_TEST_DATA) + "/report/" + name;
}

inline void expect_golden(const std::string& actual, const std::string& name) {
    const auto path = golden_path(name);
    const char* update = std::getenv("BENCHWATCH_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
        std::ofstream(path, std::ios::binary) << actual;
        return;
    }
    std::ifstream file(path, std::ios::binary);
    ASSERT_TRUE(file) << path << " is missing; run with BENCHWATCH_UPDATE_GOLDEN=1 to create it";
    std::stringstream expected_stream;
    expected_stream << file.rdbuf();
    const auto expected = expected_stream.str();
    if (actual == expected) return;
    // Report the first differing line rather than two whole reports.
    std::istringstream actual_lines(actual), expected_lines(expected);
    std::string actual_line, expected_line;
    for (int number = 1;; ++number) {
        const bool more_actual = static_cast<bool>(std::getline(actual_lines, actual_line));
        const bool more_expected = static_cast<bool>(std::getline(expected_lines, expected_line));
        if (more_actual != more_expected || actual_line != expected_line || !more_actual) {
            ADD_FAILURE() << path << ":" << number << " differs\n  expected: "
                          << (more_expected ? expected_line : "<end of file>")
                          << "\n  actual:   " << (more_actual ? actual_line : "<end of output>")
                          << "\nIf the change is intended, rerun with BENCHWATCH_UPDATE_GOLDEN=1 "
                             "and review the diff.";
            return;
        }
    }
}

}  // namespace benchwatch::report::testing
