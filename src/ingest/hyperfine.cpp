#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// One element of "results", in seconds as hyperfine writes them.
struct Command {
    std::string name;
    std::vector<double> times;
    std::optional<double> min;
    std::optional<double> user;
    std::optional<double> system;
    int failed_runs = 0;
};

class HyperfineReader {
  public:
    explicit HyperfineReader(JsonInput& input) : input_(input) {}

    ParsedResults read() {
        parsed_.format = "hyperfine";
        input_.for_each_in_root_array(
            "results", [&](ondemand::value& command) { add(read_command(command)); });
        return std::move(parsed_);
    }

  private:
    Command read_command(ondemand::value& value) {
        input_.expect(value, ondemand::json_type::object, "an element of \"results\"");
        const char* const start = input_.where(value);
        Command command;
        bool named = false;
        for (auto field : value.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "command") {
                command.name = std::string(input_.string(item, "\"command\""));
                named = true;
            } else if (key == "times") {
                input_.expect(item, ondemand::json_type::array, "\"times\"");
                for (auto time : item.get_array()) {
                    ondemand::value seconds = time.value();
                    command.times.push_back(input_.number(seconds, "a run time"));
                }
            } else if (key == "min") {
                command.min = input_.number(item, "\"min\"");
            } else if (key == "user") {
                command.user = input_.number_or_null(item, "\"user\"");
            } else if (key == "system") {
                command.system = input_.number_or_null(item, "\"system\"");
            } else if (key == "exit_codes") {
                command.failed_runs = count_failures(item);
            }
        }
        if (!named) input_.fail_at(start, "expected a \"command\" in each element of \"results\"");
        if (command.times.empty() && !command.min)
            input_.fail_at(
                start, fmt::format("command '{}': expected \"times\" or \"min\"", command.name));
        return command;
    }

    // Runs whose exit code is not 0; hyperfine writes null for a run ended by a signal.
    int count_failures(ondemand::value& codes) {
        input_.expect(codes, ondemand::json_type::array, "\"exit_codes\"");
        int failures = 0;
        for (auto element : codes.get_array()) {
            ondemand::value code = element.value();
            const auto exit_code = input_.number_or_null(code, "an exit code");
            if (!exit_code || *exit_code != 0) ++failures;
        }
        return failures;
    }

    void add(const Command& command) {
        if (!names_.insert(command.name).second)
            input_.fail(
                fmt::format("benchmark '{}' appears twice; give each run its own --command-name",
                            command.name));
        if (command.failed_runs > 0)
            parsed_.warnings.push_back(fmt::format(
                "{}: benchmark '{}': {} of its runs exited with a failure (hyperfine -i)",
                input_.source(), command.name, command.failed_runs));
        model::Result result;
        result.benchmark = command.name;
        if (command.times.empty()) {
            result.value = *command.min * nanoseconds_per_second;
        } else {
            std::vector<double> nanoseconds;
            for (double seconds : command.times)
                nanoseconds.push_back(seconds * nanoseconds_per_second);
            result.value = *std::min_element(nanoseconds.begin(), nanoseconds.end());
            for (double time : nanoseconds) check_positive_time(input_, command.name, time);
            result.samples = summarize(nanoseconds);
        }
        check_positive_time(input_, command.name, result.value);
        if (command.user) result.user_time = *command.user * nanoseconds_per_second;
        if (command.system) result.system_time = *command.system * nanoseconds_per_second;
        parsed_.results.push_back(std::move(result));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    std::unordered_set<std::string> names_;
};

// hyperfine writes {"results": [{"command", "mean", …, "times": […]}…]}: the file is ours when
// the first result has a "command" and "times" or "mean".
Claim detect_hyperfine(const Probe& probe) {
    const auto keys = first_element_keys(probe, "results");
    if (!keys) return {};
    const auto has = [&](std::string_view key) {
        return std::find(keys->begin(), keys->end(), key) != keys->end();
    };
    if (has("command") && (has("times") || has("mean"))) return {true, {}};
    return {false, "a JSON object whose \"results\" are not hyperfine's commands with times"};
}

ParsedResults read_hyperfine(JsonInput& input) {
    return HyperfineReader(input).read();
}

}  // namespace

const Reader hyperfine_reader{
    .name = "hyperfine", .detect = detect_hyperfine, .parse_json = read_hyperfine};

}  // namespace benchwatch::ingest::detail
