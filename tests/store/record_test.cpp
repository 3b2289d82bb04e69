// What could break, on SQLite and on PostgreSQL alike: a field lost or rounded on its way through
// the store, a run stored twice, wrong attempt numbers, list_runs filters or order, or results of
// one run given to another.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <tuple>

#include "model/run_checks.hpp"
#include "store/store.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using testing::make_run;

using RecordTest = testing::BackendTest;

TEST_P(RecordTest, RoundTripsEveryFieldExactly) {
    model::Run run = make_run("0123456789abcdef0123456789abcdef01234567", "sha256:aa");
    run.pull_request = 2604;
    run.environment = {{"julia", "1.11.2"}, {"cpu", "AMD EPYC 7402"}, {"empty", ""}};
    run.commit_info = model::CommitInfo{"Fix copyto!\n\nLonger body.", "Tim Besard",
                                        "2024-10-02T09:50:18+02:00", "https://example.org/c/0123"};
    model::Result copy = testing::time_result("array/copyto!/gpu_to_cpu", 0.1 + 0.2);
    // 0.1 + 0.2 = 0.30000000000000004 needs all 17 significant digits to round-trip.
    copy.allocations = 17.0;
    copy.memory = 1'048'576.0;
    copy.user_time = 2.5e7;
    copy.system_time = 0.0;
    copy.gc_time = 3.25e6;
    copy.samples = model::SampleSummary{
        1000, 1e-300, 1.5e300, 123456789.123456789, {1e-300, 0.1, 1.0 / 3.0, 1.5e300}};
    model::Result throughput = testing::time_result("throughput/read", 9.875e9);
    throughput.metric = "bytes_per_second";
    throughput.unit = "B/s";
    throughput.direction = model::Direction::BiggerIsBetter;
    // The smallest time a run may hold (below it, a ratio overflows).
    const model::Result tiny =
        testing::time_result("unicode/π/ü", std::numeric_limits<double>::min());
    run.results = {copy, throughput, tiny};

    auto store = open();
    const RecordOutcome outcome = store->record(run);
    EXPECT_TRUE(outcome.inserted);
    EXPECT_EQ(outcome.attempt, 1);
    EXPECT_GT(outcome.run_id, 0);

    // A second connection sees what the first committed.
    auto reader = open();
    const std::vector<model::Run> runs = reader->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    model::Run expected = run;
    expected.id = outcome.run_id;
    expected.attempt = 1;
    expected.results.clear();  // list_runs leaves results out
    EXPECT_EQ(runs[0].id, expected.id);
    EXPECT_EQ(runs[0].project, "cuda");
    EXPECT_EQ(runs[0].machine, "ci-1");
    EXPECT_EQ(runs[0].commit, expected.commit);
    EXPECT_EQ(runs[0].branch, "master");
    EXPECT_EQ(runs[0].pull_request, 2604);
    EXPECT_EQ(runs[0].recorded_at_ms, 1'700'000'000'000);
    EXPECT_EQ(runs[0].attempt, 1);
    EXPECT_EQ(runs[0].environment, expected.environment);
    EXPECT_EQ(runs[0].format, "benchmarktools");
    EXPECT_EQ(runs[0].content_hash, "sha256:aa");
    EXPECT_EQ(runs[0].commit_info, run.commit_info);
    EXPECT_TRUE(runs[0].results.empty());

    const std::int64_t ids[] = {outcome.run_id};
    const auto results = reader->results(ids);
    ASSERT_EQ(results.size(), 1u);
    // Sorted by name: "array/…" < "throughput/…" < "unicode/…".
    EXPECT_EQ(results.at(outcome.run_id), run.results);
}

