// What could break: the hash behind dashboard ids, run-file names and folder content hashes
// changing, which would rename every id and file already published or stored.

#include "model/fnv.hpp"

#include <gtest/gtest.h>

namespace benchwatch::model {
namespace {

TEST(Fnv1a, KnownValues) {
    EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ULL);  // the offset basis
    // (0xcbf29ce484222325 ^ 0x61) × 0x100000001b3 mod 2^64
    EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cULL);
    static_assert(fnv1a("a") == 0xaf63dc4c8601ec8cULL);
}

TEST(Fnv1a, ContinuesFromAPreviousHash) {
    EXPECT_EQ(fnv1a("bc", fnv1a("a")), fnv1a("abc"));
    EXPECT_NE(fnv1a("\xff"), fnv1a("\x7f"));  // bytes above 127 are not sign-extended
}

}  // namespace
}  // namespace benchwatch::model
