#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_bencher(const Probe&) {
    return {};
}

}  // namespace

const Reader bencher_reader{.name = "bencher", .detect = detect_bencher};

}  // namespace benchwatch::ingest::detail
