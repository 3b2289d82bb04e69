#pragma once

// The progress display of `benchwatch run`: a bar redrawn in place on a terminal, or one plain
// line per step in logs and CI. Rendering is pure; time comes from a clock the caller injects.

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace benchwatch::report {

// How a Progress writes: a line redrawn in place, or plain lines without control characters.
enum class ProgressMode { Terminal, Plain };

// Terminal only when the output is a terminal, TERM is not "dumb" and CI is not set.
ProgressMode choose_progress_mode(bool output_is_terminal, std::string_view term, bool ci_is_set);

// choose_progress_mode() for file descriptor `fd`, reading isatty(fd) and the TERM and CI
// environment variables of this process.
ProgressMode detect_progress_mode(int fd);

// The width of the terminal on `fd` in columns, or `fallback` when `fd` is not a terminal or
// reports no width.
std::size_t terminal_columns(int fd, std::size_t fallback = 80);

// "0:07", "12:05", "1:02:03": seconds rounded to the nearest whole second (16.3 → 0:16,
// 16.5 → 0:17); negative values show as 0:00.
std::string format_duration(double seconds);

// Seconds left if the remaining steps take as long as the finished ones did on average:
// elapsed / done × (total − done); nothing before the first step is done.
std::optional<double> estimate_seconds_left(std::size_t done, std::size_t total,
                                            double elapsed_seconds);

// What the progress display shows at one moment.
struct ProgressState {
    std::size_t done = 0;   // steps finished
    std::size_t total = 0;  // steps in all
    std::string_view name;  // the step running now, or the last one
    double elapsed_seconds = 0;
};

// One terminal line of at most `columns` display columns (one per code point, two for East Asian
// wide characters), e.g. "[████░░░░░░░░░░░░] 12/40  array/copy  0:07 elapsed, ~0:16 left".
// The bar takes a fifth of the width (at most 40 cells). When space is short the name is
// shortened from the middle with "…" down to 10 columns, then the bar shrinks to 5 cells, then the
// time loses its words ("0:07, ~0:16 left"), the bar goes, the time goes, and last the line is
// cut. The name is shown as model::printable_line() writes it, as every untrusted text on a line.
std::string render_progress_line(const ProgressState& state, std::size_t columns);

// One plain log line for a step that starts, the name as model::printable_line() writes it (no
// control or bidirectional character, no "##["): "[12/40] array/copy (0:07)", counting the
// starting step.
std::string render_plain_progress_line(std::size_t ordinal, std::size_t total,
                                       std::string_view name, double elapsed_seconds);

// Seconds of the steady (monotonic) clock since an arbitrary moment: the clock Progress is
// usually given.
double steady_seconds();

// Shows the progress of `total` steps on `out`. Terminal mode writes "\r", the line and "\x1b[K"
// (erase to the end of the line) on every change and a newline at the end; Plain mode writes one
// line when each step starts and one when all are done.
class Progress {
  public:
    // Seconds since any fixed moment; read at construction and at every change.
    using Clock = std::function<double()>;

    // Starts the clock; writes nothing yet. `columns` is the terminal width in Terminal mode.
    Progress(std::ostream& out, ProgressMode mode, std::size_t total, Clock clock,
             std::size_t columns = 80);

    // Finishes the display if finish() was not called, so a later error starts on its own line.
    ~Progress();

    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // The step `name` starts; at most `total` steps start.
    void start(std::string_view name);

    // The step started last is done.
    void complete();

    // Redraws the terminal line with the current elapsed time; nothing in Plain mode.
    void refresh();

    // Ends the display: the final line and a newline in Terminal mode, "[3/3] done in 0:05" in
    // Plain mode ("[1/3] stopped after 0:02" when not every step completed, as when a step
    // failed). Later calls do nothing.
    void finish();

  private:
    void redraw();
    double elapsed() const;

    std::ostream& out_;
    ProgressMode mode_;
    std::size_t total_;
    Clock clock_;
    std::size_t columns_;
    double started_at_;
    std::size_t started_ = 0;
    std::size_t done_ = 0;
    std::string name_;
    bool finished_ = false;
};

}  // namespace benchwatch::report
