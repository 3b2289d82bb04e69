#pragma once

#include <cstdint>
#include <string_view>

namespace benchwatch::model {

// The 64-bit FNV-1a offset basis: the hash of no bytes.
inline constexpr std::uint64_t fnv1a_basis = 0xcbf29ce484222325ULL;

// 64-bit FNV-1a of `bytes`, continuing from `hash` (fnv1a_basis to start): a fixed, portable
// hash for names and ids that must come out the same on every machine; not for adversaries.
// Example: fnv1a("a") == 0xaf63dc4c8601ec8c; fnv1a("bc", fnv1a("a")) == fnv1a("abc").
constexpr std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = fnv1a_basis) {
    for (const char byte : bytes) {
        hash ^= static_cast<unsigned char>(byte);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

}  // namespace benchwatch::model
