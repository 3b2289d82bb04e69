// What could break: a progress line wider than the terminal (so every redraw wraps), a name cut
// inside a UTF-8 character, a wrong time-left estimate, control characters in logs, or the bar
// drawn into a file or CI log instead of plain lines.
#include "report/progress.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace benchwatch::report {
namespace {

// Columns of a line whose characters are all one column wide: its UTF-8 code points.
std::size_t code_points(std::string_view text) {
    std::size_t count = 0;
    for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return count;
}

std::string repeat(std::string_view text, std::size_t times) {
    std::string out;
    for (std::size_t i = 0; i < times; ++i) out += text;
    return out;
}

// A clock that returns the given readings in order.
Progress::Clock scripted_clock(std::vector<double> readings) {
    auto next = std::make_shared<std::size_t>(0);
    return [readings = std::move(readings), next]() {
        EXPECT_LT(*next, readings.size()) << "the clock was read more often than scripted";
        const std::size_t index = std::min((*next)++, readings.size() - 1);
        return readings[index];
    };
}

TEST(FormatDuration, RoundsToTheNearestSecond) {
    EXPECT_EQ(format_duration(0), "0:00");
    EXPECT_EQ(format_duration(7), "0:07");
    EXPECT_EQ(format_duration(16.3), "0:16");
    EXPECT_EQ(format_duration(16.5), "0:17");
    EXPECT_EQ(format_duration(59.6), "1:00");
    EXPECT_EQ(format_duration(725), "12:05");     // 12 × 60 + 5
    EXPECT_EQ(format_duration(3723), "1:02:03");  // 3600 + 2 × 60 + 3
    EXPECT_EQ(format_duration(-3), "0:00");
}

TEST(EstimateSecondsLeft, ScalesTheAverageStepByTheStepsLeft) {
    EXPECT_EQ(estimate_seconds_left(0, 40, 7), std::nullopt);
    // 7 s for 12 steps, 28 left: 7 / 12 × 28 = 16.33 s, shown as ~0:16
    EXPECT_NEAR(*estimate_seconds_left(12, 40, 7), 16.3333, 1e-4);
    EXPECT_EQ(*estimate_seconds_left(40, 40, 30), 0.0);
}

TEST(RenderProgressLine, EightyColumns) {
    // bar 80 / 5 = 16 cells, 12 × 16 / 40 = 4.8 → 4 filled; 19 + 5 + 2 + 10 + 2 + 24 = 62 columns
    EXPECT_EQ(render_progress_line({12, 40, "array/copy", 7}, 80),
              "[████░░░░░░░░░░░░] 12/40  array/copy  0:07 elapsed, ~0:16 left");
}

TEST(RenderProgressLine, TwoHundredColumnsCapsTheBarAtForty) {
    // 200 / 5 = 40 cells, 12 × 40 / 40 = 12 filled
    EXPECT_EQ(
        render_progress_line({12, 40, "array/copy", 7}, 200),
        "[" + repeat("█", 12) + repeat("░", 28) + "] 12/40  array/copy  0:07 elapsed, ~0:16 left");
}

TEST(RenderProgressLine, FortyColumnsDropsTheBarAndTheTimeWords) {
    // With the bar: 5 + 2 + 2 + 24 = 33 leaves 7, and even short times (5 + 2 + 2 + 16 = 25)
    // leave 15 < 5 + 3 + 10; without the bar the 10-column name fits: 35 columns.
    EXPECT_EQ(render_progress_line({12, 40, "array/copy", 7}, 40),
              "12/40  array/copy  0:07, ~0:16 left");
}

TEST(RenderProgressLine, LongUtf8NameShortenedFromTheMiddle) {
    // 57 code points. At 80: 4 + 2 + 2 + 24 = 32 used, bar 16 (+3) leaves 29 for the name:
    // 14 + "…" + 14. 3 × 16 / 40 = 1.2 → 1 filled; 12 / 3 × 37 = 148 s = 2:28. Exactly 80 wide.
    const std::string name = "mesh/größenänderung/prüfung_mit_sehr_langem_namen/1048576";
    ASSERT_EQ(code_points(name), 57u);
    const auto line = render_progress_line({3, 40, name, 12}, 80);
    EXPECT_EQ(line,
              "[█░░░░░░░░░░░░░░░] 3/40  mesh/größenänd…_namen/1048576  0:12 elapsed, ~2:28 left");
    EXPECT_EQ(code_points(line), 80u);
}

TEST(RenderProgressLine, WideCharactersCountTwoColumns) {
    // 16 code points, 13 of them wide: 29 columns. At 40 without the bar: 3 + 2 + 2 + 17 = 24
    // leaves 16: head 8 columns "测试/内" (7), "…", tail 7 columns "/一百万" (7).
    EXPECT_EQ(render_progress_line({0, 5, "测试/内存拷贝/大块数据/一百万", 0}, 40),
              "0/5  测试/内…/一百万  0:00, estimating…");
}

TEST(RenderProgressLine, EstimatingBeforeTheFirstStepIsDone) {
    // 80 / 5 = 16 cells, none filled
    EXPECT_EQ(render_progress_line({0, 40, "array/copy", 0.4}, 80),
              "[" + repeat("░", 16) + "] 0/40  array/copy  0:00 elapsed, estimating…");
}

TEST(RenderProgressLine, NarrowTerminalsKeepTheCountsFirst) {
    // 10 columns: "12/40" + 2 leaves 3 for the name: "a" + "…" + "y"
    EXPECT_EQ(render_progress_line({12, 40, "array/copy", 7}, 10), "12/40  a…y");
    EXPECT_EQ(render_progress_line({12, 40, "array/copy", 7}, 6), "12/40");
    EXPECT_EQ(render_progress_line({12, 40, "array/copy", 7}, 3), "12/");
}

TEST(RenderProgressLine, NeverWiderThanTheTerminal) {
    const std::string name = "a/" + repeat("ü", 70) + "/z";
    for (std::size_t columns = 0; columns <= 220; ++columns) {
        for (std::size_t done : {0u, 1u, 39u, 40u}) {
            const auto line = render_progress_line({done, 40, name, 3725}, columns);
            EXPECT_LE(code_points(line), columns) << line;
        }
    }
}

TEST(RenderProgressLine, ControlCharactersInNamesAreWrittenOut) {
    // ESC, newline and the C1 CSI (U+009B, bytes C2 9B), as model::printable_line() writes them
    EXPECT_EQ(
        render_progress_line({0, 1, "a\x1b[2Jb\nc\xc2\x9b", 0}, 80),
        "[" + repeat("░", 16) + "] 0/1  a\\u{1b}[2Jb\\u{a}c\\u{9b}  0:00 elapsed, estimating…");
}

TEST(RenderProgressLine, WorkflowCommandsAndBidiOverridesInNamesAreWrittenOut) {
    // A commit subject as backfill shows it: GitHub Actions would read "##[" as a command, and
    // U+202E would show the rest of the line reversed.
    const std::string name = "3f2a9c01d4e5 ##[error]x \xe2\x80\xae y";
    EXPECT_EQ(render_plain_progress_line(1, 2, name, 0),
              "[1/2] 3f2a9c01d4e5 ##\\u{5b}error]x \\u{202e} y (0:00)");
    EXPECT_EQ(render_progress_line({0, 2, name, 0}, 100),
              "[" + repeat("░", 20) +
                  "] 0/2  3f2a9c01d4e5 ##\\u{5b}error]x \\u{202e} y  0:00 elapsed, estimating…");
}

TEST(RenderProgressLine, BytesThatAreNotUtf8AreWrittenOut) {
    // a lone continuation byte, and a lead byte whose character was cut off
    EXPECT_EQ(render_plain_progress_line(1, 1,
                                         "a\x80"
                                         "b\xc3",
                                         0),
              "[1/1] a\\x{80}b\\x{c3} (0:00)");
}

TEST(RenderPlainProgressLine, CountsTheStartingStep) {
    EXPECT_EQ(render_plain_progress_line(12, 40, "array/copy", 7), "[12/40] array/copy (0:07)");
}

TEST(Progress, TerminalModeRedrawsInPlace) {
    // Readings: start of the clock, then one per redraw. Times left: 2 / 1 × 2 = 4 s,
    // 2.5 / 1 × 2 = 5 s (2.5 s shows as 0:03), 4 / 2 × 1 = 2 s, then 0. Bar 60 / 5 = 12 cells.
    std::ostringstream out;
    {
        Progress progress(out, ProgressMode::Terminal, 3,
                          scripted_clock({100, 100, 102, 102.5, 104, 104, 106.4, 106.4}), 60);
        progress.start("a");
        progress.complete();
        progress.start("b");
        progress.complete();
        progress.start("c");
        progress.complete();
        progress.finish();
    }
    const std::string expected =
        "\r[░░░░░░░░░░░░] 0/3  a  0:00 elapsed, estimating…\x1b[K"
        "\r[████░░░░░░░░] 1/3  a  0:02 elapsed, ~0:04 left\x1b[K"
        "\r[████░░░░░░░░] 1/3  b  0:03 elapsed, ~0:05 left\x1b[K"
        "\r[████████░░░░] 2/3  b  0:04 elapsed, ~0:02 left\x1b[K"
        "\r[████████░░░░] 2/3  c  0:04 elapsed, ~0:02 left\x1b[K"
        "\r[████████████] 3/3  c  0:06 elapsed, ~0:00 left\x1b[K"
        "\r[████████████] 3/3  c  0:06 elapsed, ~0:00 left\x1b[K\n";
    EXPECT_EQ(out.str(), expected);
}

TEST(Progress, PlainModeSaysStoppedWhenAStepFailed) {
    std::ostringstream out;
    {
        // The second step throws in the caller; the destructor ends the display.
        Progress progress(out, ProgressMode::Plain, 3, scripted_clock({10, 10, 11, 12.2}), 60);
        progress.start("a");
        progress.complete();
        progress.start("b");
    }
    EXPECT_EQ(out.str(), "[1/3] a (0:00)\n[2/3] b (0:01)\n[1/3] stopped after 0:02\n");
}

TEST(Progress, PlainModeWritesOneLinePerStepWithoutControlCharacters) {
    std::ostringstream out;
    {
        Progress progress(out, ProgressMode::Plain, 3,
                          scripted_clock({100, 100, 102.5, 104, 106.4}), 60);
        progress.start("a");
        progress.complete();
        progress.refresh();  // no clock reading, no output
        progress.start("b\x1b[31m");
        progress.complete();
        progress.start("c");
        progress.complete();
        progress.finish();
    }
    EXPECT_EQ(out.str(),
              "[1/3] a (0:00)\n[2/3] b\\u{1b}[31m (0:03)\n[3/3] c (0:04)\n[3/3] done in 0:06\n");
    for (char c : out.str()) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE((byte >= 0x20 && byte != 0x7F) || byte == '\n') << "control byte " << int{byte};
    }
}

