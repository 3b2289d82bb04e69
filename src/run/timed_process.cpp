#include "run/timed_process.hpp"

#include <fmt/format.h>
#include <string.h>
#include <sys/wait.h>

#include <ranges>
#include <stdexcept>
#include <vector>

#include "model/printable.hpp"

namespace benchwatch::run {

namespace {

double seconds(const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

// "SIGSEGV" for 11; "signal 64" for a number without an abbreviation.
std::string signal_name(int signal) {
    if (const char* abbreviation = ::sigabbrev_np(signal))
        return fmt::format("SIG{}", abbreviation);
    return fmt::format("signal {}", signal);
}

}  // namespace

std::vector<std::string> shell_argv(std::string_view text) {
    return {"/bin/sh", "-c", std::string(text)};
}

std::string command_text(const std::vector<std::string>& argv) {
    if (is_shell_argv(argv)) return argv[2];
    return fmt::format("{}", fmt::join(argv, " "));
}

bool is_shell_argv(const std::vector<std::string>& argv) {
    return argv.size() == 3 && argv[0] == "/bin/sh" && argv[1] == "-c";
}

std::vector<std::string> command_words(const std::vector<std::string>& argv) {
    if (!is_shell_argv(argv)) return argv;
    std::vector<std::string> words;
    for (const auto word : std::views::split(std::string_view(argv[2]), ' '))
        if (word.begin() != word.end()) words.emplace_back(word.begin(), word.end());
    return words;
}

TimedResult run_timed(const Command& command) {
    vcs::SpawnRequest request{.argv = command.argv,
                              .directory = command.directory,
                              .environment = command.environment,
                              .stdout_mode = command.stdout_mode,
                              .own_process_group = true,
                              .timeout = std::nullopt};
    if (command.timeout) {
        request.timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(*command.timeout);
    }
    auto outcome = vcs::spawn_and_collect(request);
    if (!outcome.started) throw StartError(outcome.start_error);

    TimedResult result;
    result.timed_out = outcome.timed_out;
    result.output_overflowed = outcome.out_overflowed;
    if (WIFEXITED(outcome.wait_status)) result.exit_code = WEXITSTATUS(outcome.wait_status);
    if (WIFSIGNALED(outcome.wait_status)) result.signal = WTERMSIG(outcome.wait_status);
    result.wall_seconds = std::chrono::duration<double>(outcome.wall).count();
    result.user_seconds = seconds(outcome.usage.ru_utime);
    result.system_seconds = seconds(outcome.usage.ru_stime);
    result.max_rss_bytes = static_cast<std::int64_t>(outcome.usage.ru_maxrss) * 1024;
    result.out = std::move(outcome.out);
    result.err = std::move(outcome.err);
    return result;
}

std::string first_line_of(std::string_view text) {
    while (!text.empty() && (text.front() == '\n' || text.front() == '\r')) text.remove_prefix(1);
    return std::string(text.substr(0, text.find('\n')));
}

namespace {

bool blank(std::string_view text) {
    return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

std::string error_tail(std::string_view err, std::string_view out) {
    constexpr std::size_t most_lines = 3;
    constexpr std::size_t most_bytes = 300;
    std::string_view text = blank(err) ? out : err;
    std::vector<std::string_view> lines;
    while (!text.empty() && lines.size() < most_lines) {
        const auto start = text.find_last_of('\n');
        auto line = start == std::string_view::npos ? text : text.substr(start + 1);
        text = start == std::string_view::npos ? std::string_view() : text.substr(0, start);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        if (!line.empty()) lines.push_back(line);
    }
    std::string joined;
    for (auto line = lines.rbegin(); line != lines.rend(); ++line)
        joined += (joined.empty() ? "" : " | ") + std::string(*line);
    if (joined.size() > most_bytes) {
        std::size_t cut = joined.size() - most_bytes;
        // Start at a character, not inside a UTF-8 sequence.
        while (cut < joined.size() && (static_cast<unsigned char>(joined[cut]) & 0xC0) == 0x80)
            ++cut;
        joined = "…" + joined.substr(cut);
    }
    return model::printable_line(joined);
}

std::string describe_failure(const TimedResult& result, const Command& command) {
    if (result.output_overflowed)
        return fmt::format(
            "printed more than {} MiB on standard output, the most benchwatch reads; have it "
            "write its results to a file and name that file instead",
            max_output_bytes >> 20);
    if (result.timed_out) {
        const double limit = command.timeout ? command.timeout->count() : result.wall_seconds;
        return fmt::format("timed out after {:g} s", limit);
    }
    if (result.signal) return fmt::format("killed by {}", signal_name(*result.signal));
    if (result.exit_code && *result.exit_code != 0)
        return fmt::format("exit {}", *result.exit_code);
    return "";
}

}  // namespace benchwatch::run
