#include "report/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "model/printable.hpp"

namespace benchwatch::report {

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
namespace {

constexpr std::size_t kMaximumBarCells = 40;
constexpr std::size_t kMinimumBarCells = 5;
constexpr std::size_t kNameColumnsKeptBeforeTheBarShrinks = 10;
constexpr std::string_view kSeparator = "  ";
constexpr std::string_view kEllipsis = "…";

// One code point as it is written to the terminal, and the columns it takes there.
struct Glyph {
    std::string text;
    std::size_t columns = 1;
};

// Whether the code point takes two terminal columns: CJK, Hangul, fullwidth forms, emoji.
bool is_east_asian_wide(char32_t code_point) {
    const auto in = [code_point](char32_t first, char32_t last) {
        return code_point >= first && code_point <= last;
    };
    return in(0x1100, 0x115F) || in(0x2E80, 0x303E) || in(0x3041, 0x33FF) || in(0x3400, 0x4DBF) ||
           in(0x4E00, 0x9FFF) || in(0xA000, 0xA4CF) || in(0xAC00, 0xD7A3) || in(0xF900, 0xFAFF) ||
           in(0xFE30, 0xFE4F) || in(0xFF00, 0xFF60) || in(0xFFE0, 0xFFE6) || in(0x1F300, 0x1F64F) ||
           in(0x1F900, 0x1F9FF) || in(0x20000, 0x3FFFD);
}

// The text split into code points; control characters (C0, DEL, C1) become spaces and bytes that
// are not valid UTF-8 become '?', so nothing in a name can move the cursor.
std::vector<Glyph> split_glyphs(std::string_view text) {
    std::vector<Glyph> glyphs;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto lead = static_cast<unsigned char>(text[at]);
        const std::size_t length = lead < 0x80             ? 1
                                   : (lead & 0xE0) == 0xC0 ? 2
                                   : (lead & 0xF0) == 0xE0 ? 3
                                   : (lead & 0xF8) == 0xF0 ? 4
                                                           : 0;
        bool valid = length > 0 && at + length <= text.size();
        char32_t code_point = length == 1 ? lead : lead & (0x7F >> length);
        for (std::size_t i = 1; valid && i < length; ++i) {
            const auto byte = static_cast<unsigned char>(text[at + i]);
            valid = (byte & 0xC0) == 0x80;
            code_point = (code_point << 6) | (byte & 0x3F);
        }
        if (!valid) {
            glyphs.push_back({"?", 1});
            ++at;
            continue;
        }
        if (code_point < 0x20 || (code_point >= 0x7F && code_point < 0xA0)) {
            glyphs.push_back({" ", 1});
        } else {
            glyphs.push_back(
                {std::string(text.substr(at, length)), is_east_asian_wide(code_point) ? 2u : 1u});
        }
        at += length;
    }
    return glyphs;
}

std::size_t columns_of(const std::vector<Glyph>& glyphs) {
    std::size_t columns = 0;
    for (const auto& glyph : glyphs) columns += glyph.columns;
    return columns;
}

std::size_t columns_of(std::string_view text) {
    return columns_of(split_glyphs(text));
}

// The name in at most `room` columns: whole when it fits, otherwise its start and end around "…",
// the start getting the odd column.
std::string shorten_middle(const std::vector<Glyph>& name, std::size_t room) {
    std::string whole;
    for (const auto& glyph : name) whole += glyph.text;
    if (columns_of(name) <= room) return whole;
    if (room == 0) return "";
    const std::size_t head_room = room / 2;  // (room − 1 for "…") rounded up, halved
    const std::size_t tail_room = (room - 1) / 2;
    std::size_t head_end = 0, head_columns = 0;
    while (head_end < name.size() && head_columns + name[head_end].columns <= head_room) {
        head_columns += name[head_end++].columns;
    }
    std::size_t tail_begin = name.size(), tail_columns = 0;
    while (tail_begin > head_end && tail_columns + name[tail_begin - 1].columns <= tail_room) {
        tail_columns += name[--tail_begin].columns;
    }
    std::string shortened;
    for (std::size_t i = 0; i < head_end; ++i) shortened += name[i].text;
    shortened += kEllipsis;
    for (std::size_t i = tail_begin; i < name.size(); ++i) shortened += name[i].text;
    return shortened;
}

std::string bar(std::size_t done, std::size_t total, std::size_t cells) {
    const std::size_t filled = total == 0 ? cells : std::min(done, total) * cells / total;
    std::string text = "[";
    for (std::size_t i = 0; i < cells; ++i) text += i < filled ? "█" : "░";
    return text + "] ";
}

}  // namespace

ProgressMode choose_progress_mode(bool output_is_terminal, std::string_view term, bool ci_is_set) {
    const bool terminal = output_is_terminal && term != "dumb" && !ci_is_set;
    return terminal ? ProgressMode::Terminal : ProgressMode::Plain;
}

ProgressMode detect_progress_mode(int fd) {
    const char* term = std::getenv("TERM");
    const char* ci = std::getenv("CI");
    return choose_progress_mode(isatty(fd) == 1, term == nullptr ? "" : term,
                                ci != nullptr && *ci != '\0');
}

