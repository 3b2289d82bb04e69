#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/alert.hpp"

namespace benchwatch::forge {

// The label alert issues carry by default; listings ask for it.
inline constexpr std::string_view default_alert_label = "benchwatch-alert";

// `value` percent-encoded for a URL's query: letters, digits and "-._~" kept.
std::string query_value(std::string_view value);

// What an alert issue's hidden marker says: the step's key and the machines that show it.
struct AlertMarker {
    model::AlertKey key;
    std::vector<std::string> machines;  // sorted, no repeats
};

// The hidden first line of an alert issue's body: "<!-- benchwatch-alert project=p kind=step
// benchmark=a metric=time before=SHA after=SHA machines=m1,m2 -->". Every value is
// percent-encoded outside letters, digits and "._~/:+@", so no value can end the comment, the
// field or the list it is in.
std::string alert_marker(const AlertMarker& marker);

// The marker on `body`'s first line; nullopt when the line is not one alert_marker() writes.
std::optional<AlertMarker> parse_alert_marker(std::string_view body);

// An alert issue of the project as a listing gives it: one benchwatch wrote, its marker read.
struct AlertIssue {
    std::int64_t number = 0;  // GitHub's issue number, GitLab's iid
    bool open = true;
    std::string body;
    AlertMarker marker;
    std::string url;  // its web page, when the forge gives one
};

// What to do with one alert.
enum class AlertActionKind {
    Open,        // create an issue
    Update,      // edit the issue's body (with `comment` posted first, when given)
    Unchanged,   // the issue already says it all
    Close,       // post `comment`, then close the issue
    LeftClosed,  // a new step whose issue someone closed: not opened again
};

// One action of an alert run, with what it prints and sends.
struct AlertAction {
    AlertActionKind kind = AlertActionKind::Open;
    std::int64_t number = 0;  // the issue's, except for Open
    std::string title;        // the alert's one-line title (the issue's title for Open)
    std::string body;         // Open and Update: the whole body, marker line first
    std::string comment;      // Close, and Update when a machine saw the level return
    std::string url;          // the issue's page, when known
};

// What plan_alerts() decides from.
struct AlertPlanInput {
    std::vector<AlertIssue> issues;   // the project's alert issues, open and closed
    std::vector<model::Alert> found;  // this machine's alerts (compare::history_alerts())
    std::string machine;              // the machine whose history was read
    // Whether the issue keyed so is about the alert (compare::same_step()).
    std::function<bool(const model::AlertKey&, const model::Alert&)> same_step;
    // Whether this machine's history shows the level of the step keyed so back where it was
    // (compare::level_returned()).
    std::function<bool(const model::AlertKey&)> returned;
    std::function<std::string(const model::Alert&)> title;
    // The body under the marker line, naming the machines that show the step.
    std::function<std::string(const model::Alert&, const std::vector<std::string>& machines)> body;
    // The comment saying the level returned on this machine; `still` lists the machines that
    // still show the step (empty: the issue is closed after it).
    std::function<std::string(const AlertIssue&, const std::vector<std::string>& still)>
        returned_comment;
};

// The actions of one machine's alert run, in order: for each alert found whose level has not
// returned (later steps undid it), its open issue (the same step) is updated with this machine
// added to its machines (Unchanged when the body would not change); without an open one, a closed
// one is left closed (LeftClosed, only for alerts that open issues); else an alert that opens
// issues gets one (Open). Then each other open issue that lists this machine and whose level
// returned on it
// (`returned`) loses the machine: closed with a comment when no machine is left, else its marker
// updated with a comment. Issues that do not list this machine are left alone: another machine
// decides for them.
std::vector<AlertAction> plan_alerts(const AlertPlanInput& input);

// What an issue's creation answered.
struct OpenedIssue {
    std::int64_t number = 0;
    std::string url;
};

// The forge's calls that carry out a plan; each throws the forge's error when refused.
struct AlertCalls {
    std::function<OpenedIssue(const std::string& title, const std::string& body)> open;
    std::function<void(std::int64_t number, const std::string& body)> edit;
    std::function<void(std::int64_t number, const std::string& comment)> comment;
    std::function<void(std::int64_t number)> close;
};

// Carries out `action` with `calls`; an opened issue's number and page are set in `action`.
void apply_alert_action(AlertAction& action, const AlertCalls& calls);

// The line an alert run prints for `action`: "opened issue #3 for …: URL", "updated issue #3 …",
// "would open an issue for …" when `dry_run`.
std::string describe_alert_action(const AlertAction& action, bool dry_run);

}  // namespace benchwatch::forge