TEST_P(RecordTest, OptionalFieldsComeBackEmpty) {
    model::Run run = make_run("c1", "h1");
    auto store = open();
    const RecordOutcome outcome = store->record(run);

    const model::Run stored = store->list_runs({}).at(0);
    EXPECT_EQ(stored.pull_request, std::nullopt);
    EXPECT_TRUE(stored.environment.empty());
    const std::int64_t ids[] = {outcome.run_id};
    const auto results = store->results(ids);
    const model::Result& first = results.at(outcome.run_id).at(0);
    EXPECT_EQ(first.allocations, std::nullopt);
    EXPECT_EQ(first.memory, std::nullopt);
    EXPECT_EQ(first.user_time, std::nullopt);
    EXPECT_EQ(first.system_time, std::nullopt);
    EXPECT_EQ(first.samples, std::nullopt);
}

TEST_P(RecordTest, WarningsComeBackInTheirOrder) {
    model::Run run = make_run("c1", "h1");
    // Not in kind order, and two of one kind: the recorded order is what comes back.
    run.warnings = {
        {"few-samples", "1 benchmark has fewer than 5 samples (latency/ttfp)."},
        {"cpu-governor", "2 of 4 CPUs use the 'powersave' frequency governor."},
        {"cpu-governor", "2 of 4 CPUs use the 'ondemand' frequency governor."},
        {"unicode", "π ü \"quoted\" ''; DROP TABLE runs; --"},
    };
    auto store = open();
    store->record(run);
    // A second attempt without warnings gets none of the first one's.
    store->record(make_run("c1", "h2"));

    const std::vector<model::Run> runs = open()->list_runs({});
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].warnings, run.warnings);
    EXPECT_TRUE(runs[1].warnings.empty());
}

TEST_P(RecordTest, NanDeviationOfASingleSampleComesBackAsNan) {
    model::Run run = make_run("c1", "h1");
    run.results = {testing::time_result("once", 7.0)};
    run.results[0].samples =
        model::SampleSummary{1, 7.0, 7.0, std::numeric_limits<double>::quiet_NaN(), {7.0}};
    auto store = open();
    const RecordOutcome outcome = store->record(run);

    const std::int64_t ids[] = {outcome.run_id};
    const model::Result stored = store->results(ids).at(outcome.run_id).at(0);
    ASSERT_TRUE(stored.samples.has_value());
    EXPECT_EQ(stored.samples->count, 1);
    EXPECT_EQ(stored.samples->median, 7.0);
    EXPECT_TRUE(std::isnan(stored.samples->stddev));
}

TEST_P(RecordTest, SameContentTwiceIsStoredOnce) {
    auto store = open();
    const RecordOutcome first = store->record(make_run("c1", "h1"));
    model::Run again = make_run("c1", "h1");
    again.recorded_at_ms += 60'000;  // recorded later, same content: still the same run
    const RecordOutcome second = store->record(again);

    EXPECT_TRUE(first.inserted);
    EXPECT_FALSE(second.inserted);
    EXPECT_EQ(second.run_id, first.run_id);
    EXPECT_EQ(second.attempt, 1);
    const auto runs = store->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].recorded_at_ms, 1'700'000'000'000);
}

TEST_P(RecordTest, DifferentContentOfOneCommitIsTheNextAttempt) {
    auto store = open();
    EXPECT_EQ(store->record(make_run("c1", "h1")).attempt, 1);
    EXPECT_EQ(store->record(make_run("c1", "h2")).attempt, 2);
    EXPECT_EQ(store->record(make_run("c2", "h1")).attempt, 1);  // another commit starts at 1
    model::Run other_machine = make_run("c1", "h3");
    other_machine.machine = "ci-2";
    EXPECT_EQ(store->record(other_machine).attempt, 1);  // attempts count per machine
    const RecordOutcome third = store->record(make_run("c1", "h3"));
    EXPECT_TRUE(third.inserted);
    EXPECT_EQ(third.attempt, 3);
    // Re-recording attempt 2's content returns attempt 2, not a new one.
    const RecordOutcome repeat = store->record(make_run("c1", "h2"));
    EXPECT_FALSE(repeat.inserted);
    EXPECT_EQ(repeat.attempt, 2);

    std::vector<int> attempts;
    for (const model::Run& run : store->list_runs(RunFilter{"cuda", "ci-1", "", {}}))
        attempts.push_back(run.attempt);
    EXPECT_EQ(attempts, (std::vector<int>{1, 2, 1, 3}));
}