TEST(Progress, DestructorEndsTheTerminalLine) {
    // An error thrown mid-run must not be printed on the end of the progress line. At 40 columns
    // the long times (25) leave 8 < 5 + 3 + 1, so the time loses its words; the bar gets 8 cells.
    std::ostringstream out;
    {
        Progress progress(out, ProgressMode::Terminal, 2, scripted_clock({0, 1, 2}), 40);
        progress.start("a");
    }
    EXPECT_EQ(out.str(),
              "\r[░░░░░░░░] 0/2  a  0:01, estimating…\x1b[K"
              "\r[░░░░░░░░] 0/2  a  0:02, estimating…\x1b[K\n");
}

TEST(ChooseProgressMode, TerminalOnlyOnAnInteractiveTerminalOutsideCi) {
    EXPECT_EQ(choose_progress_mode(true, "xterm-256color", false), ProgressMode::Terminal);
    EXPECT_EQ(choose_progress_mode(true, "", false), ProgressMode::Terminal);
    EXPECT_EQ(choose_progress_mode(true, "dumb", false), ProgressMode::Plain);
    EXPECT_EQ(choose_progress_mode(true, "xterm-256color", true), ProgressMode::Plain);
    EXPECT_EQ(choose_progress_mode(false, "xterm-256color", false), ProgressMode::Plain);
    EXPECT_EQ(choose_progress_mode(false, "dumb", true), ProgressMode::Plain);
}

