// The run files that `history-branch pull` reads from a branch anyone with push access may write:
// the bytes go through store::parse_run_file and, when accepted, store::run_file_path, as the
// pull does. A RunFileError is the expected answer to a bad file; any other exception, crash,
// hang or sanitizer report is a bug. A run that is accepted must be written back to the same
// text it was read from when read again, or the history branch would change under each push.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "store/run_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace store = benchwatch::store;
    const std::string_view content(reinterpret_cast<const char*>(data), size);
    try {
        const auto run = store::parse_run_file(content, "fuzz-input");
        static_cast<void>(store::run_file_path(run));
        const std::string written = store::run_file_text(run);
        const std::string rewritten =
            store::run_file_text(store::parse_run_file(written, "written-back"));
        if (written != rewritten) {
            std::fprintf(stderr, "a run written and read back is written differently:\n%s\n%s\n",
                         written.c_str(), rewritten.c_str());
            std::abort();
        }
    } catch (const store::RunFileError&) {
        // A refused file with its message: what a malformed run file should get.
    }
    return 0;
}
