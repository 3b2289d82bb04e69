#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_criterion(const Probe&) {
    return {};
}

}  // namespace

const Reader criterion_reader{.name = "criterion", .detect = detect_criterion};

}  // namespace benchwatch::ingest::detail
