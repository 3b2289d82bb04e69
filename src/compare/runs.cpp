#include "compare/runs.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace benchwatch::compare::detail {

bool selected(std::string_view name, std::string_view filter) {
    if (filter.empty() || name == filter) return true;
    if (filter.ends_with('/')) return name.starts_with(filter);
    return name.size() > filter.size() && name.starts_with(filter) && name[filter.size()] == '/';
}

namespace {

// How many commits' results the first store query asks for. Large enough that 31 history points
// usually take one or two queries, small enough that a long history is never read whole when
// only its newest points matter.
constexpr std::size_t commits_per_batch = 16;
// Each further query asks for up to twice as many commits as the one before, as long as their
// results, at as many per commit as the latest query found, number no more than this: what 16
// commits of 1,000 benchmarks hold. A long history of few benchmarks then takes few queries.
constexpr std::size_t results_per_batch = 16'000;

// How many commits the next query asks for, after one of `commits` commits found `results`.
std::size_t next_batch_size(std::size_t commits, std::size_t results) {
    const std::size_t per_commit = std::max<std::size_t>(1, results / commits);
    return std::max(commits_per_batch, std::min(2 * commits, results_per_batch / per_commit));
}

void keep_best(CombinedResults& combined, model::Result result) {
    ResultKey key{result.benchmark, result.metric};
    // A run's results mostly come in key order, so the end is tried before a search.
    auto position = combined.end();
    if (!combined.empty() && !(std::prev(position)->first < key))
        position = combined.lower_bound(key);
    if (position == combined.end() || position->first != key)
        combined.emplace_hint(position, std::move(key), std::move(result));
    else if (better(result, position->second))
        position->second = std::move(result);
}

}  // namespace

bool better(const model::Result& candidate, const model::Result& current) {
    // Going from `candidate` to `current` would be a change for the worse.
    return model::worse(candidate.direction, current.value / candidate.value);
}

RunIndex::RunIndex(std::vector<model::Run> runs, model::BenchmarkRules rules)
    : runs_(std::move(runs)), rules_(std::move(rules)) {
    // First how many runs each commit keeps (its clean ones when it has any), then each one's
    // place in `chosen_`, then the runs themselves in recording order.
    by_commit_.reserve(runs_.size());
    std::vector<std::size_t> dirty_counts;
    std::unordered_map<std::string_view, std::size_t> dirty_of;
    for (const auto& run : runs_) {
        auto& chosen = by_commit_[run.commit];
        if (!model::is_dirty(run)) {
            chosen.clean = true;
            ++chosen.count;
        } else {
            const auto [found, added] = dirty_of.try_emplace(run.commit, dirty_counts.size());
            if (added) dirty_counts.push_back(0);
            ++dirty_counts[found->second];
        }
    }
    std::size_t next = 0;
    for (auto& [commit, chosen] : by_commit_) {
        if (!chosen.clean) chosen.count = dirty_counts[dirty_of.at(commit)];
        chosen.first = next;
        next += chosen.count;
        chosen.count = 0;
    }
    chosen_.resize(next);
    for (const auto& run : runs_) {
        auto& chosen = by_commit_.find(run.commit)->second;
        if (model::is_dirty(run) == chosen.clean) continue;
        chosen_[chosen.first + chosen.count++] = &run;
    }
}

std::span<const model::Run* const> RunIndex::runs_of(std::string_view commit) const {
    const auto position = by_commit_.find(commit);
    if (position == by_commit_.end()) return {};
    return std::span(chosen_).subspan(position->second.first, position->second.count);
}

std::vector<std::string> RunIndex::commits_starting_with(std::string_view prefix) const {
    std::vector<std::string> found;
    for (const auto& [commit, positions] : by_commit_)
        if (commit.starts_with(prefix)) found.emplace_back(commit);
    std::sort(found.begin(), found.end());
    return found;
}

RunIndex index_runs(store::Store& store, const std::string& project, const std::string& machine,
                    model::BenchmarkRules rules, bool outline) {
    store::RunFilter filter;
    filter.project = project;
    filter.machine = machine;
    filter.outline = outline;
    return RunIndex(store.list_runs(filter), std::move(rules));
}

CombinedResults load_combined(store::Store& store, const RunIndex& index, const std::string& commit,
                              std::set<std::string>* ignored) {
    CombinedResults combined;
    visit_history(
        store, index, std::span(&commit, 1),
        [&](std::size_t, CombinedResults& results) {
            combined = std::move(results);
            return false;
        },
        ignored);
    return combined;
}