TEST_P(RecordTest, TwoResultsOfOneBenchmarkAndMetricAreRefusedAndNothingIsStored) {
    model::Run run = make_run("c1", "h1");
    run.results.push_back(run.results.front());
    // Warnings are written before the results: the failure must take them back too.
    run.warnings = {{"high-load", "The load average was 3.00 at start on 2 cores."}};
    auto store = open();
    try {
        store->record(run);
        FAIL() << "expected StoreError";
    } catch (const StoreError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "store " + shown_url() +
                      ": recording the run of commit c1: benchmark \"array/copy\" has two "
                      "results for metric time (ns, smaller)");
    }
    EXPECT_TRUE(store->list_runs({}).empty());
    EXPECT_TRUE(store->projects().empty());
    EXPECT_EQ(query_text("SELECT count(*) FROM run_warnings"), "0");
}

TEST_P(RecordTest, NanValueIsRefused) {
    model::Run run = make_run("c1", "h1");
    run.results[1].value = std::numeric_limits<double>::quiet_NaN();
    auto store = open();
    try {
        store->record(run);
        FAIL() << "expected StoreError";
    } catch (const StoreError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "store " + shown_url() +
                      ": recording the run of commit c1: benchmark \"latency/ttfp\" has the "
                      "value NaN, which cannot be stored");
    }
    EXPECT_TRUE(store->list_runs({}).empty());
}

// A run that every way in would have refused is refused by the store too, with the words record
// uses, and nothing of it is written: the store is the last line behind the readers.
TEST_P(RecordTest, RunsRecordWouldRefuseAreRefused) {
    const auto with = [](const std::function<void(model::Run&)>& change) {
        model::Run run = make_run("c1", "h1");
        change(run);
        return run;
    };
    const std::vector<std::pair<model::Run, std::string>> cases = {
        {with([](model::Run& run) { run.machine = "ci\x1b[2J"; }),
         "the run: machine name \"ci\\x1b[2J\" holds control character U+001B; names must be "
         "printable on one line"},
        {with([](model::Run& run) { run.branch = "master\nwarning: forged"; }),
         "the run: branch name \"master\\nwarning: forged\" holds control character U+000A; "
         "names must be printable on one line"},
        {with([](model::Run& run) { run.project = std::string(model::kLongestName + 1, 'p'); }),
         fmt::format("the run: project name of 4097 bytes is longer than the 4096 allowed: "
                     "\"{}…\"",
                     std::string(60, 'p'))},
        {with([](model::Run& run) { run.results[0].benchmark = "array/\u009bcopy"; }),
         "the run: benchmark name \"array/\\x9bcopy\" holds control character U+009B; names "
         "must be printable on one line"},
        {with([](model::Run& run) { run.results[0].value = 0; }),
         "the run: benchmark 'array/copy': time must be a positive number, got 0"},
        {with([](model::Run& run) { run.results[0].value = -1500; }),
         "the run: benchmark 'array/copy': time must be a positive number, got -1500"},
        {with([](model::Run& run) { run.results[0].value = 1e-310; }),
         "the run: benchmark 'array/copy', metric 'time': the value in ns is 1e-310, too small "
         "to compare (below 2.2250738585072014e-308); results must hold normal numbers"},
        {with([](model::Run& run) {
             run.results[0].value = std::numeric_limits<double>::infinity();
         }),
         "the run: benchmark 'array/copy', metric 'time': the value in ns is inf, not a finite "
         "number; results must hold finite values"},
    };
    auto store = open();
    for (const auto& [run, problem] : cases) {
        try {
            store->record(run);
            ADD_FAILURE() << "expected StoreError: " << problem;
        } catch (const StoreError& error) {
            EXPECT_EQ(std::string(error.what()),
                      "store " + shown_url() + ": recording the run of commit c1: " + problem);
        }
    }
    EXPECT_TRUE(store->list_runs({}).empty());
    EXPECT_EQ(query_text("SELECT count(*) FROM results"), "0");
}

