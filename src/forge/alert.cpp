#include "forge/alert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace benchwatch::forge {

namespace {

constexpr std::string_view alert_marker_start = "<!-- benchwatch-alert ";
constexpr std::string_view alert_marker_end = " -->";

bool kept_in_marker(char character) {
    const auto byte = static_cast<unsigned char>(character);
    return (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
           (byte >= '0' && byte <= '9') ||
           std::string_view("._~/:+@").find(character) != std::string_view::npos;
}

std::string marker_value(std::string_view value) {
    std::string encoded;
    for (const char character : value) {
        if (kept_in_marker(character))
            encoded += character;
        else
            encoded += fmt::format("%{:02X}", static_cast<unsigned char>(character));
    }
    return encoded;
}

int hex_digit(char character) {
    if (character >= '0' && character <= '9') return character - '0';
    if (character >= 'A' && character <= 'F') return character - 'A' + 10;
    if (character >= 'a' && character <= 'f') return character - 'a' + 10;
    return -1;
}

std::optional<std::string> decoded_value(std::string_view value) {
    std::string decoded;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] != '%') {
            if (!kept_in_marker(value[i])) return std::nullopt;
            decoded += value[i];
            continue;
        }
        if (i + 2 >= value.size()) return std::nullopt;
        const int high = hex_digit(value[i + 1]);
        const int low = hex_digit(value[i + 2]);
        if (high < 0 || low < 0) return std::nullopt;
        decoded += static_cast<char>(high * 16 + low);
        i += 2;
    }
    return decoded;
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    while (true) {
        const auto end = text.find(separator);
        parts.emplace_back(text.substr(0, end));
        if (end == std::string_view::npos) return parts;
        text.remove_prefix(end + 1);
    }
}

std::vector<std::string> with_machine(std::vector<std::string> machines,
                                      const std::string& machine) {
    if (std::find(machines.begin(), machines.end(), machine) == machines.end())
        machines.push_back(machine);
    std::sort(machines.begin(), machines.end());
    return machines;
}

// `body` with its first line replaced by `marker`'s.
std::string remarked(const std::string& body, const AlertMarker& marker) {
    const auto end = body.find('\n');
    return alert_marker(marker) + (end == std::string::npos ? "" : body.substr(end));
}

}  // namespace

std::string query_value(std::string_view value) {
    std::string encoded;
    for (const char character : value) {
        const auto byte = static_cast<unsigned char>(character);
        if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
            (byte >= '0' && byte <= '9') || character == '-' || character == '.' ||
            character == '_' || character == '~')
            encoded += character;
        else
            encoded += fmt::format("%{:02X}", byte);
    }
    return encoded;
}

std::string alert_marker(const AlertMarker& marker) {
    const auto& key = marker.key;
    std::string line(alert_marker_start);
    line += "project=" + marker_value(key.project);
    line += std::string(" kind=") + model::to_string(key.kind);
    if (key.kind == model::AlertKind::Step) {
        line += " benchmark=" + marker_value(key.benchmark);
        line += " metric=" + marker_value(key.metric);
    }
    line += " before=" + marker_value(key.before_commit);
    line += " after=" + marker_value(key.after_commit);
    std::vector<std::string> machines;
    for (const auto& machine : marker.machines) machines.push_back(marker_value(machine));
    line += fmt::format(" machines={}", fmt::join(machines, ","));
    return line.append(alert_marker_end);
}

std::optional<AlertMarker> parse_alert_marker(std::string_view body) {
    auto line = body.substr(0, body.find('\n'));
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!line.starts_with(alert_marker_start) || !line.ends_with(alert_marker_end))
        return std::nullopt;
    line.remove_prefix(alert_marker_start.size());
    line.remove_suffix(alert_marker_end.size());
    std::map<std::string, std::string> fields;
    for (const auto& field : split(line, ' ')) {
        const auto equals = field.find('=');
        if (equals == std::string::npos) return std::nullopt;
        if (!fields.emplace(field.substr(0, equals), field.substr(equals + 1)).second)
            return std::nullopt;
    }
    const auto field = [&fields](const std::string& name) -> std::optional<std::string> {
        const auto found = fields.find(name);
        if (found == fields.end()) return std::nullopt;
        return decoded_value(found->second);
    };
    AlertMarker marker;
    const auto project = field("project");
    const auto kind = field("kind");
    const auto before = field("before");
    const auto after = field("after");
    const auto machines = fields.find("machines");
    if (!project || !kind || !before || !after || machines == fields.end() || project->empty() ||
        after->empty())
        return std::nullopt;
    marker.key.project = *project;
    marker.key.before_commit = *before;
    marker.key.after_commit = *after;
    if (*kind == "step") {
        const auto benchmark = field("benchmark");
        const auto metric = field("metric");
        if (!benchmark || !metric || benchmark->empty()) return std::nullopt;
        marker.key.kind = model::AlertKind::Step;
        marker.key.benchmark = *benchmark;
        marker.key.metric = *metric;
    } else if (*kind == "suite") {
        marker.key.kind = model::AlertKind::Suite;
    } else {
        return std::nullopt;
    }
    if (!machines->second.empty())
        for (const auto& machine : split(machines->second, ',')) {
            const auto decoded = decoded_value(machine);
            if (!decoded || decoded->empty()) return std::nullopt;
            marker.machines = with_machine(std::move(marker.machines), *decoded);
        }
    return marker;
}

