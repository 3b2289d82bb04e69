#include "run/instrument.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "ingest/callgrind.hpp"
#include "ingest/googlebenchmark.hpp"
#include "ingest/ingest.hpp"
#include "model/printable.hpp"

namespace benchwatch::run {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInstallValgrind =
    "the instrument runs the benchmarks under valgrind's callgrind, and valgrind is not on PATH; "
    "install it (Debian and Ubuntu: apt-get install valgrind) and run again";

constexpr std::string_view kSupported =
    "the instrument counts Google Benchmark harnesses (and --latency commands)";

// Where a Google Benchmark loop starts and ends: the library's out-of-line calls around it.
constexpr std::string_view kLoopStart = "benchmark::State::StartKeepRunning*";
constexpr std::string_view kLoopEnd = "benchmark::State::FinishKeepRunning*";
constexpr std::string_view kLoopEndTrigger = "--dump-before=benchmark::State::FinishKeepRunning";

// The flags that make each repetition one trial, and two repetitions, in the order of the
// benchmarks; later flags override the harness's own.
const std::vector<std::string> kGoogleBenchmarkFlags = {
    "--benchmark_min_time=0.000000001",
    "--benchmark_repetitions=2",
    "--benchmark_enable_random_interleaving=false",
    "--benchmark_report_aggregates_only=false",
    "--benchmark_display_aggregates_only=false",
    "--benchmark_format=json",
};

// `command` run by valgrind's callgrind with `extra` callgrind options, its environment cleared
// to a fixed few variables (and the command's own), its profiles and valgrind's log written to
// `scratch`.
Command under_callgrind(const Command& command, const fs::path& scratch,
                        const std::vector<std::string>& extra) {
    Command wrapped = command;
    const char* path = std::getenv("PATH");
    wrapped.argv = {"env", "-i", fmt::format("PATH={}", path ? path : "/usr/bin:/bin"), "LC_ALL=C",
                    "LD_BIND_NOW=1"};
    for (const auto& [key, value] : command.environment)
        wrapped.argv.push_back(fmt::format("{}={}", key, value));
    wrapped.environment.clear();
    for (const auto& word :
         {std::string("valgrind"), std::string("--tool=callgrind"), std::string("--cache-sim=yes"),
          std::string("--trace-children=yes"),
          fmt::format("--callgrind-out-file={}", (scratch / "callgrind.out.%p").string()),
          fmt::format("--log-file={}", (scratch / "valgrind.%p.log").string())})
        wrapped.argv.push_back(word);
    wrapped.argv.insert(wrapped.argv.end(), extra.begin(), extra.end());
    wrapped.argv.insert(wrapped.argv.end(), command.argv.begin(), command.argv.end());
    return wrapped;
}

// Runs `command`, throwing InstrumentError when it cannot be started or fails.
TimedResult run_instrumented(const Command& command, const Command& shown) {
    TimedResult result;
    try {
        result = run_timed(command);
    } catch (const StartError& error) {
        throw InstrumentError(error.what());
    }
    if (!result.succeeded())
        throw InstrumentError(model::printable_line(
            fmt::format("'{}' failed under the instrument ({}{}); {}", command_text(shown.argv),
                        describe_failure(result, shown),
                        result.err.empty() ? "" : ": " + first_line_of(result.err), kSupported)));
    return result;
}

// The process id and part number in a profile's file name, "callgrind.out.<pid>[.<part>]".
struct ProfileName {
    long pid = 0;
    bool found = false;
};

ProfileName profile_name(const std::string& name) {
    constexpr std::string_view prefix = "callgrind.out.";
    if (!name.starts_with(prefix)) return {};
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    long pid = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
    if (error != std::errc()) return {};
    return {pid, true};
}

// Every profile part in `scratch`, by process id.
std::map<long, std::vector<ingest::CallgrindPart>> read_profiles(const fs::path& scratch) {
    std::map<long, std::vector<ingest::CallgrindPart>> by_process;
    for (const auto& entry : fs::directory_iterator(scratch)) {
        const auto name = profile_name(entry.path().filename().string());
        if (!name.found || !entry.is_regular_file()) continue;
        std::ifstream file(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(file)),
                               std::istreambuf_iterator<char>());
        if (!file.good() && !file.eof())
            throw InstrumentError(
                fmt::format("cannot read callgrind's profile {}", entry.path().string()));
        by_process[name.pid].push_back(ingest::parse_callgrind(text, entry.path().string()));
    }
    for (auto& [pid, parts] : by_process)
        std::sort(parts.begin(), parts.end(),
                  [](const auto& a, const auto& b) { return a.part < b.part; });
    return by_process;
}

// The results of `benchmark` from one profile part's totals over `iterations`.
void add_counts(std::vector<model::Result>& results, const std::string& benchmark,
                const std::map<std::string, std::uint64_t, std::less<>>& totals,
                double iterations) {
    const auto instructions = totals.find("Ir");
    if (instructions == totals.end()) return;
    model::Result counted;
    counted.benchmark = benchmark;
    counted.metric = std::string(kInstructionsMetric);
    counted.unit = "instr";
    counted.value = static_cast<double>(instructions->second) / iterations;
    results.push_back(counted);
    if (const auto cycles = ingest::estimated_cycles(totals)) {
        counted.metric = std::string(kEstimatedCyclesMetric);
        counted.unit = "cycles";
        counted.value = *cycles / iterations;
        results.push_back(counted);
    }
}

}  // namespace

