#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_githubactionbenchmark(const Probe&) {
    return {};
}

}  // namespace

const Reader githubactionbenchmark_reader{.name = "github-action-benchmark", .detect = detect_githubactionbenchmark};

}  // namespace benchwatch::ingest::detail