// Records, in this order: 1 cuda/ci-1/master/c1, 2 cuda/ci-1/pr/c2, 3 cuda/ci-2/master/c1,
// 4 amdgpu/ci-1/master/c1, 5 cuda/ci-1/master/c3.
class ListRunsTest : public testing::BackendTest {
  protected:
    void SetUp() override {
        BackendTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        store_ = open();
        const auto add = [&](std::string project, std::string machine, std::string branch,
                             std::string commit) {
            model::Run run = make_run(commit, "h");
            run.project = std::move(project);
            run.machine = std::move(machine);
            run.branch = std::move(branch);
            run.environment = {{"machine", run.machine}};
            run.warnings = {
                {"high-load", fmt::format("{}/{}/{}", run.project, run.machine, run.commit)}};
            ids_.push_back(store_->record(run).run_id);
        };
        add("cuda", "ci-1", "master", "c1");
        add("cuda", "ci-1", "pr", "c2");
        add("cuda", "ci-2", "master", "c1");
        add("amdgpu", "ci-1", "master", "c1");
        add("cuda", "ci-1", "master", "c3");
    }

    // The 1-based positions of the listed runs in recording order.
    std::vector<int> listed(const RunFilter& filter) {
        std::vector<int> positions;
        for (const model::Run& run : store_->list_runs(filter)) {
            const auto found = std::find(ids_.begin(), ids_.end(), run.id);
            EXPECT_NE(found, ids_.end());
            EXPECT_EQ(run.environment.at("machine"), run.machine);
            // Each run's warning names it, so a warning given to another run shows here.
            EXPECT_EQ(
                run.warnings,
                (std::vector<model::Warning>{
                    {"high-load", fmt::format("{}/{}/{}", run.project, run.machine, run.commit)}}));
            positions.push_back(static_cast<int>(found - ids_.begin()) + 1);
        }
        return positions;
    }

    std::unique_ptr<Store> store_;
    std::vector<std::int64_t> ids_;
};

