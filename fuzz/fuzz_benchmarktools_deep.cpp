// BenchmarkTools.jl files with deeply nested groups: the bytes go through ingest::parse as
// fuzz_benchmarktools does, and the heap the reading holds at its peak must stay proportional
// to the input. Building each level's full name apart took memory proportional to the depth
// times the names' length, far beyond the file's size, before the name-length check refused it.
// Seeds and dictionary (scripts/fuzz) make deep nesting likely.
#include <sanitizer/allocator_interface.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ingest/ingest.hpp"

namespace {

// What the reading may hold per byte of input at its peak (the padded copy, simdjson's index,
// the results and their names; about 30 in practice), and beyond that in all.
constexpr std::size_t bytes_per_input_byte = 64;
constexpr std::size_t fixed_bytes = std::size_t{1} << 20;

std::atomic<bool> watching{false};
std::atomic<std::size_t> peak{0};

void note_allocation(const volatile void*, std::size_t) {
    if (!watching.load(std::memory_order_relaxed)) return;
    const std::size_t now = __sanitizer_get_current_allocated_bytes();
    std::size_t seen = peak.load(std::memory_order_relaxed);
    while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {
    }
}

void note_free(const volatile void*) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    __sanitizer_install_malloc_and_free_hooks(note_allocation, note_free);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view content(reinterpret_cast<const char*>(data), size);
    const std::size_t before = __sanitizer_get_current_allocated_bytes();
    peak.store(before);
    watching.store(true);
    try {
        benchwatch::ingest::parse(content, "fuzz-input", "benchmarktools");
    } catch (const benchwatch::ingest::InputError&) {
        // A refused file with its message: what a malformed input should get.
    }
    watching.store(false);
    const std::size_t held = peak.load() - before;
    if (held > bytes_per_input_byte * size + fixed_bytes) {
        std::fprintf(stderr, "reading %zu bytes held %zu bytes of heap at its peak\n", size, held);
        std::abort();
    }
    return 0;
}
