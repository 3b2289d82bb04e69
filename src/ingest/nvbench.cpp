#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_nvbench(const Probe&) {
    return {};
}

}  // namespace

const Reader nvbench_reader{.name = "nvbench", .detect = detect_nvbench};

}  // namespace benchwatch::ingest::detail
