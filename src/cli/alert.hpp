#pragma once

// What `benchwatch github alert` and `benchwatch gitlab alert` share: the flags, reading the
// default branch's steps, planning the issues and carrying the plan out.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cli/defaults.hpp"
#include "forge/alert.hpp"

namespace benchwatch::cli {

// The flags of an alert run, the forge's own (where, the token) aside.
struct AlertFlags {
    CommonFlags common;
    std::string default_branch;
    std::string history_url;
    std::size_t recent = 20;
    bool improvements = false;
    bool dry_run = false;
    std::string label = std::string(forge::default_alert_label);
};

// Adds the AlertFlags to `command`.
void add_alert_flags(CLI::App& command, AlertFlags& flags);

// The forge's side of an alert run: its alert issues of a project, and the calls that change
// them (made only when not a dry run).
struct AlertForge {
    std::function<std::vector<forge::AlertIssue>(const std::string& project)> list;
    std::function<forge::AlertCalls()> calls;
};

// Reads the machine's default-branch steps (as `history --changes`), plans the issues against
// those the forge lists (forge::plan_alerts) and carries the plan out, one line printed per
// action. Returns the exit code, 0.
int run_alert(const AlertFlags& flags, const AlertForge& forge);

}  // namespace benchwatch::cli
