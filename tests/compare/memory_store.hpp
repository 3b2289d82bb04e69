#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "store/store.hpp"

namespace benchwatch::testing {

// A store::Store kept in memory, for tests of the layers above the store. It also counts how
// many runs' results were asked for, so that tests can check that only recent history is read,
// and keeps one cached calibration per settings fingerprint.
class MemoryStore : public store::Store {
  public:
    store::RecordOutcome record(const model::Run& run) override {
        int earlier_attempts = 0;
        for (const auto& stored : runs_) {
            if (!same_commit(stored, run)) continue;
            if (stored.content_hash == run.content_hash && !run.content_hash.empty())
                return {stored.id, false, stored.attempt};
            ++earlier_attempts;
        }
        auto stored = run;
        stored.id = static_cast<std::int64_t>(runs_.size()) + 1;
        stored.attempt = earlier_attempts + 1;
        runs_.push_back(stored);
        return {stored.id, true, stored.attempt};
    }

    std::vector<store::RecordOutcome> record_all(std::span<const model::Run> runs) override {
        std::vector<store::RecordOutcome> outcomes;
        for (const auto& run : runs) outcomes.push_back(record(run));
        return outcomes;
    }

    std::vector<model::Run> list_runs(const store::RunFilter& filter) override {
        std::vector<model::Run> found;
        for (const auto& run : runs_) {
            if (!filter.project.empty() && run.project != filter.project) continue;
            if (!filter.machine.empty() && run.machine != filter.machine) continue;
            if (!filter.branch.empty() && run.branch != filter.branch) continue;
            if (run.id <= filter.after_id) continue;
            if (!filter.commits.empty() && std::find(filter.commits.begin(), filter.commits.end(),
                                                     run.commit) == filter.commits.end())
                continue;
            found.push_back(run);
            found.back().results.clear();
        }
        return found;
    }

    std::unordered_map<std::int64_t, std::vector<model::Result>> results(
        std::span<const std::int64_t> run_ids) override {
        std::unordered_map<std::int64_t, std::vector<model::Result>> found;
        for (const auto id : run_ids) {
            ++runs_read_;
            if (id >= 1 && id <= static_cast<std::int64_t>(runs_.size()))
                found[id] = runs_[static_cast<std::size_t>(id - 1)].results;
        }
        return found;
    }

    // Values through results(), each benchmark numbered once for the store's life, as a
    // database's benchmark ids are.
    store::ResultValues result_values(std::span<const std::int64_t> run_ids,
                                      const std::function<bool(std::int64_t)>& known) override {
        store::ResultValues read;
        for (auto& [run_id, results] : results(run_ids))
            for (auto& result : results) {
                const auto [found, added] = benchmark_ids_.try_emplace(
                    std::tuple{result.benchmark, result.metric, result.unit, result.direction},
                    static_cast<std::int64_t>(benchmark_ids_.size()) + 1);
                const std::int64_t id = found->second;
                read.values.push_back({run_id, id, result.value});
                if ((known && known(id)) || read.benchmarks.contains(id)) continue;
                model::Result benchmark;
                benchmark.benchmark = std::move(result.benchmark);
                benchmark.metric = std::move(result.metric);
                benchmark.unit = std::move(result.unit);
                benchmark.direction = result.direction;
                read.benchmarks.emplace(id, std::move(benchmark));
            }
        return read;
    }

    std::unordered_map<std::int64_t, std::size_t> result_counts(
        std::span<const std::int64_t> run_ids) override {
        std::unordered_map<std::int64_t, std::size_t> counts;
        for (const auto id : run_ids)
            counts[id] = id >= 1 && id <= static_cast<std::int64_t>(runs_.size())
                             ? runs_[static_cast<std::size_t>(id - 1)].results.size()
                             : 0;
        return counts;
    }

    std::vector<std::string> projects() override {
        std::set<std::string> names;
        for (const auto& run : runs_) names.insert(run.project);
        return {names.begin(), names.end()};
    }

    std::vector<std::string> machines(const std::string& project) override {
        std::set<std::string> names;
        for (const auto& run : runs_)
            if (run.project == project) names.insert(run.machine);
        return {names.begin(), names.end()};
    }

    std::vector<std::string> benchmark_names(const std::string& project) override {
        std::set<std::string> names;
        for (const auto& run : runs_)
            if (run.project == project)
                for (const auto& result : run.results) names.insert(result.benchmark);
        return {names.begin(), names.end()};
    }

    int schema_version() override { return 1; }

    std::int64_t last_run_id() override { return runs_.empty() ? 0 : runs_.back().id; }

    std::int64_t run_count() override { return static_cast<std::int64_t>(runs_.size()); }

    std::optional<std::string> cached_calibration(const store::CalibrationKey& key) override {
        ++cache_reads_;
        if (cache_fails)
            throw store::StoreError("store memory: reading a cached calibration: refused");
        const auto found = cache_.find(key.settings);
        if (found == cache_.end() || found->second.project != key.project ||
            found->second.machine != key.machine || found->second.history != key.history)
            return std::nullopt;
        return found->second.value;
    }

    void cache_calibration(const store::CalibrationKey& key, const std::string& value) override {
        ++cache_writes_;
        if (cache_fails || cache_read_only)
            throw store::StoreError("store memory: caching a calibration: read-only");
        cache_[key.settings] = {key.project, key.machine, key.history, value};
    }

    // How many run ids results() has been given so far.
    int runs_read() const { return runs_read_; }

    // How many times the calibration cache was read and written (failed calls included).
    int cache_reads() const { return cache_reads_; }
    int cache_writes() const { return cache_writes_; }

    // Replaces the cached value of every entry, as a damaged or foreign one would be.
    void overwrite_cached_values(const std::string& value) {
        for (auto& [settings, entry] : cache_) entry.value = value;
    }

    // Makes every cache read and write throw StoreError, as an unreachable store would.
    bool cache_fails = false;
    // Makes every cache write throw StoreError, as a read-only store would.
    bool cache_read_only = false;

  private:
    static bool same_commit(const model::Run& a, const model::Run& b) {
        return a.project == b.project && a.machine == b.machine && a.commit == b.commit;
    }

    struct CacheEntry {
        std::string project;
        std::string machine;
        std::string history;
        std::string value;
    };

    std::vector<model::Run> runs_;
    int runs_read_ = 0;
    std::map<std::tuple<std::string, std::string, std::string, model::Direction>, std::int64_t>
        benchmark_ids_;
    // By settings fingerprint: these tests use one project and machine.
    std::map<std::string, CacheEntry> cache_;
    int cache_reads_ = 0;
    int cache_writes_ = 0;
};

}  // namespace benchwatch::testing
