#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_gotest(const Probe&) {
    return {};
}

}  // namespace

const Reader gotest_reader{.name = "go", .detect = detect_gotest};

}  // namespace benchwatch::ingest::detail
