#pragma once

#include <stdexcept>
#include <string>

namespace benchwatch::model {

// Where an expected failure comes from: what the user must fix.
enum class ErrorKind {
    Usage,               // a flag, a subcommand or an argument
    Config,              // benchwatch.toml
    Input,               // a results file or an imported history
    Git,                 // the repository or a commit in it
    Store,               // the store: missing, locked, unreachable, newer, or refusing a run
    Compare,             // the runs a comparison needs
    Report,              // a JSON report read back
    Measurement,         // a command that could not be started or measured
    MeasurementAborted,  // a measurement that stopped before anything was recorded
    Serve,               // the server's address or data
    Site,                // the folder a static site is written to
    Upload,              // an upload, sent or received
    Forge,               // GitHub's or GitLab's API
};

// An expected failure: bad input, a missing commit, an unusable store, a forge that refuses.
// what() is one line that names what and where and how to fix it. Every layer throws its own
// subclass; the CLI catches Error alone, prints "error: " + what() and exits with its kind's exit
// code, so a new failure cannot escape as a crash. A bug is an assertion, never an Error.
class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

    ErrorKind kind() const { return kind_; }

  private:
    ErrorKind kind_;
};

}  // namespace benchwatch::model
