#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_benchmarkdotnet(const Probe&) {
    return {};
}

}  // namespace

const Reader benchmarkdotnet_reader{.name = "benchmarkdotnet", .detect = detect_benchmarkdotnet};

}  // namespace benchwatch::ingest::detail
