#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace {

Claim detect_libtest(const Probe&) {
    return {};
}

}  // namespace

const Reader libtest_reader{.name = "libtest", .detect = detect_libtest};

}  // namespace benchwatch::ingest::detail
