#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_cargocriterion(const Probe&) {
    return {};
}

}  // namespace

const Reader cargocriterion_reader{.name = "cargo-criterion", .detect = detect_cargocriterion};

}  // namespace benchwatch::ingest::detail