std::size_t terminal_columns(int fd, std::size_t fallback) {
    winsize size{};
    if (isatty(fd) != 1 || ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return fallback;
    return size.ws_col;
}

std::string format_duration(double seconds) {
    const long long whole = seconds > 0 ? std::llround(seconds) : 0;
    const long long hours = whole / 3600, minutes = whole / 60 % 60, rest = whole % 60;
    if (hours > 0) return fmt::format("{}:{:02}:{:02}", hours, minutes, rest);
    return fmt::format("{}:{:02}", minutes, rest);
}

std::optional<double> estimate_seconds_left(std::size_t done, std::size_t total,
                                            double elapsed_seconds) {
    if (done == 0) return std::nullopt;
    const std::size_t left = total > done ? total - done : 0;
    return elapsed_seconds / static_cast<double>(done) * static_cast<double>(left);
}

std::string render_progress_line(const ProgressState& state, std::size_t columns) {
    const auto name = split_glyphs(model::printable_line(state.name));
    const std::size_t name_columns = columns_of(name);
    const std::string counts = fmt::format("{}/{}", state.done, state.total);
    const auto left = estimate_seconds_left(state.done, state.total, state.elapsed_seconds);
    const std::string left_text =
        left ? fmt::format("~{} left", format_duration(*left)) : std::string("estimating…");
    const std::string elapsed = format_duration(state.elapsed_seconds);
    const std::string long_times = fmt::format("{} elapsed, {}", elapsed, left_text);
    const std::string short_times = fmt::format("{}, {}", elapsed, left_text);
    const std::size_t preferred_bar = std::min(kMaximumBarCells, columns / 5);

    // The line with the given parts, or nothing when they leave the name fewer than
    // `name_minimum` columns.
    const auto lay_out = [&](bool with_bar, std::string_view times,
                             std::size_t name_minimum) -> std::optional<std::string> {
        const std::size_t used = counts.size() + (name.empty() ? 0 : kSeparator.size()) +
                                 (times.empty() ? 0 : kSeparator.size() + columns_of(times));
        if (used > columns) return std::nullopt;
        std::size_t free = columns - used;
        std::size_t bar_cells = 0;
        if (with_bar) {
            const std::size_t bar_frame = 3;  // "[", "] "
            if (preferred_bar < kMinimumBarCells ||
                free < kMinimumBarCells + bar_frame + name_minimum) {
                return std::nullopt;
            }
            bar_cells = std::min(preferred_bar, free - bar_frame - name_minimum);
            free -= bar_cells + bar_frame;
        } else if (free < name_minimum) {
            return std::nullopt;
        }
        std::string line = with_bar ? bar(state.done, state.total, bar_cells) : std::string();
        line += counts;
        if (!name.empty()) line += fmt::format("{}{}", kSeparator, shorten_middle(name, free));
        if (!times.empty()) line += fmt::format("{}{}", kSeparator, times);
        return line;
    };

    const std::size_t kept_name = std::min(name_columns, kNameColumnsKeptBeforeTheBarShrinks);
    if (auto line = lay_out(true, long_times, kept_name)) return *line;
    if (auto line = lay_out(true, short_times, kept_name)) return *line;
    if (auto line = lay_out(false, short_times, kept_name)) return *line;
    if (auto line = lay_out(false, "", std::min<std::size_t>(name_columns, 1))) return *line;

    std::string cut;
    std::size_t used = 0;
    for (const auto& glyph : split_glyphs(counts)) {
        if (used + glyph.columns > columns) break;
        cut += glyph.text;
        used += glyph.columns;
    }
    return cut;
}

std::string render_plain_progress_line(std::size_t ordinal, std::size_t total,
                                       std::string_view name, double elapsed_seconds) {
    return fmt::format("[{}/{}] {} ({})", ordinal, total, model::printable_line(name),
                       format_duration(elapsed_seconds));
}

Progress::Progress(std::ostream& out, ProgressMode mode, std::size_t total, Clock clock,
                   std::size_t columns)
    : out_(out),
      mode_(mode),
      total_(total),
      clock_(std::move(clock)),
      columns_(columns),
      started_at_(clock_()) {}

Progress::~Progress() {
    finish();
}

void Progress::start(std::string_view name) {
    assert(started_ < total_ && "no more steps start than the total given to Progress");
    ++started_;
    name_ = name;
    if (mode_ == ProgressMode::Terminal) {
        redraw();
    } else {
        out_ << render_plain_progress_line(started_, total_, name_, elapsed()) << '\n'
             << std::flush;
    }
}

void Progress::complete() {
    assert(done_ < started_ && "complete() follows a start()");
    ++done_;
    if (mode_ == ProgressMode::Terminal) redraw();
}

void Progress::refresh() {
    if (mode_ == ProgressMode::Terminal && !finished_) redraw();
}

void Progress::finish() {
    if (finished_) return;
    finished_ = true;
    if (mode_ == ProgressMode::Terminal) {
        redraw();
        out_ << '\n';
    } else if (done_ == total_) {
        out_ << fmt::format("[{}/{}] done in {}\n", done_, total_, format_duration(elapsed()));
    } else {
        out_ << fmt::format("[{}/{}] stopped after {}\n", done_, total_,
                            format_duration(elapsed()));
    }
    out_.flush();
}

void Progress::redraw() {
    const ProgressState state{done_, total_, name_, elapsed()};
    out_ << '\r' << render_progress_line(state, columns_) << "\x1b[K" << std::flush;
}

double Progress::elapsed() const {
    return clock_() - started_at_;
}

}  // namespace benchwatch::report