TEST_P(ListRunsTest, EmptyFilterListsEveryRunOldestFirst) {
    EXPECT_EQ(listed({}), (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST_P(ListRunsTest, FiltersByProjectMachineAndBranch) {
    EXPECT_EQ(listed(RunFilter{"cuda", "", "", {}}), (std::vector<int>{1, 2, 3, 5}));
    EXPECT_EQ(listed(RunFilter{"cuda", "ci-1", "", {}}), (std::vector<int>{1, 2, 5}));
    EXPECT_EQ(listed(RunFilter{"cuda", "ci-1", "master", {}}), (std::vector<int>{1, 5}));
    EXPECT_EQ(listed(RunFilter{"", "", "master", {}}), (std::vector<int>{1, 3, 4, 5}));
    EXPECT_EQ(listed(RunFilter{"nothing", "", "", {}}), (std::vector<int>{}));
}

TEST_P(ListRunsTest, FiltersByCommitsInRecordingOrderWhateverTheirOrderInTheFilter) {
    EXPECT_EQ(listed(RunFilter{"", "", "", {"c3", "c1"}}), (std::vector<int>{1, 3, 4, 5}));
    EXPECT_EQ(listed(RunFilter{"cuda", "ci-1", "", {"c3", "c1", "c3"}}), (std::vector<int>{1, 5}));
    EXPECT_EQ(listed(RunFilter{"", "", "", {"unknown"}}), (std::vector<int>{}));
}

TEST_P(ListRunsTest, FiltersByMoreCommitsThanOneQueryHolds) {
    // 1,200 commits span three batches of at most 500; sorted, c1 is in the first and c3 in
    // the last, with the unknown c2-0000 … c2-1197 between them.
    std::vector<std::string> commits = {"c1"};
    for (int i = 0; i < 1198; ++i) commits.push_back(fmt::format("c2-{:04}", i));
    commits.push_back("c3");
    EXPECT_EQ(listed(RunFilter{"", "ci-1", "", commits}), (std::vector<int>{1, 4, 5}));
}

TEST_P(ListRunsTest, ProjectsAreSortedAndDistinct) {
    EXPECT_EQ(store_->projects(), (std::vector<std::string>{"amdgpu", "cuda"}));
}

TEST_P(ListRunsTest, MachinesOfAProjectAreSortedAndDistinct) {
    EXPECT_EQ(store_->machines("cuda"), (std::vector<std::string>{"ci-1", "ci-2"}));
    EXPECT_EQ(store_->machines("amdgpu"), (std::vector<std::string>{"ci-1"}));
    EXPECT_TRUE(store_->machines("nothing").empty());
}

TEST_P(RecordTest, OutlineListsWhatPlacesEachRunInAHistory) {
    // A run with its commit's details, a dirty pull-request rerun of that commit, and a run of
    // another commit with neither: the outline gives each what the whole listing gives of them.
    auto store = open();
    model::Run described = make_run("c1", "h1");
    described.commit_info = model::CommitInfo{"message", "author", "2024-05-06T07:08:09Z", "url"};
    described.environment = {{"compiler", "g++"}};
    model::Run dirty = make_run("c1", "h2");
    dirty.branch = "topic";
    dirty.pull_request = 7;
    dirty.recorded_at_ms += 5;
    dirty.environment = {{std::string(model::dirty_key), "yes"}, {"compiler", "clang"}};
    store->record(described);
    store->record(dirty);
    store->record(make_run("c2", "h3"));

    RunFilter outline_filter{"cuda", "ci-1", "", {}};
    outline_filter.outline = true;
    const auto outline = store->list_runs(outline_filter);
    const auto whole = store->list_runs(RunFilter{"cuda", "ci-1", "", {}});
    ASSERT_EQ(outline.size(), 3u);
    ASSERT_EQ(whole.size(), 3u);
    for (std::size_t i = 0; i < whole.size(); ++i) {
        SCOPED_TRACE(whole[i].commit + "/" + whole[i].content_hash);
        EXPECT_EQ(outline[i].id, whole[i].id);
        EXPECT_EQ(outline[i].project, whole[i].project);
        EXPECT_EQ(outline[i].machine, whole[i].machine);
        EXPECT_EQ(outline[i].commit, whole[i].commit);
        EXPECT_EQ(outline[i].branch, whole[i].branch);
        EXPECT_EQ(outline[i].pull_request, whole[i].pull_request);
        EXPECT_EQ(outline[i].recorded_at_ms, whole[i].recorded_at_ms);
        EXPECT_EQ(outline[i].attempt, whole[i].attempt);
        EXPECT_EQ(model::is_dirty(outline[i]), model::is_dirty(whole[i]));
        EXPECT_EQ(model::commit_time_ms(outline[i]), model::commit_time_ms(whole[i]));
    }
    EXPECT_TRUE(model::is_dirty(outline[1]));
    EXPECT_TRUE(model::commit_time_ms(outline[0]).has_value());
    EXPECT_FALSE(model::commit_time_ms(outline[2]).has_value());
}

TEST_P(RecordTest, EmptyStoreHasNoProjectsAndNoRuns) {
    auto store = open();
    EXPECT_TRUE(store->projects().empty());
    EXPECT_TRUE(store->list_runs({}).empty());
}

TEST_P(RecordTest, ResultsOfSeveralRunsAreKeptApart) {
    auto store = open();
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 3; ++i) {
        model::Run run = make_run(fmt::format("c{}", i), "h");
        run.results = {testing::time_result("shared", 100.0 + i),
                       testing::time_result(fmt::format("only-in-{}", i), 1.0 + i)};
        ids.push_back(store->record(run).run_id);
    }
    const std::int64_t unknown_id = ids.back() + 100;
    const std::int64_t requested[] = {ids[2], ids[0], ids[2], unknown_id};
    const auto results = store->results(requested);

    // Every requested id has an entry; run 1 was not requested.
    ASSERT_EQ(results.size(), 3u);
    EXPECT_TRUE(results.at(unknown_id).empty());
    EXPECT_EQ(results.at(ids[0]),
              (std::vector<model::Result>{testing::time_result("only-in-0", 1.0),
                                          testing::time_result("shared", 100.0)}));
    EXPECT_EQ(results.at(ids[2]),
              (std::vector<model::Result>{testing::time_result("only-in-2", 3.0),
                                          testing::time_result("shared", 102.0)}));
}

TEST_P(RecordTest, ALargeRunOfKnownAndNewBenchmarksComesBackWhole) {
    // More results than are prepared at once, the benchmarks the store knows and those it does
    // not taking turns, and sample values on some only: each comes back with its own.
    auto store = open();
    model::Run earlier = make_run("c0", "h0");
    model::Run run = make_run("c1", "h1");
    earlier.results.clear();
    run.results.clear();
    for (int i = 0; i < 10'000; ++i) {
        model::Result result = testing::time_result(fmt::format("b{:05}", i), 1.0 + i);
        if (i % 3 == 0)
            result.samples = model::SampleSummary{2, 1.5 + i, 1.5 + i, 0.5, {1.0 + i, 2.0 + i}};
        if (i % 7 == 0) result.allocations = i;
        if (i % 2 == 0) earlier.results.push_back(testing::time_result(result.benchmark, 5.0));
        run.results.push_back(result);
    }
    store->record(earlier);
    const std::int64_t id = store->record(run).run_id;
    const std::int64_t requested[] = {id};
    EXPECT_EQ(store->results(requested).at(id), run.results);
}

TEST_P(RecordTest, ResultsOfMoreRunsThanOneQueryHolds) {
    auto store = open();
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 510; ++i) {
        model::Run run = make_run(fmt::format("c{}", i), "h");
        run.results = {testing::time_result("b", 1.0 + i)};
        ids.push_back(store->record(run).run_id);
    }
    const auto results = store->results(ids);
    ASSERT_EQ(results.size(), 510u);
    for (int i = 0; i < 510; ++i) {
        ASSERT_EQ(results.at(ids[i]).size(), 1u);
        EXPECT_EQ(results.at(ids[i])[0].value, 1.0 + i);
    }
}

// What result_values() reads of `runs`, in the form of results(): per run, each value with its
// benchmark's name, metric, unit and direction, sorted as results() sorts.
std::map<std::int64_t, std::vector<model::Result>> values_as_results(
    Store& store, std::span<const std::int64_t> runs) {
    const auto read = store.result_values(runs);
    std::map<std::int64_t, std::vector<model::Result>> by_run;
    for (const auto& value : read.values) {
        auto result = read.benchmarks.at(value.benchmark_id);
        EXPECT_EQ(result.value, 0);
        result.value = value.value;
        by_run[value.run_id].push_back(result);
    }
    for (auto& [run, results] : by_run)
        std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) {
            return std::tie(a.benchmark, a.metric, a.unit) <
                   std::tie(b.benchmark, b.metric, b.unit);
        });
    return by_run;
}