// Sets an environment variable (or removes it for nullopt) and restores it at scope end.
class ScopedEnvironment {
  public:
    ScopedEnvironment(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) {
            setenv(name, value->c_str(), 1);
        } else {
            unsetenv(name);
        }
    }
    ~ScopedEnvironment() {
        if (old_) {
            setenv(name_, old_->c_str(), 1);
        } else {
            unsetenv(name_);
        }
    }
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(DetectProgressMode, PseudoTerminalIsATerminalAndAFileIsNot) {
    const ScopedEnvironment term("TERM", "xterm-256color");
    const ScopedEnvironment ci("CI", std::nullopt);

    const int master = posix_openpt(O_RDWR | O_NOCTTY);
    ASSERT_GE(master, 0) << "posix_openpt failed";
    ASSERT_EQ(grantpt(master), 0);
    ASSERT_EQ(unlockpt(master), 0);
    const char* slave_path = ptsname(master);
    ASSERT_NE(slave_path, nullptr);
    const int slave = open(slave_path, O_RDWR | O_NOCTTY);
    ASSERT_GE(slave, 0) << "cannot open " << slave_path;
    winsize size{};
    size.ws_row = 30;
    size.ws_col = 100;
    ASSERT_EQ(ioctl(master, TIOCSWINSZ, &size), 0);

    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);

    EXPECT_EQ(detect_progress_mode(slave), ProgressMode::Terminal);
    EXPECT_EQ(terminal_columns(slave), 100u);
    EXPECT_EQ(detect_progress_mode(fileno(file)), ProgressMode::Plain);
    EXPECT_EQ(terminal_columns(fileno(file)), 80u);
    {
        const ScopedEnvironment in_ci("CI", "true");
        EXPECT_EQ(detect_progress_mode(slave), ProgressMode::Plain);
    }
    {
        const ScopedEnvironment dumb("TERM", "dumb");
        EXPECT_EQ(detect_progress_mode(slave), ProgressMode::Plain);
    }

    std::fclose(file);
    close(slave);
    close(master);
}

}  // namespace
}  // namespace benchwatch::report