std::vector<AlertAction> plan_alerts(const AlertPlanInput& input) {
    std::vector<AlertAction> actions;
    std::vector<bool> matched(input.issues.size(), false);
    for (const auto& alert : input.found) {
        if (input.returned(alert.key)) continue;
        std::optional<std::size_t> open;
        std::optional<std::size_t> closed;
        for (std::size_t i = 0; i < input.issues.size(); ++i) {
            const auto& issue = input.issues[i];
            if (!input.same_step(issue.marker.key, alert)) continue;
            if (issue.open && !open) open = i;
            if (!issue.open && !closed) closed = i;
        }
        AlertAction action;
        action.title = input.title(alert);
        if (open) {
            matched[*open] = true;
            const auto& issue = input.issues[*open];
            const auto machines = with_machine(issue.marker.machines, input.machine);
            action.number = issue.number;
            action.url = issue.url;
            action.body = alert_marker({alert.key, machines}) + "\n" + input.body(alert, machines);
            action.kind =
                action.body == issue.body ? AlertActionKind::Unchanged : AlertActionKind::Update;
        } else if (!alert.opens_issue) {
            continue;
        } else if (closed) {
            action.kind = AlertActionKind::LeftClosed;
            action.number = input.issues[*closed].number;
            action.url = input.issues[*closed].url;
        } else {
            const std::vector<std::string> machines{input.machine};
            action.kind = AlertActionKind::Open;
            action.body = alert_marker({alert.key, machines}) + "\n" + input.body(alert, machines);
        }
        actions.push_back(std::move(action));
    }
    for (std::size_t i = 0; i < input.issues.size(); ++i) {
        const auto& issue = input.issues[i];
        const auto& machines = issue.marker.machines;
        if (matched[i] || !issue.open ||
            std::find(machines.begin(), machines.end(), input.machine) == machines.end() ||
            !input.returned(issue.marker.key))
            continue;
        auto marker = issue.marker;
        std::erase(marker.machines, input.machine);
        AlertAction action;
        action.number = issue.number;
        action.url = issue.url;
        action.title = fmt::format("issue #{}", issue.number);
        action.comment = input.returned_comment(issue, marker.machines);
        if (marker.machines.empty()) {
            action.kind = AlertActionKind::Close;
        } else {
            action.kind = AlertActionKind::Update;
            action.body = remarked(issue.body, marker);
        }
        actions.push_back(std::move(action));
    }
    return actions;
}

void apply_alert_action(AlertAction& action, const AlertCalls& calls) {
    switch (action.kind) {
        case AlertActionKind::Open: {
            const auto opened = calls.open(action.title, action.body);
            action.number = opened.number;
            action.url = opened.url;
            return;
        }
        case AlertActionKind::Update:
            if (!action.comment.empty()) calls.comment(action.number, action.comment);
            calls.edit(action.number, action.body);
            return;
        case AlertActionKind::Close:
            calls.comment(action.number, action.comment);
            calls.close(action.number);
            return;
        case AlertActionKind::Unchanged:
        case AlertActionKind::LeftClosed:
            return;
    }
}

std::string describe_alert_action(const AlertAction& action, bool dry_run) {
    const auto url = action.url.empty() ? std::string() : ": " + action.url;
    const auto issue = fmt::format("issue #{}", action.number);
    switch (action.kind) {
        case AlertActionKind::Open:
            return dry_run ? fmt::format("would open an issue: {}", action.title)
                           : fmt::format("opened {}: {}{}", issue, action.title, url);
        case AlertActionKind::Update:
            if (!action.comment.empty())
                return fmt::format(
                    "{} {}: the level returned on this machine, others still show "
                    "the step{}",
                    dry_run ? "would update" : "updated", issue, url);
            return fmt::format("{} {}: {}{}", dry_run ? "would update" : "updated", issue,
                               action.title, url);
        case AlertActionKind::Unchanged:
            return fmt::format("unchanged {}: {}{}", issue, action.title, url);
        case AlertActionKind::Close:
            return fmt::format("{} {}: the level returned{}", dry_run ? "would close" : "closed",
                               issue, url);
        case AlertActionKind::LeftClosed:
            return fmt::format("left closed {}: {}{}", issue, action.title, url);
    }
    return {};
}

}  // namespace benchwatch::forge
