#pragma once

// Unit factors shared by the readers. They live here, once, rather than in each reader's
// anonymous namespace: the unity build compiles several readers as one translation unit, where
// two definitions of the same name would clash.
namespace benchwatch::ingest::detail {

inline constexpr double nanoseconds_per_second = 1e9;
inline constexpr double bytes_per_megabyte = 1e6;

}  // namespace benchwatch::ingest::detail
