#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_jmh(const Probe&) {
    return {};
}

}  // namespace

const Reader jmh_reader{.name = "jmh", .detect = detect_jmh};

}  // namespace benchwatch::ingest::detail
