// What could break: bisect naming a commit next to the one that made the step, measuring more
// commits than halving the range needs, going on when the ends show no step, or treating a probe
// its rounds could not decide as if they had, or giving up at a commit that does not build when
// a neighbour would do.
#include "run/bisect.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "run/recipe.hpp"

namespace benchwatch::run {
namespace {

std::vector<std::string> commit_names(int count) {
    std::vector<std::string> commits;
    for (int i = 0; i < count; ++i) commits.push_back("c" + std::to_string(i));
    return commits;
}

ConfirmTarget target_named(const std::string& name) {
    ConfirmTarget target;
    target.name = name;
    target.minimum_change = 0.03;
    return target;
}

// A benchmark "a" of `level(index)` ns at commit c<index>, within ±0.5% from one run to the
// next, and the commits measured.
class FakeSuite {
  public:
    explicit FakeSuite(std::function<double(int)> level) : level_(std::move(level)) {}

    // Measuring any of `commits` fails as a commit that does not build does.
    void break_builds_of(std::set<std::string> commits) { broken_ = std::move(commits); }

    std::vector<model::Result> operator()(const std::string& commit) {
        if (broken_.contains(commit)) throw RecipeError("build of " + commit + " failed: exit 2");
        measured_.insert(commit);
        const int index = std::stoi(commit.substr(1));
        model::Result result;
        result.benchmark = "a";
        result.value = level_(index) * (1 + 0.005 * std::sin(static_cast<double>(++runs_)));
        return {result};
    }

    const std::set<std::string>& measured() const { return measured_; }

  private:
    std::function<double(int)> level_;
    std::set<std::string> measured_;
    std::set<std::string> broken_;
    int runs_ = 0;
};

double no_time() {
    return 0;
}

TEST(Bisect, FindsTheCommitOfAStepWhereverItIsInHalvingSteps) {
    // Two benchmarked commits with 16 between them: ⌈log₂ 17⌉ = 5 probes and the two ends.
    const auto commits = commit_names(18);
    for (int step_at = 1; step_at < 18; ++step_at) {
        FakeSuite suite([&](int index) { return index >= step_at ? 120.0 : 100.0; });
        const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {});
        EXPECT_EQ(outcome.culprit, commits[static_cast<std::size_t>(step_at)]) << step_at;
        EXPECT_EQ(outcome.step.verdict, model::ConfirmationVerdict::Confirmed);
        EXPECT_NEAR(outcome.step.change, 0.20, 0.02);
        EXPECT_LE(suite.measured().size(), 7U) << step_at;
        for (const auto& probe : outcome.probes) EXPECT_NE(probe.side, Side::Unknown);
    }
}

TEST(Bisect, AFasterStepIsFoundTheSameWay) {
    const auto commits = commit_names(9);
    FakeSuite suite([](int index) { return index >= 6 ? 80.0 : 100.0; });
    const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {});
    EXPECT_EQ(outcome.step.measured, model::Verdict::Faster);
    EXPECT_EQ(outcome.culprit, "c6");
}

TEST(Bisect, EndsWithoutAStepMeasureNothingElse) {
    const auto commits = commit_names(9);
    FakeSuite suite([](int) { return 100.0; });
    const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {});
    EXPECT_EQ(outcome.step.verdict, model::ConfirmationVerdict::Dismissed);
    EXPECT_TRUE(outcome.culprit.empty());
    EXPECT_TRUE(outcome.probes.empty());
    EXPECT_EQ(suite.measured(), (std::set<std::string>{"c0", "c8"}));
    EXPECT_EQ(outcome.first, "c1");
    EXPECT_EQ(outcome.last, "c8");
}

TEST(Bisect, AProbeHalfwayUpTheStepLeavesARange) {
    // c4 sits at +10%, exactly half of the +20% step: neither side of the line, so its rounds
    // run out undecided against both ends and the search stops with c1..c4 or c4..c8 open.
    const auto commits = commit_names(9);
    FakeSuite suite([](int index) { return index > 4 ? 120.0 : index == 4 ? 109.5445 : 100.0; });
    ConfirmSettings settings;
    settings.max_rounds = 12;
    const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, settings);
    ASSERT_EQ(outcome.step.verdict, model::ConfirmationVerdict::Confirmed);
    ASSERT_EQ(outcome.probes.size(), 1U);
    EXPECT_EQ(outcome.probes.front().commit, "c4");
    EXPECT_EQ(outcome.probes.front().side, Side::Unknown);
    EXPECT_TRUE(outcome.culprit.empty());
    EXPECT_EQ(outcome.first, "c1");
    EXPECT_EQ(outcome.last, "c8");
}

TEST(Bisect, ACommitThatDoesNotBuildIsSkippedForItsNeighbour) {
    const auto commits = commit_names(9);
    FakeSuite suite([](int index) { return index >= 6 ? 120.0 : 100.0; });
    suite.break_builds_of({"c4"});
    const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {});
    EXPECT_EQ(outcome.culprit, "c6");
    ASSERT_FALSE(outcome.probes.empty());
    EXPECT_EQ(outcome.probes.front().commit, "c4");
    EXPECT_EQ(outcome.probes.front().side, Side::Skipped);
    EXPECT_EQ(outcome.probes.front().skipped_because, "build of c4 failed: exit 2");
    EXPECT_EQ(outcome.probes[1].commit, "c3");  // the nearest untried commit, earlier first
}

TEST(Bisect, AnUnbuildableCommitNextToTheStepLeavesTheRangeItHides) {
    // Step at c5 with c4 unbuildable: c4..c5 cannot be split.
    const auto commits = commit_names(9);
    FakeSuite suite([](int index) { return index >= 5 ? 120.0 : 100.0; });
    suite.break_builds_of({"c4"});
    const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {});
    EXPECT_TRUE(outcome.culprit.empty());
    EXPECT_EQ(outcome.first, "c4");
    EXPECT_EQ(outcome.last, "c5");
}

TEST(Bisect, AnEndThatDoesNotBuildStopsIt) {
    const auto commits = commit_names(5);
    FakeSuite suite([](int) { return 100.0; });
    suite.break_builds_of({"c4"});
    EXPECT_THROW(bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {}), RecipeError);
}

TEST(Bisect, AdjacentEndsNeedNoProbe) {
    const auto commits = commit_names(2);
    FakeSuite suite([](int index) { return index == 1 ? 130.0 : 100.0; });
    const auto outcome = bisect(commits, target_named("a"), {}, std::ref(suite), no_time, {});
    EXPECT_EQ(outcome.culprit, "c1");
    EXPECT_TRUE(outcome.probes.empty());
}

}  // namespace
}  // namespace benchwatch::run
