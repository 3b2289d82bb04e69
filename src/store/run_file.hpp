#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/run.hpp"
#include "store/store.hpp"

namespace benchwatch::store {

// A run file cannot be read. what() is one line, "<source>: <problem>", where <source> names the
// file as the caller gave it: "origin/benchwatch-data:runs/cuda/a100/…json: missing \"commit\"".
class RunFileError : public StoreError {
  public:
    using StoreError::StoreError;
};

// The version of the run file format that run_file_text() writes and parse_run_file() reads.
inline constexpr int kRunFileVersion = 1;

// One run with its results, environment, warnings and commit information as a JSON document
// that starts {"format": "benchwatch-run", "version": 1, …}. The store's id is left out.
std::string run_file_text(const model::Run& run);

// The largest run file read, in bytes. A run of 100,000 results, each with 64 sample values,
// writes about 60 MiB; reading one takes about 9 times its size in memory.
inline constexpr std::uint64_t kMaxRunFileBytes = std::uint64_t{64} << 20;

// The run a run file holds, with id 0. Fields a later version 1 writer adds are ignored.
// Throws RunFileError naming `source` when the text is over kMaxRunFileBytes, not JSON, not a
// run file, of another version, a field is missing or of the wrong type, or its project, machine
// or branch name or a result breaks the rules every stored run keeps
// (model::run_names_problem(), model::results_problem(), the message as `record` gives).
model::Run parse_run_file(std::string_view text, std::string_view source);

// Where a run's file lives in a folder of run files:
// "runs/PROJECT/MACHINE/COMMIT_CONTENTHASH.json", each name percent-encoded to one safe path
// component (see run_file_path_component), so that one file is one (project, machine, commit,
// content hash), the identity under which a store keeps a run once.
std::string run_file_path(const model::Run& run);

// The folder of a project's run files ("runs/PROJECT/"), or of one machine's
// ("runs/PROJECT/MACHINE/") when `machine` is not empty; "runs/" when both are empty.
std::string run_file_folder(std::string_view project, std::string_view machine);

// `name` as one path component that is the same on every file system and never "." or "..":
// bytes other than A-Z a-z 0-9 '-' and '.' (and a leading '.') become %XX, and a result over 96
// bytes keeps its first 64 and ends with '~' and 16 hex digits of a hash of the whole name.
// run_file_path_component("gpu a100/x") == "gpu%20a100%2Fx".
std::string run_file_path_component(std::string_view name);

}  // namespace benchwatch::store