TEST_P(RecordTest, ResultValuesAreTheValuesOfResultsOfMoreRunsThanOneQueryHolds) {
    // 510 runs (more than one query's list of ids), a run with no results, a benchmark in two
    // metrics and units, one bigger-is-better, and samples and allocations that it leaves out.
    auto store = open();
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 510; ++i) {
        model::Run run = make_run(fmt::format("c{}", i), "h");
        run.results = {testing::time_result("b", 1.0 + i)};
        if (i % 5 == 0) {
            auto throughput = testing::time_result("b", 1000.0 - i);
            throughput.metric = "throughput";
            throughput.unit = "items/s";
            throughput.direction = model::Direction::BiggerIsBetter;
            throughput.allocations = 7;
            throughput.samples = model::SampleSummary{2, 3, 3, 0.5, {2.5, 3.5}};
            run.results.push_back(throughput);
        }
        if (i % 7 == 0) run.results.push_back(testing::time_result(fmt::format("only-{}", i), 2.0));
        ids.push_back(store->record(run).run_id);
    }
    model::Run empty = make_run("empty", "h");
    empty.results.clear();
    ids.push_back(store->record(empty).run_id);

    const auto values = values_as_results(*store, ids);
    EXPECT_EQ(values.size(), 510u);  // the empty run has no values
    const auto results = store->results(ids);
    for (const auto id : ids) {
        auto expected = results.at(id);
        for (auto& result : expected) {
            result.allocations.reset();
            result.samples.reset();
        }
        const auto found = values.find(id);
        EXPECT_EQ(found == values.end() ? std::vector<model::Result>{} : found->second, expected)
            << "run " << id;
    }
    EXPECT_TRUE(store->result_values(std::span<const std::int64_t>{}).values.empty());
}