void visit_history(store::Store& store, const RunIndex& index, std::span<const std::string> commits,
                   const std::function<bool(std::size_t, CombinedResults&)>& visit,
                   std::set<std::string>* ignored) {
    std::size_t batch_size = commits_per_batch;
    for (std::size_t start = 0; start < commits.size();) {
        const auto batch = commits.subspan(start, std::min(batch_size, commits.size() - start));
        std::vector<std::int64_t> run_ids;
        for (const auto& commit : batch)
            for (const auto* run : index.runs_of(commit)) run_ids.push_back(run->id);
        auto results_by_run = store.results(run_ids);
        std::size_t results = 0;
        for (const auto& [id, of_run] : results_by_run) results += of_run.size();
        const std::size_t next_size = next_batch_size(batch.size(), results);

        for (std::size_t offset = 0; offset < batch.size(); ++offset) {
            CombinedResults combined;
            for (const auto* run : index.runs_of(batch[offset]))
                for (auto& result : results_by_run[run->id]) {
                    if (!index.ignores(result.benchmark))
                        keep_best(combined, std::move(result));
                    else if (ignored)
                        ignored->insert(result.benchmark);
                }
            if (!visit(start + offset, combined)) return;
        }
        start += batch.size();
        batch_size = next_size;
    }
}

std::size_t ValueKeys::number(const ResultKey& key) {
    const auto [found, added] = numbers_.try_emplace(key, keys_.size());
    if (added) keys_.push_back(key);
    return found->second;
}

