#include "run/stability.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string_view>
#include <thread>

namespace benchwatch::run {

namespace {

// The number in "cpu12"; std::nullopt for names such as "cpufreq" or "cpuidle".
std::optional<int> cpu_number(std::string_view name) {
    if (!name.starts_with("cpu") || name.size() == 3) return std::nullopt;
    int number = 0;
    const auto digits = name.substr(3);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    return number;
}

}  // namespace

const char* to_string(StabilityIssue issue) {
    switch (issue) {
        case StabilityIssue::CpuGovernor:
            return "cpu-governor";
        case StabilityIssue::HighLoad:
            return "high-load";
        case StabilityIssue::DebugHarness:
            return "debug-harness";
        case StabilityIssue::FewSamples:
            return "few-samples";
    }
    assert(false && "unknown StabilityIssue");
    return "";
}

std::vector<StabilityWarning> governor_warnings(const std::vector<std::string>& governors) {
    std::map<std::string, int> cpus_per_governor;
    for (const auto& governor : governors) {
        if (governor != "performance") ++cpus_per_governor[governor];
    }
    std::vector<StabilityWarning> warnings;
    for (const auto& [governor, cpus] : cpus_per_governor) {
        warnings.push_back(
            {StabilityIssue::CpuGovernor,
             fmt::format("{} of {} CPUs {} the '{}' frequency governor, which lets the clock "
                         "speed change during a run; switch to 'performance' with "
                         "`sudo cpupower frequency-set -g performance`.",
                         cpus, governors.size(), cpus == 1 ? "uses" : "use", governor)});
    }
    return warnings;
}

std::optional<double> read_machine_busy_seconds(const std::filesystem::path& proc) {
    std::ifstream file(proc / "stat");
    std::string label;
    // user nice system idle iowait irq softirq steal; guest time is counted in user already.
    std::array<unsigned long long, 8> ticks{};
    if (!(file >> label) || label != "cpu") return std::nullopt;
    for (auto& tick : ticks)
        if (!(file >> tick)) return std::nullopt;
    const long per_second = ::sysconf(_SC_CLK_TCK);
    if (per_second <= 0) return std::nullopt;
    const auto busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
    return static_cast<double>(busy) / static_cast<double>(per_second);
}

CpuReading read_cpu(const std::filesystem::path& proc) {
    const auto seconds = [](const struct rusage& usage) {
        return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    };
    struct rusage self {};
    struct rusage children {};
    ::getrusage(RUSAGE_SELF, &self);
    ::getrusage(RUSAGE_CHILDREN, &children);
    const long per_second = ::sysconf(_SC_CLK_TCK);
    const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    return CpuReading{
        read_machine_busy_seconds(proc), seconds(self) + seconds(children),
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
        per_second > 0 ? static_cast<double>(cores + 1) / static_cast<double>(per_second) : 0.0};
}

std::optional<double> competing_cores(const CpuReading& before, const CpuReading& after) {
    const double wall = after.wall_seconds - before.wall_seconds;
    if (!before.machine_busy_seconds || !after.machine_busy_seconds || !(wall > 0))
        return std::nullopt;
    const double others = (*after.machine_busy_seconds - *before.machine_busy_seconds) -
                          (after.own_seconds - before.own_seconds) -
                          after.machine_resolution_seconds;
    return std::max(0.0, others / wall);
}

std::optional<StabilityWarning> competing_work_since(const CpuReading& before) {
    const auto busy = competing_cores(before, read_cpu());
    if (!busy) return std::nullopt;
    return competing_work_warning(
        *busy, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

std::optional<StabilityWarning> competing_work_warning(double busy_cores, int cores) {
    if (busy_cores <= std::max(kCompetingShare * cores, kCompetingCoresFloor)) return std::nullopt;
    return StabilityWarning{
        StabilityIssue::HighLoad,
        fmt::format("Other work kept {:.1f} of {} cores busy while the benchmarks ran; stop it, or "
                    "measure base and head side by side (benchwatch compare --paired), so that it "
                    "does not compete with the benchmarks.",
                    busy_cores, cores)};
}

bool file_contains(const std::filesystem::path& path, std::string_view needle, std::size_t limit) {
    if (needle.empty()) return false;
    // O_NONBLOCK: a FIFO named as the program must not hang the run; it is refused below.
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (descriptor < 0) return false;
    struct stat status {};
    bool found = false;
    if (::fstat(descriptor, &status) == 0 && S_ISREG(status.st_mode)) {
        const std::size_t searched_bytes = limit;
        std::string window;
        std::vector<char> buffer(std::size_t{1} << 16);
        std::size_t read_so_far = 0;
        while (!found && read_so_far < searched_bytes) {
            const ssize_t got = ::read(descriptor, buffer.data(), buffer.size());
            if (got <= 0) break;
            read_so_far += static_cast<std::size_t>(got);
            // The last needle.size() - 1 bytes of the previous block, so that a name cut by the
            // block's end is still found.
            window.append(buffer.data(), static_cast<std::size_t>(got));
            found = window.find(needle) != std::string::npos;
            window.erase(0, window.size() - std::min(window.size(), needle.size() - 1));
        }
    }
    ::close(descriptor);
    return found;
}

bool links_debian_google_benchmark(const std::filesystem::path& program) {
    return file_contains(program, debian_google_benchmark_soname, std::size_t{8} << 20);
}

std::vector<std::filesystem::path> harness_programs(std::string_view reported,
                                                    const std::vector<std::string>& words,
                                                    const std::filesystem::path& directory) {
    std::vector<std::filesystem::path> programs;
    if (!reported.empty()) programs.push_back(directory / std::filesystem::path(reported));
    for (const auto& word : words) {
        if (!word.empty()) programs.push_back(directory / word);
    }
    if (!words.empty() && !words.front().empty() && words.front().find('/') == std::string::npos) {
        if (const char* path = std::getenv("PATH")) {
            std::string_view folders = path;
            while (!folders.empty()) {
                const auto colon = folders.find(':');
                const auto folder = folders.substr(0, colon);
                if (!folder.empty())
                    programs.push_back(std::filesystem::path(folder) / words.front());
                if (colon == std::string_view::npos) break;
                folders.remove_prefix(colon + 1);
            }
        }
    }
    return programs;
}

std::optional<StabilityWarning> harness_warning(
    const model::Environment& context, const std::vector<std::filesystem::path>& programs) {
    const auto build_type = context.find("gbench.library_build_type");
    if (build_type == context.end() || build_type->second != "debug") return std::nullopt;
    if (std::any_of(programs.begin(), programs.end(), links_debian_google_benchmark))
        return std::nullopt;
    return StabilityWarning{StabilityIssue::DebugHarness,
                            "Google Benchmark's library is a debug build (compiled without "
                            "NDEBUG); build it and the benchmarks with "
                            "-DCMAKE_BUILD_TYPE=Release so that the times are representative."};
}

std::vector<StabilityWarning> run_warnings(std::vector<StabilityWarning> machine,
                                           const model::Environment& context,
                                           const std::vector<std::filesystem::path>& programs,
                                           const std::vector<model::Result>& results) {
    if (auto warning = harness_warning(context, programs)) machine.push_back(*warning);
    if (auto warning = sample_warning(results)) machine.push_back(*warning);
    return machine;
}

std::optional<StabilityWarning> sample_warning(const std::vector<model::Result>& results) {
    std::vector<std::string_view> few;
    for (const auto& result : results) {
        if (result.samples && result.samples->count < minimum_samples)
            few.push_back(result.benchmark);
    }
    if (few.empty()) return std::nullopt;
    constexpr std::size_t named = 3;
    std::string names =
        fmt::format("{}", fmt::join(few.begin(), few.begin() + std::min(named, few.size()), ", "));
    if (few.size() > named) names += fmt::format(" and {} more", few.size() - named);
    const bool one = few.size() == 1;
    const auto subject =
        one ? std::string("1 benchmark has") : fmt::format("{} benchmarks have", few.size());
    return StabilityWarning{
        StabilityIssue::FewSamples,
        fmt::format("{} fewer than {} samples ({}); run the harness {} times "
                    "(benchwatch run --repetitions {}) or have it repeat each benchmark (Google "
                    "Benchmark: --benchmark_repetitions={}) so that the minimum is meaningful.",
                    subject, minimum_samples, names, minimum_samples, minimum_samples,
                    minimum_samples)};
}

std::vector<std::string> read_governors(const std::filesystem::path& sys) {
    const auto cpu_folder = sys / "devices/system/cpu";
    std::error_code error;
    std::vector<std::pair<int, std::string>> found;
    for (const auto& entry : std::filesystem::directory_iterator(cpu_folder, error)) {
        const auto number = cpu_number(entry.path().filename().string());
        if (!number) continue;
        std::ifstream file(entry.path() / "cpufreq/scaling_governor");
        std::string governor;
        if (file >> governor) found.emplace_back(*number, governor);
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> governors;
    for (auto& [number, governor] : found) governors.push_back(std::move(governor));
    return governors;
}

std::vector<StabilityWarning> machine_warnings(const std::filesystem::path& sys) {
    return governor_warnings(read_governors(sys));
}

}  // namespace benchwatch::run