TEST_P(RecordTest, ResultValuesLeaveOutTheBenchmarksTheReaderKnows) {
    // A reader of many batches learns each benchmark once: those it says it knows come without
    // their names, and their values still come.
    auto store = open();
    model::Run first = make_run("c1", "h");
    first.results = {testing::time_result("a", 1), testing::time_result("b", 2)};
    model::Run second = make_run("c2", "h");
    second.results = {testing::time_result("a", 3), testing::time_result("c", 4)};
    const std::int64_t ids[] = {store->record(first).run_id, store->record(second).run_id};

    const auto all = store->result_values(ids);
    ASSERT_EQ(all.benchmarks.size(), 3u);
    std::int64_t id_of_a = 0;
    for (const auto& [id, benchmark] : all.benchmarks)
        if (benchmark.benchmark == "a") id_of_a = id;
    const auto without_a =
        store->result_values(ids, [&](std::int64_t id) { return id == id_of_a; });
    EXPECT_EQ(without_a.values.size(), 4u);
    EXPECT_EQ(without_a.benchmarks.size(), 2u);
    EXPECT_FALSE(without_a.benchmarks.contains(id_of_a));
    const auto all_known = store->result_values(ids, [](std::int64_t) { return true; });
    EXPECT_EQ(all_known.values.size(), 4u);
    EXPECT_TRUE(all_known.benchmarks.empty());
}

TEST_P(RecordTest, RunsCloseTogetherAreReadWithoutTheRunsBetweenThem) {
    // 40 consecutive runs of which 37 are asked for: close enough together to be read as one
    // range of ids, and the three between them must not come with them.
    auto store = open();
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 40; ++i) {
        model::Run run = make_run(fmt::format("c{}", i), "h");
        run.results = {testing::time_result("b", 1.0 + i)};
        ids.push_back(store->record(run).run_id);
    }
    std::vector<std::int64_t> requested;
    for (int i = 0; i < 40; ++i)
        if (i != 5 && i != 17 && i != 30) requested.push_back(ids[i]);

    const auto results = store->results(requested);
    EXPECT_EQ(results.size(), requested.size());
    const auto values = values_as_results(*store, requested);
    EXPECT_EQ(values.size(), requested.size());
    for (int i = 0; i < 40; ++i) {
        const bool asked = i != 5 && i != 17 && i != 30;
        EXPECT_EQ(results.contains(ids[i]), asked) << "run " << i;
        EXPECT_EQ(values.contains(ids[i]), asked) << "run " << i;
        if (!asked) continue;
        EXPECT_EQ(results.at(ids[i]), (std::vector{testing::time_result("b", 1.0 + i)}));
        EXPECT_EQ(values.at(ids[i]), (std::vector{testing::time_result("b", 1.0 + i)}));
    }
}

BENCHWATCH_ON_EVERY_BACKEND(ListRunsTest);

using RecordAllTest = testing::BackendTest;

TEST_P(RecordAllTest, StoresEveryRunOnceAndAgainNothing) {
    std::vector<model::Run> runs = {testing::make_run("c1", "h1"), testing::make_run("c2", "h2"),
                                    testing::make_run("c1", "h1")};
    auto store = open();
    const auto first = store->record_all(runs);
    ASSERT_EQ(first.size(), 3u);
    EXPECT_TRUE(first[0].inserted);
    EXPECT_TRUE(first[1].inserted);
    // The third is the first again, found inside the same transaction.
    EXPECT_FALSE(first[2].inserted);
    EXPECT_EQ(first[2].run_id, first[0].run_id);
    const auto second = store->record_all(runs);
    EXPECT_TRUE(std::none_of(second.begin(), second.end(),
                             [](const RecordOutcome& outcome) { return outcome.inserted; }));
    EXPECT_EQ(store->list_runs({}).size(), 2u);
}

