#pragma once

// Unit factors shared by the readers. They live here, once, rather than in each reader's
// anonymous namespace: the unity build compiles several readers as one translation unit, where
// two definitions of the same name would clash.
#include <optional>
#include <string_view>

namespace benchwatch::ingest::detail {

inline constexpr double nanoseconds_per_second = 1e9;
inline constexpr double bytes_per_megabyte = 1e6;

// Nanoseconds in one of the time units JMH abbreviates (ns, us, ms, s, min); nullopt for others.
inline std::optional<double> jmh_nanoseconds_in(std::string_view unit) {
    if (unit == "ns") return 1;
    if (unit == "us") return 1e3;
    if (unit == "ms") return 1e6;
    if (unit == "s") return 1e9;
    if (unit == "min") return 60e9;
    return std::nullopt;
}

}  // namespace benchwatch::ingest::detail
