// What could break: the marker shared by GitHub comments and GitLab notes matching another
// project's or a system note, a marked comment someone else wrote being kept or deleted, the
// newest marked comment not being the one kept, authors compared by a name where ids differ,
// or a report cut past a forge's limit or mid-line.
#include "forge/sticky.hpp"

#include <gtest/gtest.h>

namespace benchwatch::forge {
namespace {

nlohmann::json item(std::int64_t id, const std::string& body, bool system = false) {
    return {{"id", id}, {"body", body}, {"system", system}};
}

bool anyone(const nlohmann::json&) {
    return true;
}

TEST(Marker, IsTheSameForEveryForge) {
    EXPECT_EQ(comment_marker("perf"), "<!-- benchwatch:perf -->");
    EXPECT_TRUE(is_sticky_comment("<!-- benchwatch:perf -->\nreport", "perf"));
    EXPECT_FALSE(is_sticky_comment("<!-- benchwatch:perf2 -->\nreport", "perf"));
}

TEST(Plan, KeepsTheLargestMarkedIdAndRemovesTheOthersOldestFirst) {
    const std::vector<nlohmann::json> listed = {
        item(40, "<!-- benchwatch:p -->\nnew"),           item(7, "<!-- benchwatch:p -->\nold"),
        item(12, "<!-- benchwatch:q -->\nother project"), item(30, "a person's note"),
        item(20, "<!-- benchwatch:p -->\nmiddle"),
    };
    const auto plan = plan_sticky_comment(listed, "p", anyone);
    EXPECT_EQ(plan.edit, 40);
    EXPECT_EQ(plan.remove, (std::vector<std::int64_t>{7, 20}));
}

TEST(Plan, SkipsSystemNotesAndMalformedItems) {
    const std::vector<nlohmann::json> listed = {
        item(50, "<!-- benchwatch:p -->\nquoted by a system note", true),
        nlohmann::json{{"id", "51"}, {"body", "<!-- benchwatch:p -->\n"}},
        nlohmann::json{{"id", 52}},
    };
    const auto plan = plan_sticky_comment(listed, "p", anyone);
    EXPECT_EQ(plan.edit, std::nullopt);
    EXPECT_TRUE(plan.remove.empty());
}

TEST(Plan, LeavesMarkedCommentsBenchwatchDidNotWriteAlone) {
    // A bot's comment (1) and a person's newer one with the same marker (2).
    auto bots = item(1, "<!-- benchwatch:p -->\nreport");
    bots["user"] = {{"login", "github-actions[bot]"}, {"type", "Bot"}};
    auto persons = item(2, "<!-- benchwatch:p -->\npasted");
    persons["user"] = {{"login", "mallory"}, {"type", "User"}};
    std::vector<std::int64_t> asked;
    const auto plan = plan_sticky_comment({bots, persons, item(3, "no marker")}, "p",
                                          [&](const nlohmann::json& listed) {
                                              asked.push_back(listed["id"].get<std::int64_t>());
                                              return listed["user"]["type"] == "Bot";
                                          });
    EXPECT_EQ(plan.edit, 1);
    EXPECT_TRUE(plan.remove.empty());
    // Only marked comments are asked about.
    EXPECT_EQ(asked, (std::vector<std::int64_t>{1, 2}));
}

TEST(SameUser, ComparesIdsWhenBothHaveThemElseNames) {
    const nlohmann::json me = {{"id", 7}, {"login", "bench-bot"}};
    EXPECT_TRUE(same_user({{"id", 7}, {"login", "renamed"}}, me, "login"));
    EXPECT_FALSE(same_user({{"id", 8}, {"login", "bench-bot"}}, me, "login"));
    EXPECT_TRUE(same_user({{"login", "bench-bot"}}, me, "login"));
    EXPECT_FALSE(same_user({{"username", "bench-bot"}}, me, "login"));
    EXPECT_FALSE(same_user({{"login", ""}}, {{"login", ""}}, "login"));
    EXPECT_FALSE(same_user(nullptr, me, "login"));
}

TEST(Body, CutsToTheForgesLimitAfterAWholeLine) {
    constexpr CommentLimit limit{400, "Forge's note limit", "`benchwatch compare` shows all of it"};
    // The marker line "<!-- benchwatch:p -->\n" is 22 bytes: 378 left for the report.
    EXPECT_EQ(report_allowance("p", limit), 378u);
    std::string report;
    for (int i = 0; i < 10; ++i) report += std::string(49, 'a' + i) + "\n";  // 500 bytes
    const auto body = sticky_comment_body("p", report, limit);
    // The note for "after 500 of its 500 bytes" is 122 bytes: 378 − 122 = 256 fit, so 5 whole
    // lines of 50 (250 bytes) are kept.
    EXPECT_EQ(body, "<!-- benchwatch:p -->\n" + report.substr(0, 250) +
                        "\n_benchwatch cut this report after 250 of its 500 bytes to fit Forge's "
                        "note limit; `benchwatch compare` shows all of it._\n");
    EXPECT_LE(body.size(), 400u);
}

}  // namespace
}  // namespace benchwatch::forge