TEST_P(RecordAllTest, OneBadRunStoresNone) {
    model::Run bad = testing::make_run("c3", "h3");
    bad.results.push_back(bad.results.front());
    const std::vector<model::Run> runs = {testing::make_run("c1", "h1"), bad};
    auto store = open();
    EXPECT_THROW(store->record_all(runs), StoreError);
    EXPECT_TRUE(store->list_runs({}).empty());
}

TEST_P(RecordAllTest, FirstCommitInfoOfACommitIsKept) {
    model::Run first = testing::make_run("c1", "h1");
    first.commit_info = model::CommitInfo{"first", "A", "2024-01-01T00:00:00Z", ""};
    model::Run rerun = testing::make_run("c1", "h2");
    rerun.commit_info = model::CommitInfo{"second", "B", "2025-01-01T00:00:00Z", ""};
    model::Run other = testing::make_run("c2", "h3");
    auto store = open();
    store->record_all(std::vector<model::Run>{first, rerun, other});
    const auto runs = store->list_runs({});
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].commit_info, first.commit_info);
    EXPECT_EQ(runs[1].commit_info, first.commit_info);
    EXPECT_EQ(runs[2].commit_info, std::nullopt);
}

TEST_P(RecordTest, LastRunIdGrowsWithEachNewRunAndNotWithARepeat) {
    auto store = open();
    EXPECT_EQ(store->last_run_id(), 0);
    const auto first = store->record(make_run(std::string(40, 'a'), "sha256:aa"));
    EXPECT_EQ(store->last_run_id(), first.run_id);
    store->record(make_run(std::string(40, 'a'), "sha256:aa"));  // already stored
    EXPECT_EQ(store->last_run_id(), first.run_id);
    const auto second = store->record(make_run(std::string(40, 'b'), "sha256:bb"));
    EXPECT_GT(second.run_id, first.run_id);
    // Another connection sees the same newest run.
    EXPECT_EQ(open()->last_run_id(), second.run_id);
}

TEST_P(RecordTest, PeekNamesTheSameNewestRunAsLastRunId) {
    auto store = open();
    EXPECT_EQ(store->peek_last_run_id(), 0);
    const auto first = store->record(make_run(std::string(40, 'a'), "sha256:aa"));
    EXPECT_EQ(store->peek_last_run_id(), first.run_id);
    const auto second = open()->record(make_run(std::string(40, 'b'), "sha256:bb"));
    EXPECT_EQ(store->peek_last_run_id(), second.run_id);
    EXPECT_EQ(store->peek_last_run_id(), store->last_run_id());
}

TEST_P(RecordTest, ListsOnlyTheRunsAfterAnIdAndCountsThemAll) {
    auto store = open();
    EXPECT_EQ(store->run_count(), 0);
    const auto first = store->record(make_run(std::string(40, 'a'), "sha256:aa"));
    const auto second = store->record(make_run(std::string(40, 'b'), "sha256:bb"));
    const auto third = store->record(make_run(std::string(40, 'c'), "sha256:cc"));
    EXPECT_EQ(store->run_count(), 3);
    store::RunFilter after;
    after.after_id = first.run_id;
    const auto runs = store->list_runs(after);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].id, second.run_id);
    EXPECT_EQ(runs[1].id, third.run_id);
    after.after_id = third.run_id;
    EXPECT_TRUE(store->list_runs(after).empty());
}

BENCHWATCH_ON_EVERY_BACKEND(RecordTest);
BENCHWATCH_ON_EVERY_BACKEND(RecordAllTest);

}  // namespace
}  // namespace benchwatch::store