ScratchFolder::ScratchFolder() {
    auto pattern = (fs::temp_directory_path() / "benchwatch-callgrind.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw InstrumentError(fmt::format(
            "cannot make a folder for callgrind's profiles, {}: {}; set TMPDIR to a folder "
            "benchwatch may write to",
            pattern, std::strerror(errno)));
    path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
}

std::string valgrind_version() {
    Command command;
    command.argv = {"valgrind", "--version"};
    TimedResult result;
    try {
        result = run_timed(command);
    } catch (const StartError&) {
        throw InstrumentError(std::string(kInstallValgrind));
    }
    if (!result.succeeded()) throw InstrumentError(std::string(kInstallValgrind));
    auto version = first_line_of(result.out);
    if (version.starts_with("valgrind-")) version.erase(0, 9);
    return model::printable_line(version);
}

ingest::ParsedResults count_google_benchmark(const Command& harness, const fs::path& scratch) {
    Command flagged = harness;
    flagged.stdout_mode = OutputMode::capture;
    const bool shell =
        flagged.argv.size() == 3 && flagged.argv[0] == "/bin/sh" && flagged.argv[1] == "-c";
    for (const auto& flag : kGoogleBenchmarkFlags) {
        if (shell)
            flagged.argv[2] += " " + flag;
        else
            flagged.argv.push_back(flag);
    }
    const auto result =
        run_instrumented(under_callgrind(flagged, scratch,
                                         {fmt::format("--dump-after={}", kLoopStart),
                                          fmt::format("--dump-before={}", kLoopEnd)}),
                         harness);
    std::vector<ingest::GoogleBenchmarkRow> rows;
    try {
        rows = ingest::google_benchmark_rows(result.out, "the harness's output");
    } catch (const ingest::InputError& error) {
        throw InstrumentError(model::printable_line(
            fmt::format("'{}' printed no Google Benchmark output under the instrument ({}); {}",
                        command_text(harness.argv), error.what(), kSupported)));
    }
    if (rows.empty())
        throw InstrumentError(
            model::printable_line(fmt::format("'{}' ran no benchmark under the instrument; {}",
                                              command_text(harness.argv), kSupported)));

    std::vector<ingest::CallgrindPart> loops;
    std::size_t processes_with_loops = 0;
    for (auto& [pid, parts] : read_profiles(scratch)) {
        std::vector<ingest::CallgrindPart> found;
        for (auto& part : parts)
            if (part.trigger.starts_with(kLoopEndTrigger)) found.push_back(std::move(part));
        if (found.empty()) continue;
        ++processes_with_loops;
        loops = std::move(found);
    }
    // Each thread of a benchmark runs the loop, and a memory manager runs each repetition's
    // loop once more: every run of a benchmark on t threads has t × that many loops.
    std::size_t thread_runs = 0;
    for (const auto& row : rows)
        thread_runs += static_cast<std::size_t>(std::max<std::int64_t>(row.threads, 1));
    if (processes_with_loops != 1 || loops.size() % thread_runs != 0)
        throw InstrumentError(fmt::format(
            "callgrind saw {} benchmark loops in {} processes for {} runs of benchmarks, so "
            "they cannot be matched; the instrument needs one Google Benchmark process whose "
            "symbols are not stripped, and benchmarks without a MinTime of their own",
            loops.size(), processes_with_loops, rows.size()));
    const std::size_t loops_per_thread = loops.size() / thread_runs;
    std::vector<std::size_t> first_loop_of(rows.size() + 1, 0);
    for (std::size_t r = 0; r < rows.size(); ++r)
        first_loop_of[r + 1] =
            first_loop_of[r] +
            loops_per_thread * static_cast<std::size_t>(std::max<std::int64_t>(rows[r].threads, 1));

    ingest::ParsedResults counted;
    counted.format = "googlebenchmark";
    for (std::size_t first = 0; first < rows.size();) {
        std::size_t last = first;
        while (last + 1 < rows.size() && rows[last + 1].benchmark == rows[first].benchmark) ++last;
        const auto& row = rows[last];
        const auto name = model::printable_line(row.benchmark);
        const bool any_left_out = std::any_of(rows.begin() + static_cast<std::ptrdiff_t>(first),
                                              rows.begin() + static_cast<std::ptrdiff_t>(last) + 1,
                                              [](const auto& r) { return r.left_out; });
        if (any_left_out)
            counted.warnings.push_back(
                fmt::format("{} failed or was skipped under the instrument; not counted", name));
        else if (row.threads > 1)
            counted.warnings.push_back(fmt::format(
                "{} runs on {} threads, and the instrument counts single-threaded benchmarks "
                "only; not counted",
                name, row.threads));
        else if (row.iterations > 0)
            add_counts(counted.results, row.benchmark, loops[first_loop_of[last]].totals,
                       static_cast<double>(row.iterations));
        first = last + 1;
    }
    for (const auto& count : counted.results)
        counted.content_hash = counted.content_hash * 31 + static_cast<std::uint64_t>(count.value);
    return counted;
}

std::vector<model::Result> count_command(const Command& command, const std::string& benchmark,
                                         const fs::path& scratch) {
    Command quiet = command;
    quiet.stdout_mode = OutputMode::discard;
    run_instrumented(under_callgrind(quiet, scratch, {}), command);
    std::map<std::string, std::uint64_t, std::less<>> totals;
    for (const auto& [pid, parts] : read_profiles(scratch))
        for (const auto& part : parts)
            for (const auto& [event, count] : part.totals) totals[event] += count;
    std::vector<model::Result> results;
    add_counts(results, benchmark, totals, 1);
    if (results.empty())
        throw InstrumentError(
            fmt::format("callgrind wrote no profile of '{}'", command_text(command.argv)));
    return results;
}

}  // namespace benchwatch::run
