#include "run/environment.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <array>
#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "run/timed_process.hpp"
#include "vcs/git.hpp"

namespace benchwatch::run {

namespace {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

// The whole file, or std::nullopt when it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return std::nullopt;
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

// Calls `visit` with each line of `text`, without its newline, and its 1-based number.
template <typename Visit>
void for_each_line(std::string_view text, Visit visit) {
    int number = 0;
    while (!text.empty()) {
        const auto end = text.find('\n');
        visit(text.substr(0, end), ++number);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
}

std::string first_line(std::string_view text) {
    return std::string(trim(text.substr(0, text.find('\n'))));
}

// The first line of `argv`'s stdout (or stderr, where some tools print their version), or
// std::nullopt when it is missing, fails or takes longer than `timeout`.
std::optional<std::string> first_output_line(const std::vector<std::string>& argv,
                                             std::chrono::duration<double> timeout) {
    try {
        const auto result = run_timed(Command{.argv = argv, .timeout = timeout});
        if (!result.succeeded()) return std::nullopt;
        auto line = first_line(result.out.empty() ? result.err : result.out);
        if (line.empty()) return std::nullopt;
        return line;
    } catch (const StartError&) {
        return std::nullopt;
    }
}

}  // namespace

std::optional<std::string> os_release_value(std::string_view os_release, std::string_view key) {
    std::optional<std::string> value;
    for_each_line(os_release, [&](std::string_view line, int) {
        if (value) return;
        const auto equals = line.find('=');
        if (equals == std::string_view::npos || trim(line.substr(0, equals)) != key) return;
        auto text = trim(line.substr(equals + 1));
        if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
            text.back() == text.front()) {
            text = text.substr(1, text.size() - 2);
        }
        value = std::string(text);
    });
    return value;
}

std::optional<std::string> proc_field(std::string_view text, std::string_view field) {
    std::optional<std::string> value;
    for_each_line(text, [&](std::string_view line, int) {
        if (value) return;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || trim(line.substr(0, colon)) != field) return;
        value = std::string(trim(line.substr(colon + 1)));
    });
    return value;
}

std::optional<std::string> memory_in_gib(std::string_view mem_total) {
    const auto text = trim(mem_total);
    std::int64_t kibibytes = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), kibibytes);
    if (error != std::errc{} || trim(std::string_view(end, text.data() + text.size())) != "kB")
        return std::nullopt;
    return fmt::format("{:.1f} GiB", static_cast<double>(kibibytes) / (1024.0 * 1024.0));
}

std::optional<int> count_cpu_list(std::string_view cpu_list) {
    int count = 0;
    std::string_view rest = trim(cpu_list);
    if (rest.empty()) return std::nullopt;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const auto range = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        const auto dash = range.find('-');
        int first = 0;
        int last = 0;
        const auto first_text = range.substr(0, dash);
        if (std::from_chars(first_text.data(), first_text.data() + first_text.size(), first).ec !=
            std::errc{})
            return std::nullopt;
        last = first;
        if (dash != std::string_view::npos) {
            const auto last_text = range.substr(dash + 1);
            if (std::from_chars(last_text.data(), last_text.data() + last_text.size(), last).ec !=
                    std::errc{} ||
                last < first)
                return std::nullopt;
        }
        count += last - first + 1;
    }
    return count;
}

model::Environment machine_environment(const SystemPaths& paths) {
    model::Environment environment;
    if (auto os_release = read_file(paths.etc / "os-release")) {
        if (auto name = os_release_value(*os_release, "PRETTY_NAME")) environment["os"] = *name;
    }
    utsname system{};
    const bool have_uname = ::uname(&system) == 0;
    if (auto release = read_file(paths.proc / "sys/kernel/osrelease")) {
        environment["kernel"] = first_line(*release);
    } else if (have_uname) {
        environment["kernel"] = system.release;
    }
    if (have_uname) environment["arch"] = system.machine;
    if (auto cpuinfo = read_file(paths.proc / "cpuinfo")) {
        if (auto model = proc_field(*cpuinfo, "model name")) environment["cpu"] = *model;
    }
    if (auto online = read_file(paths.sys / "devices/system/cpu/online")) {
        if (auto cores = count_cpu_list(*online)) environment["cores"] = std::to_string(*cores);
    }
    if (auto meminfo = read_file(paths.proc / "meminfo")) {
        if (auto total = proc_field(*meminfo, "MemTotal")) {
            if (auto memory = memory_in_gib(*total)) environment["memory"] = *memory;
        }
    }
    return environment;
}

