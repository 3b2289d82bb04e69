#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_catch2(const Probe&) {
    return {};
}

}  // namespace

const Reader catch2_reader{.name = "catch2", .detect = detect_catch2};

}  // namespace benchwatch::ingest::detail
