#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "compare/compare.hpp"
#include "report/report.hpp"

namespace benchwatch::cli {

namespace {

std::string read_whole_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file)
        throw UsageError(
            fmt::format("cannot read the report {}; write it with `benchwatch compare --output {}`",
                        path, path));
    return text.str();
}

bool looks_like_json(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && text[first] == '{';
}

// A report written before re-measuring settled its verdicts is settled as it is read, so that
// every forge command counts what was confirmed.
model::Comparison parse_comparison(std::string_view text, const std::string& path) {
    auto comparison = report::read_json(text, path);
    compare::settle_by_confirmation(comparison);
    return comparison;
}

}  // namespace

bool is_json_report_file(const std::string& report_path) {
    return looks_like_json(read_whole_file(report_path));
}

model::Comparison read_comparison_file(const std::string& report_path) {
    return parse_comparison(read_whole_file(report_path), report_path);
}

std::string resolve_report_project(const CommonFlags& flags, const std::string& report_path,
                                   const Context& context) {
    if (flags.project.empty() && !report_path.empty()) {
        const auto text = read_whole_file(report_path);
        if (looks_like_json(text)) return parse_comparison(text, report_path).project;
    }
    return resolve_project(flags, context);
}

std::string forge_report_markdown(const ComparisonFlags& flags, const std::string& report_path,
                                  const std::string& head, const Context& context,
                                  std::size_t max_characters,
                                  const std::function<void(model::Comparison&)>& amend) {
    std::ostringstream out;
    const auto rendered = [&](model::Comparison comparison) {
        if (amend) amend(comparison);
        report::render_markdown_limited(comparison, out, max_characters);
        return out.str();
    };
    if (report_path.empty()) return rendered(compare_head(flags, head, context));
    auto text = read_whole_file(report_path);
    if (!looks_like_json(text)) return text;
    return rendered(parse_comparison(text, report_path));
}

std::string resolve_accept_label(const std::optional<std::string>& flag, const Context& context) {
    if (flag) return *flag;
    return context.config.accept_label.value_or("performance-accepted");
}

void set_acceptance_from_forge(model::Comparison& comparison, const std::string& label,
                               const std::function<std::optional<model::Acceptance>()>& ask_forge) {
    comparison.accepted.reset();
    if (label.empty() || !anything_slower(comparison)) return;
    try {
        comparison.accepted = ask_forge();
    } catch (const model::Error& error) {
        std::cerr << fmt::format("warning: the label {} was not looked for: {}\n", label,
                                 error.what());
    }
}

std::optional<model::Acceptance> acceptance_from_ci(const model::Comparison& comparison,
                                                    const std::string& label) {
    if (label.empty() || !anything_slower(comparison)) return std::nullopt;
    if (const auto labels = environment_variable("CI_MERGE_REQUEST_LABELS")) {
        // GitLab joins the merge request's labels with commas; a label cannot contain one.
        std::string_view rest = *labels;
        while (!rest.empty()) {
            const auto comma = rest.find(',');
            if (rest.substr(0, comma) == label) return model::Acceptance{label, ""};
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
    }
    const auto event_path = environment_variable("GITHUB_EVENT_PATH");
    if (!event_path) return std::nullopt;
    std::ifstream file(*event_path, std::ios::binary);
    const auto event = nlohmann::json::parse(file, nullptr, false);
    const nlohmann::json::json_pointer labels_at("/pull_request/labels");
    if (!event.is_object() || !event.contains(labels_at) || !event[labels_at].is_array())
        return std::nullopt;
    for (const auto& each : event[labels_at]) {
        if (!each.is_object() || each.value("name", nlohmann::json()) != label) continue;
        model::Acceptance acceptance{label, ""};
        const nlohmann::json::json_pointer labelled("/label/name");
        const nlohmann::json::json_pointer sender("/sender/login");
        if (event.value("action", "") == "labeled" && event.contains(labelled) &&
            event[labelled] == label && event.contains(sender) && event[sender].is_string())
            acceptance.by = event[sender].get<std::string>();
        return acceptance;
    }
    return std::nullopt;
}

}  // namespace benchwatch::cli
