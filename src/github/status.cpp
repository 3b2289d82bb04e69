#include "github/status.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/printable.hpp"

namespace benchwatch::github {

namespace {

constexpr std::size_t description_limit = 140;

}  // namespace

CommitStatus comparison_status(const model::Comparison& comparison, bool fail_on_regression) {
    const auto count = [&](model::Verdict verdict) {
        return std::count_if(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                             [verdict](const model::BenchmarkComparison& benchmark) {
                                 return benchmark.verdict == verdict;
                             });
    };
    const auto slower = count(model::Verdict::Slower);
    CommitStatus status;
    // After re-measuring, the verdicts are the settled ones: only a confirmed slowdown is Slower.
    status.state = fail_on_regression && slower > 0 && !comparison.accepted ? "failure" : "success";
    if (comparison.baseline.kind == model::BaselineKind::None)
        status.description = fmt::format("no baseline run to compare {} benchmarks with",
                                         comparison.head_only_results.size());
    else {
        // "0 slower" alone would read as "no change" when most benchmarks could not be judged.
        std::string unjudged;
        if (const auto too_noisy = count(model::Verdict::TooNoisy); too_noisy > 0)
            unjudged += fmt::format(", {} too noisy", too_noisy);
        if (const auto inconclusive = count(model::Verdict::Inconclusive); inconclusive > 0)
            unjudged += fmt::format(", {} inconclusive", inconclusive);
        status.description =
            fmt::format("{} slower, {} faster{} of {} benchmarks", slower,
                        count(model::Verdict::Faster), unjudged, comparison.benchmarks.size());
        if (comparison.confirmation) {
            const auto settled = [&](model::ConfirmationVerdict verdict) {
                return std::count_if(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                                     [verdict](const model::BenchmarkComparison& benchmark) {
                                         return benchmark.confirmation == verdict;
                                     });
            };
            status.description +=
                fmt::format("; re-measured: {} confirmed, {} dismissed, {} undecided",
                            settled(model::ConfirmationVerdict::Confirmed),
                            settled(model::ConfirmationVerdict::Dismissed),
                            settled(model::ConfirmationVerdict::Undecided));
        }
    }
    if (comparison.accepted)
        status.description =
            "accepted by label " + comparison.accepted->label +
            (comparison.accepted->by.empty() ? "" : " (by " + comparison.accepted->by + ")") +
            ": " + status.description;
    // Cut at a character's start, so that a label of many-byte characters leaves valid UTF-8.
    status.description.resize(model::utf8_prefix(status.description, description_limit).size());
    status.context = "benchwatch/" + comparison.project;
    return status;
}

void set_commit_status(Client& client, const std::string& repository, const std::string& sha,
                       const CommitStatus& status) {
    nlohmann::json payload = {
        {"state", status.state}, {"description", status.description}, {"context", status.context}};
    if (!status.target_url.empty()) payload["target_url"] = status.target_url;
    client.send({"POST", fmt::format("/repos/{}/statuses/{}", repository, sha), payload,
                 fmt::format("commit {} of {}", sha, repository), "statuses: write"});
}

}  // namespace benchwatch::github
