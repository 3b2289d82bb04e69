#pragma once

#include <string>
#include <vector>

#include "model/alert.hpp"

namespace benchwatch::report {

// Where an alert issue's links lead; each empty when unknown.
struct AlertLinks {
    std::string repository_url;  // the forge's page of the repository: commits link below it
    std::string history_url;     // the project's history on the dashboard
};

// The issue's title, one line of plain text at most 200 bytes: "benchwatch: a +20.0% worse at
// 633131000 (p)", or for a suite event "benchwatch: 12 of 14 benchmarks of p stepped at
// 633131000 (median +8.0%)".
std::string alert_title(const model::Alert& alert);

// The body in Markdown, under its marker line: the benchmark, the change and its
// direction, the commit range (short SHAs, which both forges link, and the two commits' pages as
// bare URLs when the repository's page is known), the commit that made the step when the range
// holds only it, the environment changes between the runs either side, the machines that show it
// and the dashboard's URL. It writes no heading, HTML or link markup of its own, and every string
// from outside is escaped (escape_markdown, web_url), so the body passes the report's output
// checks.
std::string render_alert_markdown(const model::Alert& alert,
                                  const std::vector<std::string>& machines,
                                  const AlertLinks& links);

// The comment on an alert issue whose level `machine` no longer shows stepped at commit
// `latest`: closed after it when `still` is empty, else naming the machines that still show it.
std::string render_alert_returned(const std::string& machine, const std::string& latest,
                                  const std::vector<std::string>& still);

}  // namespace benchwatch::report
