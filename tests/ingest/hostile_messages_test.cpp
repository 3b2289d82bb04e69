// What could break: an error about a results file quoting a name, unit or file name as it came,
// so that escape sequences in it drive the terminal, or a newline in it starts a line of its own
// that GitHub Actions reads as a workflow command ("::error::…").

#include <gtest/gtest.h>

#include <string>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

std::string error_of(const std::string& content, std::string_view source,
                     std::string_view format = "auto") {
    try {
        parse(content, source, format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// Whether `message` holds a C0 or C1 control character or DEL.
bool has_control_character(const std::string& message) {
    for (std::size_t i = 0; i < message.size(); ++i) {
        const auto byte = static_cast<unsigned char>(message[i]);
        if (byte < 0x20 || byte == 0x7f) return true;
        if (byte == 0xc2 && i + 1 < message.size() &&
            static_cast<unsigned char>(message[i + 1]) <= 0x9f)
            return true;
    }
    return false;
}

TEST(HostileMessages, AGoogleBenchmarkTimeUnitIsShownWithoutItsEscapes) {
    const auto message =
        error_of(R"({"context":{},"benchmarks":[{"name":"a","real_time":1,)"
                 R"("time_unit":"\u001b]0;TITLE\u0007\n::error::pwned\u009b2J"}]})",
                 "results.json");
    EXPECT_FALSE(has_control_character(message)) << message;
    EXPECT_EQ(message,
              "results.json: benchmark 'a': unknown time_unit '\\u{1b}]0;TITLE\\u{7}\\u{a}::error::"
              "pwned\\u{9b}2J'; expected ns, us, ms or s");
}

TEST(HostileMessages, ALibtestDuplicateIsShownWithoutItsEscapes) {
    const auto message = error_of(
        "test a\033[2J ... bench: 5 ns/iter (+/- 1)\ntest a\033[2J ... bench: 6 ns/iter (+/- 1)\n",
        "bench.txt");
    EXPECT_FALSE(has_control_character(message)) << message;
    EXPECT_EQ(message, "bench.txt:2: benchmark 'a\\u{1b}[2J' appears twice");
}

TEST(HostileMessages, AGithubActionBenchmarkDuplicateIsShownWithoutItsNewline) {
    const auto message = error_of(
        R"([{"name": "a\n::error::x", "value": 1, "unit": "ns"},)"
        R"( {"name": "a\n::error::x", "value": 2, "unit": "ns"}])",
        "bench.json", "github-action-benchmark");
    EXPECT_FALSE(has_control_character(message)) << message;
    EXPECT_NE(message.find("benchmark 'a\\u{a}::error::x' appears twice"), std::string::npos)
        << message;
}

TEST(HostileMessages, ADuplicateNameCannotIssueAnOldStyleWorkflowCommand) {
    const auto message = error_of(
        R"([{"name": "a ##[error]x", "value": 1, "unit": "ns"},)"
        R"( {"name": "a ##[error]x", "value": 2, "unit": "ns"}])",
        "bench.json", "github-action-benchmark");
    EXPECT_NE(message.find("benchmark 'a ##\\u{5b}error]x' appears twice"), std::string::npos)
        << message;
}

TEST(HostileMessages, AFileNameIsShownWithoutItsEscapes) {
    const auto message = error_of("", "bad\033[31m\nname.json");
    EXPECT_EQ(message, "bad\\u{1b}[31m\\u{a}name.json: empty file; expected benchmark results");
}

TEST(HostileMessages, BytesThatAreNotUtf8AreWrittenOut) {
    EXPECT_EQ(InputError("a\x9b" "2J\xff").what(), std::string("a\\x{9b}2J\\x{ff}"));
    EXPECT_EQ(InputError("µs é").what(), std::string("µs é"));
}

TEST(HostileMessages, AWarningQuotingASkipMessageIsOnePrintableLine) {
    const auto parsed = parse(
        R"({"context":{},"benchmarks":[{"name":"a","run_type":"iteration","real_time":3,)"
        R"("time_unit":"ns"},{"name":"b","run_type":"iteration","skipped":true,)"
        R"("skip_message":"x\n::error::pwned\u001b[2J","real_time":0,"time_unit":"ns"}]})",
        "results.json", "auto");
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_FALSE(has_control_character(parsed.warnings[0])) << parsed.warnings[0];
    EXPECT_NE(parsed.warnings[0].find("x\\u{a}::error::pwned\\u{1b}[2J"), std::string::npos)
        << parsed.warnings[0];
}

}  // namespace
}  // namespace benchwatch::ingest
