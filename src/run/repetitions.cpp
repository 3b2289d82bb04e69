#include "run/repetitions.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "stats/stats.hpp"

namespace benchwatch::run {

namespace {

// `samples` holds every value it summarises, not only order statistics of them.
bool holds_every_value(const std::optional<model::SampleSummary>& samples) {
    return samples && samples->count > 0 &&
           static_cast<std::size_t>(samples->count) == samples->values.size();
}

// The summary of the values of `first` and `second` together, or nullopt when either keeps only
// part of its values, or together they hold more than a result keeps.
std::optional<model::SampleSummary> pooled(const std::optional<model::SampleSummary>& first,
                                           const std::optional<model::SampleSummary>& second) {
    if (!holds_every_value(first) || !holds_every_value(second)) return std::nullopt;
    std::vector<double> values = first->values;
    values.insert(values.end(), second->values.begin(), second->values.end());
    if (values.size() > model::kKeptSampleValues) return std::nullopt;
    std::sort(values.begin(), values.end());
    model::SampleSummary summary;
    summary.count = static_cast<std::int64_t>(values.size());
    summary.median = stats::median(values);
    summary.mean = stats::mean(values);
    summary.stddev = stats::sample_stddev(values);
    summary.values = std::move(values);
    return summary;
}

}  // namespace

void add_repetition(std::vector<model::Result>& best, std::vector<model::Result> repetition) {
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    for (std::size_t i = 0; i < best.size(); ++i)
        index.emplace(std::pair{best[i].benchmark, best[i].metric}, i);
    for (auto& result : repetition) {
        const auto found = index.find({result.benchmark, result.metric});
        if (found == index.end()) {
            index.emplace(std::pair{result.benchmark, result.metric}, best.size());
            best.push_back(std::move(result));
            continue;
        }
        auto& kept = best[found->second];
        // Keeping the old value instead of the new one would be a change for the worse.
        const bool better = model::worse(result.direction, kept.value / result.value);
        auto samples = pooled(kept.samples, result.samples);
        if (better) kept = std::move(result);
        if (samples) kept.samples = std::move(samples);
    }
}

}  // namespace benchwatch::run
