#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_nanobench(const Probe&) {
    return {};
}

}  // namespace

const Reader nanobench_reader{.name = "nanobench", .detect = detect_nanobench};

}  // namespace benchwatch::ingest::detail
