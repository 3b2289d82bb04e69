// What could break: what benchwatch reads from Buildkite: a clone URL (scp-like, ssh, https with
// credentials, GitLab subgroups) turned into a wrong or unsafe page address, and the style of the
// build's annotation not following the verdicts (a slowdown shown as success, a report that
// could judge little shown as success).
#include "cli/buildkite.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <optional>

#include "cli/defaults.hpp"

namespace benchwatch::cli {
namespace {

TEST(RepositoryPageTest, EveryCloneUrlFormGivesTheHttpsPage) {
    const std::vector<std::pair<const char*, const char*>> cases{
        {"git@github.com:org/repo.git", "https://github.com/org/repo"},
        {"git@github.com:org/repo", "https://github.com/org/repo"},
        {"https://github.com/org/repo.git", "https://github.com/org/repo"},
        {"https://x-access-token:secret@github.com/org/repo.git", "https://github.com/org/repo"},
        {"ssh://git@github.com:22/org/repo.git", "https://github.com/org/repo"},
        {"git@gitlab.com:group/sub/repo.git", "https://gitlab.com/group/sub/repo"},
        {"https://gitlab.example.org:8443/group/repo.git/",
         "https://gitlab.example.org:8443/group/repo"},
        {"https://github.com/org/repo\n", "https://github.com/org/repo"},
    };
    for (const auto& [url, page] : cases) EXPECT_EQ(repository_page_of_clone_url(url), page) << url;
}

TEST(RepositoryPageTest, WhatIsNoPageGivesNone) {
    for (const char* url :
         {"", "/srv/git/repo.git", "file:///srv/git/repo.git", "https://github.com/repo",
          "https://github.com/", "git@github.com:org/re po.git", "https://github.com/org/repo)x",
          "git@evil.com\"onclick:org/repo", "javascript://x/org/repo"})
        EXPECT_EQ(repository_page_of_clone_url(url), std::nullopt) << url;
}

// Sets environment variables for one test and restores them after.
class Variables {
  public:
    explicit Variables(const std::vector<std::pair<std::string, std::string>>& values) {
        for (const auto& [name, value] : values) {
            const char* old = std::getenv(name.c_str());
            saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
            ::setenv(name.c_str(), value.c_str(), 1);
        }
    }
    Variables(const Variables&) = delete;
    Variables& operator=(const Variables&) = delete;
    ~Variables() {
        for (const auto& [name, value] : saved_) {
            if (value)
                ::setenv(name.c_str(), value->c_str(), 1);
            else
                ::unsetenv(name.c_str());
        }
    }

  private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(BuildkitePullRequestTest, ANumberIsThePullRequestAndFalseIsNone) {
    {
        const Variables variables({{"GITHUB_REF", ""}, {"BUILDKITE_PULL_REQUEST", "42"}});
        EXPECT_EQ(resolve_pull_request(std::nullopt), 42);
        EXPECT_EQ(resolve_pull_request(7), 7);  // the flag first
    }
    {
        const Variables variables({{"GITHUB_REF", ""}, {"BUILDKITE_PULL_REQUEST", "false"}});
        EXPECT_EQ(resolve_pull_request(std::nullopt), std::nullopt);
    }
    {
        // GitHub Actions' variables come first.
        const Variables variables(
            {{"GITHUB_REF", "refs/heads/main"}, {"BUILDKITE_PULL_REQUEST", "42"}});
        EXPECT_EQ(resolve_pull_request(std::nullopt), std::nullopt);
    }
    for (const char* bad : {"0", "-3", "12abc", "true", "99999999999999999999"}) {
        const Variables variables({{"GITHUB_REF", ""}, {"BUILDKITE_PULL_REQUEST", bad}});
        EXPECT_THROW(resolve_pull_request(std::nullopt), UsageError) << bad;
    }
}

model::Comparison comparison_of(const std::vector<model::Verdict>& verdicts) {
    model::Comparison comparison;
    comparison.baseline.kind = model::BaselineKind::MergeBase;
    for (const auto verdict : verdicts) {
        model::BenchmarkComparison benchmark;
        benchmark.verdict = verdict;
        comparison.benchmarks.push_back(benchmark);
    }
    return comparison;
}

TEST(AnnotationStyleTest, FollowsTheVerdicts) {
    using model::Verdict;
    EXPECT_EQ(annotation_style(comparison_of({Verdict::Unchanged, Verdict::Unchanged})), "success");
    EXPECT_EQ(annotation_style(comparison_of({Verdict::Faster, Verdict::Unchanged})), "success");
    EXPECT_EQ(annotation_style(comparison_of({Verdict::Slower, Verdict::Faster})), "error");
    // Even when most could not be judged, a slowdown is an error.
    EXPECT_EQ(
        annotation_style(comparison_of({Verdict::Slower, Verdict::TooNoisy, Verdict::TooNoisy})),
        "error");
    // Half unjudged is still success; more than half is a warning.
    EXPECT_EQ(annotation_style(comparison_of({Verdict::Inconclusive, Verdict::Unchanged})),
              "success");
    EXPECT_EQ(annotation_style(
                  comparison_of({Verdict::Inconclusive, Verdict::TooNoisy, Verdict::Unchanged})),
              "warning");
    EXPECT_EQ(annotation_style(comparison_of({})), "warning");
    auto no_baseline = comparison_of({});
    no_baseline.baseline.kind = model::BaselineKind::None;
    EXPECT_EQ(annotation_style(no_baseline), "warning");
}

}  // namespace
}  // namespace benchwatch::cli
