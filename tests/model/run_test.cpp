// What could break: a commit time read in the wrong zone or accepted half-parsed (history points
// placed on the wrong day, or garbage from an upload taken as a date), a short or non-hex id
// passing for a full commit id, a run with "git.dirty" other than "yes" counted as dirty.
#include "model/run.hpp"

#include <gtest/gtest.h>

namespace benchwatch::model {
namespace {

TEST(CommitId, FullIdsAreFortyOrSixtyFourHexDigits) {
    EXPECT_TRUE(is_full_commit_id(std::string(40, 'a')));
    EXPECT_TRUE(is_full_commit_id("0123456789ABCDEFabcdef0123456789abcdef01"));
    EXPECT_TRUE(is_full_commit_id(std::string(64, '9')));
    EXPECT_FALSE(is_full_commit_id("1234567"));
    EXPECT_FALSE(is_full_commit_id("hello-world"));
    EXPECT_FALSE(is_full_commit_id(std::string(41, 'a')));
    EXPECT_FALSE(is_full_commit_id(std::string(39, 'a') + "g"));
    EXPECT_FALSE(is_full_commit_id(""));
}

TEST(Timestamp, ReadsGitsAndForgesForms) {
    EXPECT_EQ(timestamp_ms("1970-01-01T00:00:00Z"), 0);
    EXPECT_EQ(timestamp_ms("2016-03-01T12:00:00+01:00"), 1456830000000);
    EXPECT_EQ(timestamp_ms("2016-03-01T11:00:00Z"), 1456830000000);
    EXPECT_EQ(timestamp_ms("2016-03-01 06:00:00-0500"), 1456830000000);
    EXPECT_EQ(timestamp_ms("2016-03-01T11:00:00.250Z"), 1456830000250);
    EXPECT_EQ(timestamp_ms("2024-02-29T00:00:00+00:00"), 1709164800000);
    EXPECT_EQ(timestamp_ms("1969-12-31T23:59:59Z"), -1000);
}

TEST(Timestamp, RefusesAnythingElse) {
    for (const char* text :
         {"", "yesterday", "2016-03-01", "2016-03-01T12:00:00", "2016-13-01T00:00:00Z",
          "2016-03-32T00:00:00Z", "2016-03-01T24:00:00Z", "2016-03-01T12:00:00Zjunk",
          "2016-03-01T12:00:00+1", "2016-03-01T12:00:00.Z", "16-03-01T12:00:00Z",
          "2016-03-01T12:00:00\n+01:00"})
        EXPECT_EQ(timestamp_ms(text), std::nullopt) << text;
}

TEST(RunFacts, DirtyOnlyWhenGitSaysYes) {
    model::Run run;
    EXPECT_FALSE(is_dirty(run));
    run.environment["git.dirty"] = "no";
    EXPECT_FALSE(is_dirty(run));
    run.environment["git.dirty"] = "yes";
    EXPECT_TRUE(is_dirty(run));
}

TEST(RunFacts, CommitTimeComesFromTheCommitNotTheRecording) {
    model::Run run;
    run.recorded_at_ms = 5;
    EXPECT_EQ(commit_time_ms(run), std::nullopt);
    run.commit_info = CommitInfo{"m", "a", "2016-03-01T11:00:00Z", ""};
    EXPECT_EQ(commit_time_ms(run), 1456830000000);
    run.commit_info->timestamp = "garbage";
    EXPECT_EQ(commit_time_ms(run), std::nullopt);
}

}  // namespace
}  // namespace benchwatch::model
