// One libFuzzer target per results format: the bytes go through ingest::parse with the format
// named at build time (BENCHWATCH_FUZZ_FORMAT, or "auto" for detection). An InputError is the
// expected answer to a bad file; any other exception, crash, hang or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ingest/ingest.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view content(reinterpret_cast<const char*>(data), size);
    try {
        benchwatch::ingest::parse(content, "fuzz-input", BENCHWATCH_FUZZ_FORMAT);
    } catch (const benchwatch::ingest::InputError&) {
        // A refused file with its message: what a malformed input should get.
    }
    return 0;
}
