#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/ingest.hpp"
#include "model/error.hpp"
#include "model/result.hpp"
#include "run/timed_process.hpp"

namespace benchwatch::run {

// The instrument could not count: valgrind is missing, the harness is not one it supports, or
// its profile could not be matched with the benchmarks. what() is one line saying what to do.
class InstrumentError : public model::Error {
  public:
    explicit InstrumentError(const std::string& message)
        : Error(model::ErrorKind::Measurement, message) {}
};

// The metrics an instrument records (model::is_counted_metric()): the instructions of one
// iteration (or of a whole process), and the cycles estimated from them and callgrind's cache
// simulation.
inline constexpr std::string_view kInstructionsMetric = "instructions";
inline constexpr std::string_view kEstimatedCyclesMetric = "estimated_cycles";

// A folder of its own under the system's temporary folder for callgrind's profiles, removed with
// what it holds when this ends. Throws InstrumentError when it cannot be made.
class ScratchFolder {
  public:
    ScratchFolder();
    ~ScratchFolder();
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// The version of the valgrind on PATH, e.g. "3.19.0". Throws InstrumentError saying how to
// install it when there is none.
std::string valgrind_version();

// Runs the Google Benchmark harness `harness` once under valgrind's callgrind, with the cache
// simulation, and counts each benchmark's timed loop: a profile part is cut where the loop starts
// (benchmark::State::StartKeepRunning returns) and where it ends (FinishKeepRunning is called),
// so that set-up outside the loop is left out. The harness's arguments get
// --benchmark_min_time small enough for one trial per repetition and two repetitions, the first
// of which warms up (lazy binding, first-use allocations); each benchmark's count is its last
// repetition's loop divided by the iterations that ran. The environment is cleared to PATH,
// LC_ALL=C, LD_BIND_NOW=1 and `harness.environment`, so that the process starts the same way
// every time; callgrind's files go to `scratch`. Multi-threaded benchmarks, and those that
// failed or were skipped, are left out with a warning. The results are instructions and
// estimated_cycles per benchmark, format "googlebenchmark", the content hash over the counts.
// valgrind must be on PATH (valgrind_version() says how to install it otherwise). Throws
// InstrumentError when the harness fails or prints no Google Benchmark output, or its loops
// cannot be matched with its rows.
ingest::ParsedResults count_google_benchmark(const Command& harness,
                                             const std::filesystem::path& scratch);

// Whether `harness` runs a Go test binary (built by `go test -c`): one of the programs its words
// name, as run::harness_programs() finds them from its directory, holds the Go testing package's
// benchmark runner.
bool runs_go_test_binary(const Command& harness);

// Counts each benchmark of the Go test binary `harness` runs (its own -test.bench and other flags
// kept, later flags appended): a first run without the instrument lists the benchmarks and their
// times per operation, then each benchmark runs alone under callgrind with the cache simulation,
// with -test.benchtime of 2 (three times, the least kept) and of 2 + d iterations, d a power of two
// making about kGoCountedNanoseconds of its operations. Its counts per iteration are the
// difference of the two runs' totals over d, every thread counted but the runtime's monitor's
// (runtime.sysmon wakes on a timer, so runs the more the longer a run takes). The Go runtime's
// other work (start-up, the scheduler, the collector paced by the clock) does not follow the
// benchmark's iterations and so cancels out, up to some 10^5 instructions between runs (10^6 now
// and then on a busy machine), which d spreads thin. Runs with GOMAXPROCS 1 (-test.cpu=1) and
// asynchronous preemption off (GODEBUG=asyncpreemptoff=1: its signals stop callgrind), the
// environment cleared as count_google_benchmark() clears it. The results are instructions and
// estimated_cycles per benchmark, named as the go reader names them, format "go". Throws
// InstrumentError when the binary fails or prints no benchmark.
ingest::ParsedResults count_go_test(const Command& harness, const std::filesystem::path& scratch);

// The native time of the iterations count_go_test() adds in its second run: 50 ms, some 10^8
// instructions, so that the runtime's ±10^5 moves a count by about 0.1%.
inline constexpr double kGoCountedNanoseconds = 50e6;

// Whether `harness` runs a Catch2 (v2) test binary with benchmarks: one of the programs its words
// name holds the symbol of Catch2's benchmark runner, Catch::Benchmark::Benchmark::run.
bool runs_catch2_binary(const Command& harness);

// Runs the Catch2 test binary `harness` once under callgrind with the cache simulation (its own
// arguments kept; --benchmark-samples 2, --benchmark-warmup-time 100, --benchmark-no-analysis
// and -r xml appended) and counts each benchmark's code. Catch2 runs a benchmark's code through a
// function of its own (a Catch::Benchmark::Detail::BenchmarkFunction model's call), which reads
// the clock, calls the code n times and reads the clock again; the profile is cut where it
// returns. Before its samples Catch2 sizes them with calls of 1, 2, 4 … iterations; every sizing
// call but the first follows the same few instructions of the sizing loop, so the last sizing
// call's cost less the second's, over the difference of their iterations, is the code's count per
// iteration. Catch2 sizes for at least the warm-up time, so 100 ms under callgrind gives the last
// sizing call hundreds of iterations or more, over which the few instructions a clock read adds
// now and then (its retry when the kernel updates the time) vanish. A benchmark sized fewer than
// three times (too slow under callgrind) is counted from its last sample over its iterations, the
// sample loop's few instructions included. The environment is cleared as count_google_benchmark()
// clears it. The results are instructions and estimated_cycles per benchmark, named as the catch2
// reader names them, format "catch2". Throws InstrumentError when the binary fails or its calls
// cannot be matched with its benchmarks (a stripped binary; two benchmarks in a row of one
// function, as a loop makes them).
ingest::ParsedResults count_catch2(const Command& harness, const std::filesystem::path& scratch);

// The variable whose value pads the strings at the top of a counted program's stack.
inline constexpr std::string_view kStackPadVariable = "BENCHWATCH_STACK_PAD";

// The value of kStackPadVariable that brings the strings a program starts with to a multiple of
// 4096 bytes (a page, so that every address below them, and every cache set they map to, is the
// same from one run to the next): its arguments `argv` and environment `environment` (without
// the pad), each with its terminating zero, the program's path a second time (the kernel's
// AT_EXECFN beside argv[0]) and the working directory `directory`, which valgrind places there
// too. Example: argv {"/bin/prog", "-x"}, environment {"PATH=/usr/bin", "LC_ALL=C"} and
// directory "/tmp/w" take 7 + 2 × 10 + 3 + 14 + 9 + 22 (the pad's own name, "=" and zero) = 75
// bytes, so the pad is 4,021 'x'.
std::string stack_padding(const std::vector<std::string>& argv,
                          const std::vector<std::string>& environment,
                          const std::filesystem::path& directory);

// Counts `harness` with count_go_test() when it runs a Go test binary (runs_go_test_binary()),
// with count_catch2() when it runs a Catch2 one (runs_catch2_binary()), else with
// count_google_benchmark(); refuses `go test` itself, which builds and runs the binary
// as a child, with a line saying to build the binary first.
ingest::ParsedResults count_harness(const Command& harness, const std::filesystem::path& scratch);

// Runs `command` once under callgrind with the cache simulation, its child processes followed,
// and returns the instructions and estimated cycles of all of it as two results of
// `benchmark`. The environment is cleared as count_google_benchmark() clears it. valgrind must be
// on PATH. Throws InstrumentError when the command fails.
std::vector<model::Result> count_command(const Command& command, const std::string& benchmark,
                                         const std::filesystem::path& scratch);

}  // namespace benchwatch::run