void visit_history_values(
    store::Store& store, const RunIndex& index, std::span<const std::string> commits,
    ValueKeys& keys, const std::function<bool(std::size_t, std::span<const KeyedValue>)>& visit) {
    // What a stored benchmark id is to this reading. Its rank among the names sorts a run's
    // results as Store::results() does (name, metric, unit), so that the attempts and results of
    // one key are combined in the order visit_history() combines them.
    using Names = std::map<std::tuple<std::string, std::string, std::string>, std::size_t>;
    struct Benchmark {
        std::size_t key = 0;
        Names::const_iterator names;  // its rank among the names met is names->second
        model::Direction direction = model::Direction::SmallerIsBetter;
        bool ignored = false;
    };
    std::unordered_map<std::int64_t, Benchmark> benchmarks;
    Names names;
    const auto learn = [&](const std::unordered_map<std::int64_t, model::Result>& read) {
        bool added = false;
        for (const auto& [id, benchmark] : read) {
            if (benchmarks.contains(id)) continue;
            added = true;
            const auto found =
                names.try_emplace({benchmark.benchmark, benchmark.metric, benchmark.unit}, 0).first;
            benchmarks[id] = {keys.number({benchmark.benchmark, benchmark.metric}), found,
                              benchmark.direction, index.ignores(benchmark.benchmark)};
        }
        if (!added) return;
        std::size_t rank = 0;
        for (auto& [name, order] : names) order = rank++;
    };

    std::size_t batch_size = commits_per_batch;
    std::vector<KeyedValue> combined;
    std::vector<std::size_t> slot_of_key;  // key → its index in `combined` + 1; 0: none yet
    for (std::size_t start = 0; start < commits.size();) {
        const auto batch = commits.subspan(start, std::min(batch_size, commits.size() - start));
        std::vector<std::int64_t> run_ids;
        for (const auto& commit : batch)
            for (const auto* run : index.runs_of(commit)) run_ids.push_back(run->id);
        auto read =
            store.result_values(run_ids, [&](std::int64_t id) { return benchmarks.contains(id); });
        learn(read.benchmarks);
        slot_of_key.resize(keys.size(), 0);
        // Each value with its benchmark, by run and then as results() orders a run's results.
        struct Placed {
            std::int64_t run_id = 0;
            std::size_t rank = 0;
            double value = 0;
            const Benchmark* benchmark = nullptr;
            std::int64_t benchmark_id = 0;
            auto operator<=>(const Placed& other) const {
                return std::tie(run_id, rank) <=> std::tie(other.run_id, other.rank);
            }
        };
        std::vector<Placed> placed;
        placed.reserve(read.values.size());
        for (const auto& value : read.values) {
            const auto& benchmark = benchmarks.at(value.benchmark_id);
            placed.push_back({value.run_id, benchmark.names->second, value.value, &benchmark,
                              value.benchmark_id});
        }
        const auto by_run = [](const Placed& a, const Placed& b) { return a.run_id < b.run_id; };
        if (!std::is_sorted(placed.begin(), placed.end(), by_run)) {
            std::sort(placed.begin(), placed.end());
        } else {
            // Each run's values in rank order. Runs of a history mostly hold the same benchmarks
            // read in the same order, so the order found for one run is tried on the next before
            // sorting: sorting every run was a fifth of a calibration's time.
            std::vector<std::int64_t> previous_ids;
            std::vector<std::size_t> previous_order;
            std::vector<Placed> run_values;
            for (auto first = placed.begin(); first != placed.end();) {
                const auto last = std::find_if(first, placed.end(), [&](const Placed& value) {
                    return value.run_id != first->run_id;
                });
                const auto count = static_cast<std::size_t>(last - first);
                const bool same_as_previous = count == previous_ids.size() &&
                                              std::equal(first, last, previous_ids.begin(),
                                                         [](const Placed& value, std::int64_t id) {
                                                             return value.benchmark_id == id;
                                                         });
                if (!same_as_previous) {
                    previous_ids.clear();
                    for (auto at = first; at != last; ++at)
                        previous_ids.push_back(at->benchmark_id);
                    previous_order.resize(count);
                    for (std::size_t i = 0; i < count; ++i) previous_order[i] = i;
                    std::sort(previous_order.begin(), previous_order.end(),
                              [&](std::size_t a, std::size_t b) { return first[a] < first[b]; });
                }
                run_values.clear();
                for (const auto i : previous_order) run_values.push_back(first[i]);
                std::copy(run_values.begin(), run_values.end(), first);
                first = last;
            }
        }
        const std::size_t next_size = next_batch_size(batch.size(), placed.size());

        for (std::size_t offset = 0; offset < batch.size(); ++offset) {
            combined.clear();
            for (const auto* run : index.runs_of(batch[offset])) {
                auto first = std::lower_bound(
                    placed.begin(), placed.end(), run->id,
                    [](const Placed& value, std::int64_t id) { return value.run_id < id; });
                for (; first != placed.end() && first->run_id == run->id; ++first) {
                    const auto& benchmark = *first->benchmark;
                    if (benchmark.ignored) continue;
                    const KeyedValue candidate{benchmark.key, first->value, benchmark.direction,
                                               std::get<2>(benchmark.names->first)};
                    auto& slot = slot_of_key[benchmark.key];
                    if (slot == 0) {
                        combined.push_back(candidate);
                        slot = combined.size();
                    } else if (model::worse(candidate.direction,
                                            combined[slot - 1].value / candidate.value)) {
                        combined[slot - 1] = candidate;
                    }
                }
            }
            for (const auto& one : combined) slot_of_key[one.key] = 0;
            if (!visit(start + offset, combined)) return;
        }
        start += batch.size();
        batch_size = next_size;
    }
}

std::vector<std::string> benchmarked_commits(std::span<const std::string> chain,
                                             const RunIndex& index, const std::string& excluded) {
    std::vector<std::string> kept;
    for (const auto& commit : chain)
        if (commit != excluded && index.has_clean(commit)) kept.push_back(commit);
    return kept;
}

std::vector<std::string> recorded_commits(const RunIndex& index, const std::string& branch,
                                          const std::string& excluded, const std::string& up_to) {
    const auto& runs = index.runs();
    std::size_t end = runs.size();
    if (!up_to.empty()) {
        const auto up_to_runs = index.runs_of(up_to);
        if (!up_to_runs.empty())
            end = static_cast<std::size_t>(up_to_runs.back() - runs.data()) + 1;
    }

    std::vector<std::string> oldest_first;
    std::unordered_set<std::string_view> seen;
    for (std::size_t i = 0; i < end; ++i) {
        const auto& commit = runs[i].commit;
        if (runs[i].branch != branch || commit == excluded || commit == up_to ||
            model::is_dirty(runs[i]))
            continue;
        if (seen.insert(commit).second) oldest_first.push_back(commit);
    }
    if (!up_to.empty()) oldest_first.push_back(up_to);
    std::reverse(oldest_first.begin(), oldest_first.end());
    return oldest_first;
}

}  // namespace benchwatch::compare::detail
