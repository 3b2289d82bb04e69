#include "run/instrument.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <ranges>

#include "ingest/callgrind.hpp"
#include "ingest/catch2.hpp"
#include "ingest/googlebenchmark.hpp"
#include "ingest/ingest.hpp"
#include "model/printable.hpp"
#include "run/stability.hpp"

namespace benchwatch::run {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInstallValgrind =
    "the instrument runs the benchmarks under valgrind's callgrind, and valgrind is not on PATH; "
    "install it (Debian and Ubuntu: apt-get install valgrind) and run again";

constexpr std::string_view kSupported =
    "the instrument counts Google Benchmark harnesses, Catch2 and Go test binaries (go test -c) "
    "and --latency commands";

// The mangled symbol of Catch2's per-benchmark runner, Catch::Benchmark::Benchmark::run<Clock>.
constexpr std::string_view kCatch2Runner = "N5Catch9Benchmark9Benchmark3run";
// The function, one per benchmark, that runs a benchmark's code a given number of times between
// two reads of the clock; and how a profile part cut where it returns names its trigger.
constexpr std::string_view kCatch2Call =
    "Catch::Benchmark::Detail::BenchmarkFunction::model<*>::call*";
constexpr std::string_view kCatch2CallTrigger =
    "--dump-after=Catch::Benchmark::Detail::BenchmarkFunction::model<";
const std::vector<std::string> kCatch2Flags = {"--benchmark-samples",
                                               "2",
                                               "--benchmark-warmup-time",
                                               "100",
                                               "--benchmark-no-analysis",
                                               "-r",
                                               "xml"};

// A symbol of the Go testing package that every test binary with benchmarks holds.
constexpr std::string_view kGoBenchmarkRunner = "testing.(*B).runN";

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

// What the strings at the top of the stack are padded to a multiple of (stack_padding()).
constexpr std::size_t kStackPadMultiple = 4096;

// `program` (a command's first word) as an absolute path: relative to `directory` when it holds a
// '/', else the first executable file of that name in a folder of `path` (as PATH is searched);
// unchanged when there is none.
std::string absolute_program(const std::string& program, const fs::path& directory,
                             std::string_view path) {
    if (program.find('/') != std::string::npos)
        return (directory / program).lexically_normal().string();
    for (const auto folder : std::views::split(path, ':')) {
        const fs::path candidate = fs::path(std::string(folder.begin(), folder.end())) / program;
        if (!candidate.empty() && candidate.is_absolute() && ::access(candidate.c_str(), X_OK) == 0)
            return candidate.string();
    }
    return program;
}

// `command` run by valgrind's callgrind with `extra` callgrind options, its environment cleared
// to a fixed few variables (and the command's own) padded by stack_padding(), its program given
// by its absolute path, its profiles and valgrind's log written to `scratch`.
Command under_callgrind(const Command& command, const fs::path& scratch,
                        const std::vector<std::string>& extra) {
    Command wrapped = command;
    const char* inherited_path = std::getenv("PATH");
    const std::string path = inherited_path ? inherited_path : "/usr/bin:/bin";
    const fs::path directory =
        command.directory.empty() ? fs::current_path() : fs::absolute(command.directory);
    std::vector<std::string> environment = {fmt::format("PATH={}", path), "LC_ALL=C",
                                            "LD_BIND_NOW=1"};
    for (const auto& [key, value] : command.environment)
        environment.push_back(fmt::format("{}={}", key, value));
    std::vector<std::string> program = command.argv;
    if (!program.empty()) program.front() = absolute_program(program.front(), directory, path);
    environment.push_back(
        fmt::format("{}={}", kStackPadVariable, stack_padding(program, environment, directory)));
    wrapped.argv = {"env", "-i"};
    wrapped.argv.insert(wrapped.argv.end(), environment.begin(), environment.end());
    wrapped.environment.clear();
    for (const auto& word :
         {std::string("valgrind"), std::string("--tool=callgrind"), std::string("--cache-sim=yes"),
          std::string("--trace-children=yes"),
          fmt::format("--callgrind-out-file={}", (scratch / "callgrind.out.%p").string()),
          fmt::format("--log-file={}", (scratch / "valgrind.%p.log").string())})
        wrapped.argv.push_back(word);
    wrapped.argv.insert(wrapped.argv.end(), extra.begin(), extra.end());
    wrapped.argv.insert(wrapped.argv.end(), program.begin(), program.end());
    return wrapped;
}

// Runs `command` (`shown` in messages, run `how`: " under the instrument"), throwing
// InstrumentError when it cannot be started or fails.
TimedResult run_instrumented(const Command& command, const Command& shown,
                             std::string_view how = " under the instrument") {
    TimedResult result;
    try {
        result = run_timed(command);
    } catch (const StartError& error) {
        throw InstrumentError(error.what());
    }
    if (!result.succeeded())
        throw InstrumentError(model::printable_line(
            fmt::format("'{}' failed{} ({}{}); {}", command_text(shown.argv), how,
                        describe_failure(result, shown),
                        result.err.empty() ? "" : ": " + first_line_of(result.err), kSupported)));
    return result;
}

// `command` with `flags` after its arguments (at the end of its shell text when it is one, each
// flag quoted for the shell), so that they override its own.
Command with_flags(const Command& command, const std::vector<std::string>& flags) {
    Command flagged = command;
    const bool shell = is_shell_argv(flagged.argv);
    for (const auto& flag : flags) {
        if (!shell) {
            flagged.argv.push_back(flag);
            continue;
        }
        std::string quoted = "'";
        for (const char c : flag) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        flagged.argv[2] += " " + quoted + "'";
    }
    return flagged;
}

// A hash of `counts` in order, for the run's content hash: equal counts, equal hashes.
std::uint64_t hash_of_counts(const std::vector<model::Result>& counts) {
    std::uint64_t hash = 0;
    for (const auto& count : counts) hash = hash * 31 + static_cast<std::uint64_t>(count.value);
    return hash;
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

// Every profile part in `scratch`, by process id, leaving out the files that hold `leave_out`
// (when it is not empty): with --separate-threads=yes, a thread's own profile names the
// functions it ran.
std::map<long, std::vector<ingest::CallgrindPart>> read_profiles(const fs::path& scratch,
                                                                 std::string_view leave_out = {}) {
    std::map<long, std::vector<ingest::CallgrindPart>> by_process;
    for (const auto& entry : fs::directory_iterator(scratch)) {
        const auto name = profile_name(entry.path().filename().string());
        // With --separate-threads=yes the process's own file stays empty beside its threads'.
        if (!name.found || !entry.is_regular_file() || entry.file_size() == 0) continue;
        std::ifstream file(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(file)),
                               std::istreambuf_iterator<char>());
        if (!file.good() && !file.eof())
            throw InstrumentError(
                fmt::format("cannot read callgrind's profile {}", entry.path().string()));
        if (!leave_out.empty() && text.find(leave_out) != std::string::npos) continue;
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

std::string stack_padding(const std::vector<std::string>& argv,
                          const std::vector<std::string>& environment, const fs::path& directory) {
    std::size_t total = directory.string().size() + 1;
    for (const auto& word : argv) total += word.size() + 1;
    if (!argv.empty()) total += argv.front().size() + 1;
    for (const auto& variable : environment) total += variable.size() + 1;
    total += kStackPadVariable.size() + 2;  // "=" and the terminating zero
    return std::string((kStackPadMultiple - total % kStackPadMultiple) % kStackPadMultiple, 'x');
}

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
    Command flagged = with_flags(harness, kGoogleBenchmarkFlags);
    flagged.stdout_mode = OutputMode::capture;
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
    counted.content_hash = hash_of_counts(counted.results);
    return counted;
}

namespace {

// Whether one of the programs the words of `harness` name (run::harness_programs()) holds
// `symbol`.
bool names_program_holding(const Command& harness, std::string_view symbol) {
    const auto directory = harness.directory.empty() ? fs::current_path() : harness.directory;
    const auto programs = harness_programs("", command_words(harness.argv), directory);
    return std::any_of(programs.begin(), programs.end(), [&](const fs::path& program) {
        return file_contains(program, symbol, std::numeric_limits<std::size_t>::max());
    });
}

}  // namespace

bool runs_go_test_binary(const Command& harness) {
    return names_program_holding(harness, kGoBenchmarkRunner);
}

bool runs_catch2_binary(const Command& harness) {
    return names_program_holding(harness, kCatch2Runner);
}

ingest::ParsedResults count_catch2(const Command& harness, const fs::path& scratch) {
    Command flagged = with_flags(harness, kCatch2Flags);
    flagged.stdout_mode = OutputMode::capture;
    const auto result = run_instrumented(
        under_callgrind(flagged, scratch, {fmt::format("--dump-after={}", kCatch2Call)}), harness);
    std::vector<ingest::Catch2Row> rows;
    try {
        rows = ingest::catch2_rows(result.out, "the harness's output");
    } catch (const ingest::InputError& error) {
        throw InstrumentError(model::printable_line(
            fmt::format("'{}' printed no Catch2 XML under the instrument ({}); {}",
                        command_text(harness.argv), error.what(), kSupported)));
    }
    // Each benchmark's code is a function of its own, so its calls are the consecutive parts
    // that end where that function returns.
    std::vector<std::vector<const ingest::CallgrindPart*>> calls;
    const auto profiles = read_profiles(scratch);
    for (const auto& [pid, parts] : profiles) {
        if (std::none_of(parts.begin(), parts.end(), [](const auto& part) {
                return part.trigger.starts_with(kCatch2CallTrigger);
            }))
            continue;
        for (const auto& part : parts) {
            if (!part.trigger.starts_with(kCatch2CallTrigger)) continue;
            if (calls.empty() || calls.back().back()->trigger != part.trigger) calls.emplace_back();
            calls.back().push_back(&part);
        }
    }
    std::size_t counted_rows = 0;
    for (const auto& row : rows) counted_rows += !row.failed;
    if (calls.size() != counted_rows)
        throw InstrumentError(fmt::format(
            "callgrind saw {} Catch2 benchmarks call their code where the output lists {}, so "
            "they cannot be matched; the instrument needs a Catch2 test binary whose symbols are "
            "not stripped, and benchmarks of code of their own",
            calls.size(), counted_rows));

    ingest::ParsedResults counted;
    counted.format = "catch2";
    std::size_t next = 0;
    for (const auto& row : rows) {
        const auto name = model::printable_line(row.benchmark);
        if (row.failed) {
            counted.warnings.push_back(
                fmt::format("{} failed under the instrument; not counted", name));
            continue;
        }
        const auto& benchmark = calls[next++];
        const auto samples = static_cast<std::size_t>(std::max<std::int64_t>(row.samples, 0));
        if (benchmark.size() <= samples || row.iterations < 1) {
            counted.warnings.push_back(fmt::format(
                "{} made fewer calls under the instrument than its samples; not counted", name));
            continue;
        }
        // Sizing calls of 1, 2, 4 … iterations come before the samples. The first follows
        // Catch2's measure of its clock, the first sample its warm-up; the others each follow the
        // same few instructions of the sizing loop, so two of them differ by their iterations.
        const std::size_t sizing = benchmark.size() - samples;
        if (sizing >= 3) {
            const auto& small = benchmark[1]->totals;
            const auto& large = benchmark[sizing - 1]->totals;
            std::map<std::string, std::uint64_t, std::less<>> difference;
            for (const auto& [event, count] : large) {
                const auto before = small.find(event);
                const std::uint64_t less = before == small.end() ? 0 : before->second;
                difference[event] = count > less ? count - less : 0;
            }
            const double iterations = std::ldexp(1.0, static_cast<int>(sizing) - 1) - 2;
            add_counts(counted.results, row.benchmark, difference, iterations);
        } else {
            // Too slow under callgrind to be sized more than twice: its last sample, with the few
            // instructions of the sample loop around it.
            add_counts(counted.results, row.benchmark, benchmark.back()->totals,
                       static_cast<double>(row.iterations));
        }
    }
    counted.content_hash = hash_of_counts(counted.results);
    return counted;
}

namespace {

// A Go regular expression that matches `name` alone at each of its '/'-separated levels, as
// -test.bench splits it: "BenchmarkWords/64" gives "^BenchmarkWords$/^64$".
std::string exact_go_benchmark_pattern(std::string_view name) {
    std::string pattern;
    for (const auto level : std::views::split(name, '/')) {
        if (!pattern.empty()) pattern += '/';
        pattern += '^';
        for (const char c : std::string_view(level.begin(), level.end())) {
            if (std::string_view(R"(\.+*?()|[]{}^$)").find(c) != std::string_view::npos)
                pattern += '\\';
            pattern += c;
        }
        pattern += '$';
    }
    return pattern;
}

// The smallest power of two of iterations whose native time, at `nanoseconds` per operation, is
// at least kGoCountedNanoseconds; at least 16 and at most 2^24.
std::int64_t go_counted_iterations(double nanoseconds) {
    std::int64_t iterations = 16;
    while (iterations < (std::int64_t{1} << 24) &&
           static_cast<double>(iterations) * nanoseconds < kGoCountedNanoseconds)
        iterations *= 2;
    return iterations;
}

// The Go runtime's monitor, which wakes on a timer on a thread of its own: the more wall time a
// run takes (a busy machine), the more it runs, so its thread is not counted.
constexpr std::string_view kGoMonitor = "runtime.sysmon";

// The totals of one run of the Go test binary `command` under callgrind, every thread but the
// runtime's monitor's, its profiles written to a new folder `scratch`.
std::map<std::string, std::uint64_t, std::less<>> go_process_totals(const Command& command,
                                                                    const Command& shown,
                                                                    const fs::path& scratch) {
    fs::create_directories(scratch);
    run_instrumented(under_callgrind(command, scratch, {"--separate-threads=yes"}), shown);
    std::map<std::string, std::uint64_t, std::less<>> totals;
    for (const auto& [pid, parts] : read_profiles(scratch, kGoMonitor))
        for (const auto& part : parts)
            for (const auto& [event, count] : part.totals) totals[event] += count;
    return totals;
}

}  // namespace

ingest::ParsedResults count_go_test(const Command& harness, const fs::path& scratch) {
    const std::vector<std::string> common = {"-test.run=^$", "-test.count=1", "-test.cpu=1"};
    auto listing_flags = common;
    listing_flags.push_back("-test.benchtime=10ms");
    auto listing = with_flags(harness, listing_flags);
    listing.stdout_mode = OutputMode::capture;
    const auto listed = run_instrumented(listing, harness, " listing its benchmarks");
    ingest::ParsedResults times;
    try {
        times = ingest::parse(listed.out, "the Go test binary's output", "go");
    } catch (const ingest::InputError& error) {
        throw InstrumentError(model::printable_line(
            fmt::format("'{}' printed no go test benchmark output ({}); {}",
                        command_text(harness.argv), error.what(), kSupported)));
    }

    ingest::ParsedResults counted;
    counted.format = "go";
    counted.warnings = times.warnings;
    std::size_t run = 0;
    for (const auto& timed : times.results) {
        if (timed.metric != "time") continue;
        const auto iterations = go_counted_iterations(timed.value);
        const auto pattern = "-test.bench=" + exact_go_benchmark_pattern(timed.benchmark);
        const auto counted_run = [&](std::int64_t n) {
            auto flags = common;
            flags.push_back(pattern);
            flags.push_back(fmt::format("-test.benchtime={}x", n));
            auto command = with_flags(harness, flags);
            command.stdout_mode = OutputMode::discard;
            auto& debug = command.environment["GODEBUG"];
            debug += debug.empty() ? "asyncpreemptoff=1" : ",asyncpreemptoff=1";
            return go_process_totals(command, harness, scratch / std::to_string(run++));
        };
        // The least of a few runs of each: what differs between runs of one binary only ever
        // adds (memory handed back to the system or not before the set-up allocates again, which
        // decides whether the runtime clears it: 10^6 instructions for 8 MiB), and the short
        // run is cheap.
        const auto least = [&](std::int64_t n, int runs) {
            auto best = counted_run(n);
            for (int again = 1; again < runs; ++again) {
                auto other = counted_run(n);
                if (other["Ir"] < best["Ir"]) best = std::move(other);
            }
            return best;
        };
        const auto few = least(2, 3);
        const auto many = least(2 + iterations, 2);
        const auto difference = [&](std::string_view event) -> std::optional<double> {
            const auto a = few.find(event);
            const auto b = many.find(event);
            if (a == few.end() || b == many.end()) return std::nullopt;
            return (static_cast<double>(b->second) - static_cast<double>(a->second)) /
                   static_cast<double>(iterations);
        };
        const auto instructions = difference("Ir");
        if (!instructions || !(*instructions > 0)) {
            counted.warnings.push_back(fmt::format(
                "{} executed no more instructions in {} more iterations under the instrument; not "
                "counted",
                model::printable_line(timed.benchmark), iterations));
            continue;
        }
        model::Result result;
        result.benchmark = timed.benchmark;
        result.metric = std::string(kInstructionsMetric);
        result.unit = "instr";
        result.value = *instructions;
        counted.results.push_back(result);
        const auto cycles_few = ingest::estimated_cycles(few);
        const auto cycles_many = ingest::estimated_cycles(many);
        if (cycles_few && cycles_many && *cycles_many > *cycles_few) {
            result.metric = std::string(kEstimatedCyclesMetric);
            result.unit = "cycles";
            result.value = (*cycles_many - *cycles_few) / static_cast<double>(iterations);
            counted.results.push_back(result);
        }
    }
    if (counted.results.empty())
        throw InstrumentError(
            model::printable_line(fmt::format("'{}' ran no benchmark under the instrument; {}",
                                              command_text(harness.argv), kSupported)));
    counted.content_hash = hash_of_counts(counted.results);
    return counted;
}

ingest::ParsedResults count_harness(const Command& harness, const fs::path& scratch) {
    const auto words = command_words(harness.argv);
    if (words.size() >= 2 && words[0] == "go" && words[1] == "test")
        throw InstrumentError(model::printable_line(fmt::format(
            "'{}' builds its test binary and runs it as a child, which the instrument does not "
            "count; build the binary first (go test -c -o pkg.test ./pkg) and give it with its "
            "flags (./pkg.test -test.bench=.)",
            command_text(harness.argv))));
    if (runs_go_test_binary(harness)) return count_go_test(harness, scratch);
    if (runs_catch2_binary(harness)) return count_catch2(harness, scratch);
    return count_google_benchmark(harness, scratch);
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
