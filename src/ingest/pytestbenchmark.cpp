#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_pytestbenchmark(const Probe&) {
    return {};
}

}  // namespace

const Reader pytestbenchmark_reader{.name = "pytest-benchmark", .detect = detect_pytestbenchmark};

}  // namespace benchwatch::ingest::detail
