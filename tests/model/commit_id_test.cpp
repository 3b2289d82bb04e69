// What could break: a commit id from a file, an upload or the store that git would read as an
// option, or a path would take out of its folder ("..", "/home/x", "-x"), accepted as a commit;
// a full SHA refused; a refusal that does not say which id, from where, or that lets the id
// drive the terminal.
#include "model/commit_id.hpp"

#include <gtest/gtest.h>

namespace benchwatch::model {
namespace {

const std::string sha1 = "0123456789abcdef0123456789abcdef01234567";
const std::string sha256 = sha1 + "89abcdef0123456789abcdef";

TEST(CommitIdCheck, FullLowercaseShasAreCommitIds) {
    ASSERT_EQ(sha256.size(), 64u);
    EXPECT_EQ(CommitId::check(sha1, "here").str(), sha1);
    EXPECT_EQ(CommitId::check(sha256, "here").str(), sha256);
    EXPECT_EQ(CommitId::parse(sha1)->str(), sha1);
    EXPECT_EQ(CommitId::parse(sha1), CommitId::check(sha1, "there"));
}

TEST(CommitIdCheck, AnythingElseIsRefused) {
    for (const std::string& text :
         {std::string(), std::string(".."), std::string("."), std::string("/tmp/victim"),
          std::string("../../home"), std::string("--upload-pack=touch x"), std::string("-x"),
          std::string("HEAD"), std::string("1234567"), sha1.substr(0, 39), sha1 + "8", sha256 + "0",
          sha1.substr(0, 39) + "g", std::string(40, 'A'),
          std::string("0123456789ABCDEF0123456789abcdef01234567"), sha1.substr(0, 39) + "/",
          sha1.substr(0, 39) + '\0', " " + sha1.substr(1)})
        EXPECT_FALSE(CommitId::parse(text)) << text;
}

TEST(CommitIdCheck, TheRefusalNamesTheIdAndWhereItCameFrom) {
    try {
        CommitId::check("..", "data.js");
        FAIL() << "'..' was taken for a commit";
    } catch (const CommitIdError& error) {
        EXPECT_EQ(error.kind(), ErrorKind::Input);
        EXPECT_EQ(std::string(error.what()),
                  "data.js: commit '..' is not a full commit SHA (40 or 64 lowercase hex "
                  "digits); give the full SHA that git rev-parse prints");
    }
    try {
        CommitId::check("/tmp/victim", "the baseline run in the store", "record it again");
        FAIL() << "a path was taken for a commit";
    } catch (const CommitIdError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "the baseline run in the store: commit '/tmp/victim' is not a full commit SHA "
                  "(40 or 64 lowercase hex digits); record it again");
    }
}

TEST(CommitIdCheck, TheRefusalQuotesTheIdSafelyAndShort) {
    EXPECT_EQ(CommitId::refusal("a'b\x1b[2J\n##[error]"),
              "commit 'a\\u{27}b\\u{1b}[2J\\u{a}##\\u{5b}error]' is not a full commit SHA (40 or "
              "64 lowercase hex digits)");
    EXPECT_EQ(CommitId::refusal(std::string(79, 'x') + "é" + std::string(100, 'y')),
              "commit '" + std::string(79, 'x') +
                  "…' is not a full commit SHA (40 or 64 lowercase hex digits)");
    try {
        CommitId::check("x", "run\x1b[31m.json");
        FAIL() << "'x' was taken for a commit";
    } catch (const CommitIdError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "run\\u{1b}[31m.json: commit 'x' is not a full commit SHA (40 or 64 lowercase "
                  "hex digits); give the full SHA that git rev-parse prints");
    }
}

}  // namespace
}  // namespace benchwatch::model