std::vector<std::string> default_compilers(std::span<const std::vector<std::string>> commands) {
    static const std::map<std::string_view, std::string_view> toolchain_of = {
        {"go", "go"},           {"cargo", "rustc"},    {"rustc", "rustc"}, {"python", "python3"},
        {"python3", "python3"}, {"pytest", "python3"}, {"asv", "python3"}, {"julia", "julia"},
        {"java", "java"},       {"mvn", "java"},       {"gradle", "java"}, {"gradlew", "java"},
        {"dotnet", "dotnet"},
    };
    std::set<std::string> compilers;
    for (const auto& argv : commands) {
        if (argv.empty()) continue;
        const auto program = std::filesystem::path(argv.front()).filename().string();
        if (const auto found = toolchain_of.find(program); found != toolchain_of.end())
            compilers.insert(std::string(found->second));
        else
            compilers.insert({"gcc", "g++", "clang", "clang++"});
    }
    return {compilers.begin(), compilers.end()};
}

model::Environment compiler_environment(std::span<const std::string> compilers,
                                        std::chrono::duration<double> timeout) {
    model::Environment environment;
    for (const auto& name : compilers) {
        const std::string_view flag = name == "go"     ? "version"
                                      : name == "java" ? "-version"
                                                       : "--version";
        try {
            const auto result =
                run_timed(Command{.argv = {name, std::string(flag)}, .timeout = timeout});
            if (!result.succeeded()) continue;
            if (auto version = model::version_in(result.out.empty() ? result.err : result.out))
                environment[std::string(model::compiler_key_prefix) + name] = *version;
        } catch (const StartError&) {
            // not on PATH: no key
        }
    }
    return environment;
}

model::Environment gpu_environment(std::chrono::duration<double> timeout) {
    model::Environment environment;
    if (auto line = first_output_line(
            {"nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"}, timeout)) {
        const auto comma = line->rfind(',');
        environment["gpu"] = std::string(trim(std::string_view(*line).substr(0, comma)));
        if (comma != std::string::npos)
            environment["gpu.driver"] =
                std::string(trim(std::string_view(*line).substr(comma + 1)));
        return environment;
    }
    try {
        const auto result =
            run_timed(Command{.argv = {"rocm-smi", "--showproductname"}, .timeout = timeout});
        if (!result.succeeded()) return environment;
        for_each_line(result.out, [&](std::string_view text, int) {
            const auto marker = text.find("Card series:");
            if (marker == std::string_view::npos || environment.contains("gpu")) return;
            environment["gpu"] = std::string(trim(text.substr(marker + 12)));
        });
    } catch (const StartError&) {
        // no rocm-smi on PATH: no GPU keys
    }
    return environment;
}

model::Environment git_environment(const std::filesystem::path& directory) {
    model::Environment environment;
    try {
        if (auto repository = vcs::Repository::open(directory)) {
            environment["git.dirty"] = repository->dirty() ? "yes" : "no";
        }
    } catch (const vcs::GitError&) {
        // git failing leaves the key out rather than stopping the run
    }
    return environment;
}

model::Environment capture_environment(const std::filesystem::path& directory,
                                       std::span<const std::string> compilers,
                                       const SystemPaths& paths) {
    auto environment = machine_environment(paths);
    environment.merge(compiler_environment(compilers));
    environment.merge(gpu_environment());
    environment.merge(git_environment(directory));
    return environment;
}

model::Environment parse_environment_lines(std::string_view output) {
    model::Environment environment;
    for_each_line(output, [&](std::string_view line, int number) {
        if (trim(line).empty()) return;
        const auto equals = line.find('=');
        if (equals == std::string_view::npos || trim(line.substr(0, equals)).empty()) {
            throw EnvCommandError(fmt::format("--env-command output line {} is not KEY=VALUE: '{}'",
                                              number, trim(line)));
        }
        environment[std::string(trim(line.substr(0, equals)))] =
            std::string(trim(line.substr(equals + 1)));
    });
    return environment;
}

model::Environment environment_from_command(std::string_view command_text,
                                            const std::filesystem::path& directory,
                                            std::chrono::duration<double> timeout) {
    const Command command{
        .argv = shell_argv(command_text), .directory = directory, .timeout = timeout};
    TimedResult result;
    try {
        result = run_timed(command);
    } catch (const StartError& error) {
        throw EnvCommandError(fmt::format("--env-command '{}': {}", command_text, error.what()));
    }
    if (!result.succeeded()) {
        const auto reason = first_line(result.err);
        throw EnvCommandError(fmt::format("--env-command '{}' failed: {}{}{}", command_text,
                                          describe_failure(result, command),
                                          reason.empty() ? "" : ": ", reason));
    }
    return parse_environment_lines(result.out);
}

}  // namespace benchwatch::run
