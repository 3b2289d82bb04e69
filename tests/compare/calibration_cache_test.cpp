// What could break: a cached calibration that differs from the one it replaces (a number rounded
// on its way through the text, a key that misses a change of the runs or settings read), a
// damaged cached value trusted, a store that cannot cache failing or changing the comparison, or
// a comparison that calibrates nothing touching the cache.
#include "compare/calibration_cache.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/method.hpp"
#include "recording.hpp"
#include "stats/budget_share.hpp"

namespace benchwatch::compare {
namespace {

using detail::calibration_text;
using detail::parse_calibration;
using testing::Recorder;
using testing::timed;

// A noisy value for run t of benchmark b, near 1000, with a one-run spike every 11th run.
double noisy(int b, int t) {
    const unsigned hash =
        (static_cast<unsigned>(t) * 2654435761u) ^ (static_cast<unsigned>(b) * 40503u);
    double value = 1000 * (1 + 0.03 * (static_cast<double>(hash % 2001) / 1000.0 - 1.0));
    if ((t + b) % 11 == 0) value *= 1.3;
    return value;
}

std::vector<model::Result> suite_at(int t) {
    std::vector<model::Result> results;
    for (int b = 0; b < 6; ++b) results.push_back(timed("b" + std::to_string(b), noisy(b, t)));
    return results;
}

// 60 default-branch runs c0 … c59 and the pull request "pr", b0 20% slower.
Recorder history() {
    Recorder recorder;
    for (int t = 0; t < 60; ++t) recorder.record("c" + std::to_string(t), "main", suite_at(t));
    auto head = suite_at(0);
    for (auto& result : head) result.value = result.benchmark == "b0" ? 1200 : 1000;
    recorder.record("pr", "feature", head);
    return recorder;
}

CompareOptions level_options(const Recorder& recorder) {
    auto options = recorder.options("pr");
    options.method = default_choice("level");
    options.method.settings<LevelSettings>().false_alarms_per_pr = 1.0;
    return options;
}

// Every part of two comparisons that the calibration decides.
void expect_same_judgement(const model::Comparison& a, const model::Comparison& b) {
    EXPECT_EQ(a.calibration.source, b.calibration.source);
    EXPECT_EQ(a.calibration.budget, b.calibration.budget);
    EXPECT_EQ(a.calibration.sensitivity, b.calibration.sensitivity);
    EXPECT_EQ(a.calibration.pull_requests, b.calibration.pull_requests);
    EXPECT_EQ(a.calibration.flukes_per_pr, b.calibration.flukes_per_pr);
    EXPECT_EQ(a.method.settings<LevelSettings>().sensitivity,
              b.method.settings<LevelSettings>().sensitivity);
    ASSERT_EQ(a.benchmarks.size(), b.benchmarks.size());
    for (std::size_t i = 0; i < a.benchmarks.size(); ++i) {
        EXPECT_EQ(a.benchmarks[i].verdict, b.benchmarks[i].verdict);
        EXPECT_EQ(a.benchmarks[i].threshold, b.benchmarks[i].threshold);
        EXPECT_EQ(a.benchmarks[i].detectable_change, b.benchmarks[i].detectable_change);
    }
}

TEST(CalibrationCache, HitGivesTheComparisonOfAMissWithoutReadingTheCalibrationRuns) {
    auto recorder = history();
    const auto options = level_options(recorder);
    const auto miss = compare(recorder.store, nullptr, options);
    EXPECT_EQ(miss.calibration.source, model::CalibrationSource::Calibrated);
    EXPECT_EQ(recorder.store.cache_reads(), 1);
    EXPECT_EQ(recorder.store.cache_writes(), 1);
    const int read_by_miss = recorder.store.runs_read();

    const auto hit = compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_reads(), 2);
    EXPECT_EQ(recorder.store.cache_writes(), 1);
    // The miss read the 60 runs up to the baseline for the calibration, then those the method
    // judges by; the hit only the latter.
    EXPECT_LT(recorder.store.runs_read() - read_by_miss, read_by_miss);
    expect_same_judgement(miss, hit);
    EXPECT_EQ(hit.benchmarks[0].verdict, model::Verdict::Slower);
}

// The levels of a miss come from the runs its calibration just read, those of a hit from the
// store: every part of the comparison that the history decides must agree.
void expect_same_history(const model::Comparison& a, const model::Comparison& b) {
    EXPECT_EQ(a.history_runs, b.history_runs);
    EXPECT_EQ(a.left_out_runs, b.left_out_runs);
    EXPECT_EQ(a.left_out_move, b.left_out_move);
    EXPECT_EQ(a.ignored, b.ignored);
    ASSERT_EQ(a.benchmarks.size(), b.benchmarks.size());
    for (std::size_t i = 0; i < a.benchmarks.size(); ++i) {
        EXPECT_EQ(a.benchmarks[i].name, b.benchmarks[i].name);
        EXPECT_EQ(a.benchmarks[i].base, b.benchmarks[i].base);
        EXPECT_EQ(a.benchmarks[i].typical_change, b.benchmarks[i].typical_change);
        EXPECT_EQ(a.benchmarks[i].history_pairs, b.benchmarks[i].history_pairs);
    }
}

TEST(CalibrationCache, AMissReadsEachRunOnceAndJudgesByTheHistoryAHitReads) {
    Recorder recorder;
    for (int t = 0; t < 60; ++t) {
        auto suite = suite_at(t);
        // A slow spell of the whole suite, which the levels leave out.
        if (t >= 40 && t <= 42)
            for (auto& result : suite) result.value *= 1.25;
        // A benchmark that joins late, and one that every judgement ignores.
        if (t >= 52) suite.push_back(timed("late", 500 + t));
        suite.push_back(timed("skip/me", 100 + t));
        recorder.record("c" + std::to_string(t), "main", suite);
        // A second, slower attempt: the first one's values are the commit's.
        if (t == 55) {
            for (auto& result : suite) result.value *= 1.5;
            recorder.record("c55", "main", suite);
        }
    }
    recorder.record("pr", "feature", suite_at(0));
    auto options = level_options(recorder);
    model::BenchmarkRule ignore;
    ignore.patterns = {"skip/*"};
    ignore.ignore = true;
    options.rules = {ignore};

    const auto miss = compare(recorder.store, nullptr, options);
    ASSERT_EQ(miss.calibration.source, model::CalibrationSource::Calibrated);
    // The head's and the baseline's runs, then the 61 runs of the 60 commits the calibration
    // replays: the levels take what they need from that reading rather than reading it again.
    EXPECT_EQ(recorder.store.runs_read(), 2 + 61);
    const auto hit = compare(recorder.store, nullptr, options);
    ASSERT_EQ(recorder.store.cache_writes(), 1);
    expect_same_judgement(miss, hit);
    expect_same_history(miss, hit);
    EXPECT_EQ(miss.left_out_runs, (std::vector<std::string>{"c42", "c41", "c40"}));
    EXPECT_EQ(miss.ignored, std::vector<std::string>{"skip/me"});
}

TEST(CalibrationCache, NewDefaultBranchRunMissesButARunAfterAnExplicitBaselineDoesNot) {
    auto recorder = history();
    auto options = level_options(recorder);
    compare(recorder.store, nullptr, options);
    recorder.record("c60", "main", suite_at(60));
    // The baseline is now c60: another history.
    const auto after = compare(recorder.store, nullptr, options);
    EXPECT_EQ(after.baseline.commit, "c60");
    EXPECT_EQ(recorder.store.cache_writes(), 2);

    // With --base c59 the runs read are those of before c60: the entry for them is a hit once
    // written, whatever is recorded after c59.
    options.base = "c59";
    const auto first = compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 3);
    recorder.record("c61", "main", suite_at(61));
    const auto second = compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 3);
    expect_same_judgement(first, second);
}

TEST(CalibrationCache, ReRecordedAttemptOfAHistoryRunMisses) {
    auto recorder = history();
    const auto options = level_options(recorder);
    compare(recorder.store, nullptr, options);
    // A second attempt of c30, much faster: combined by the best value, it changes the history.
    auto faster = suite_at(30);
    for (auto& result : faster) result.value /= 2;
    recorder.record("c30", "main", faster);
    const auto again = compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 2);

    Recorder fresh = history();
    fresh.record("c30", "main", faster);
    // Uncached on the same runs: the same answer.
    expect_same_judgement(again, compare(fresh.store, nullptr, options));
}

TEST(CalibrationCache, OtherBudgetOrCategoriesMissAndEachKeepsItsEntry) {
    auto recorder = history();
    auto options = level_options(recorder);
    const auto one = compare(recorder.store, nullptr, options);
    options.method.settings<LevelSettings>().false_alarms_per_pr = 2.0;
    const auto two = compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 2);
    EXPECT_EQ(two.calibration.budget, 2.0);

    options.categories = {{"Everything", {}, 0.10}};
    compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 3);

    // Per-benchmark rules decide the calibration too.
    options = level_options(recorder);
    model::BenchmarkRule weighted;
    weighted.patterns = {"*"};
    weighted.budget_weight = 2;
    options.rules = {weighted};
    compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 4);

    // Back to the first settings: still cached.
    options = level_options(recorder);
    const auto one_again = compare(recorder.store, nullptr, options);
    EXPECT_EQ(recorder.store.cache_writes(), 4);
    expect_same_judgement(one, one_again);
}

TEST(CalibrationCache, DamagedCachedValueIsCalibratedAgainAndReplaced) {
    auto recorder = history();
    const auto options = level_options(recorder);
    const auto miss = compare(recorder.store, nullptr, options);
    const std::vector<std::string> damaged_values = {
        "", "not json", R"({"format":"benchwatch-calibration","version":1})",
        calibration_text(miss.calibration).substr(0, 40)};
    for (const auto& damaged : damaged_values) {
        recorder.store.overwrite_cached_values(damaged);
        const int writes = recorder.store.cache_writes();
        expect_same_judgement(miss, compare(recorder.store, nullptr, options));
        EXPECT_EQ(recorder.store.cache_writes(), writes + 1) << damaged;
    }
}

TEST(CalibrationCache, StoreThatCannotCacheComparesTheSame) {
    auto writable = history();
    const auto options = level_options(writable);
    const auto expected = compare(writable.store, nullptr, options);

    auto read_only = history();
    read_only.store.cache_read_only = true;
    expect_same_judgement(expected, compare(read_only.store, nullptr, options));
    expect_same_judgement(expected, compare(read_only.store, nullptr, options));
    EXPECT_EQ(read_only.store.cache_writes(), 2);

    auto failing = history();
    failing.store.cache_fails = true;
    expect_same_judgement(expected, compare(failing.store, nullptr, options));
}

TEST(CalibrationCache, NothingCalibratedTouchesNoCache) {
    auto recorder = history();
    auto seed = recorder.options("pr");
    compare(recorder.store, nullptr, seed);
    auto fixed = level_options(recorder);
    fixed.method.settings<LevelSettings>().false_alarms_per_pr = std::nullopt;
    EXPECT_EQ(compare(recorder.store, nullptr, fixed).calibration.source,
              model::CalibrationSource::Fixed);
    EXPECT_EQ(recorder.store.cache_reads(), 0);
    EXPECT_EQ(recorder.store.cache_writes(), 0);
}

// A calibration with the fields a cache entry holds set by name.
model::Calibration calibration_of(model::CalibrationSource source, double budget,
                                  double sensitivity, int pull_requests, double flukes_per_pr) {
    model::Calibration calibration;
    calibration.source = source;
    calibration.budget = budget;
    calibration.sensitivity = sensitivity;
    calibration.pull_requests = pull_requests;
    calibration.flukes_per_pr = flukes_per_pr;
    return calibration;
}

TEST(CalibrationText, ReadsBackExactly) {
    auto calibration = calibration_of(model::CalibrationSource::Conservative, 0.1 + 0.2,
                                      std::nextafter(3.0, 4.0), 17, 1.0 / 3.0);
    calibration.expected_flukes_per_pr = 2.0 / 7.0;
    calibration.prior_weight = 10.0 / 27.0;
    calibration.replay_weight = std::nextafter(0.5, 0.0);
    const auto text = calibration_text(calibration);
    EXPECT_TRUE(text.starts_with(R"({"format":"benchwatch-calibration","version":2,)")) << text;
    const auto parsed = parse_calibration(text);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->source, calibration.source);
    EXPECT_EQ(parsed->budget, calibration.budget);
    EXPECT_EQ(parsed->sensitivity, calibration.sensitivity);
    EXPECT_EQ(parsed->pull_requests, calibration.pull_requests);
    EXPECT_EQ(parsed->flukes_per_pr, calibration.flukes_per_pr);
    EXPECT_EQ(parsed->expected_flukes_per_pr, calibration.expected_flukes_per_pr);
    EXPECT_EQ(parsed->prior_weight, calibration.prior_weight);
    EXPECT_EQ(parsed->replay_weight, calibration.replay_weight);
    EXPECT_TRUE(parsed->thresholds_by_noise.empty());
}

TEST(CalibrationText, ReadsThresholdsByNoiseBackExactly) {
    auto calibration = calibration_of(model::CalibrationSource::Calibrated, 1, 4.5, 75, 0.7);
    for (std::size_t i = 0; i < stats::share_noise_grid().size(); ++i)
        calibration.thresholds_by_noise.push_back(std::log1p(0.01 * static_cast<double>(i + 1)) /
                                                  3.0);
    const auto parsed = parse_calibration(calibration_text(calibration));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->thresholds_by_noise, calibration.thresholds_by_noise);

    // A table of another length, or with a threshold that is not a positive number, is no hit.
    auto shorter = calibration;
    shorter.thresholds_by_noise.pop_back();
    EXPECT_FALSE(parse_calibration(calibration_text(shorter)));
    auto zero = calibration;
    zero.thresholds_by_noise[5] = 0;
    EXPECT_FALSE(parse_calibration(calibration_text(zero)));

    // The tables of budget weights other than 1 come back too, and are checked as strictly.
    auto weighted = calibration;
    weighted.thresholds_by_weight = {{0.5, calibration.thresholds_by_noise},
                                     {2, calibration.thresholds_by_noise}};
    weighted.thresholds_by_weight[1].thresholds[0] /= 2;
    const auto weighted_parsed = parse_calibration(calibration_text(weighted));
    ASSERT_TRUE(weighted_parsed);
    EXPECT_EQ(weighted_parsed->thresholds_by_weight, weighted.thresholds_by_weight);
    auto short_weighted = weighted;
    short_weighted.thresholds_by_weight[0].thresholds.pop_back();
    EXPECT_FALSE(parse_calibration(calibration_text(short_weighted)));
    auto no_weight = weighted;
    no_weight.thresholds_by_weight[1].weight = 0;
    EXPECT_FALSE(parse_calibration(calibration_text(no_weight)));
}

TEST(CalibrationText, AnythingElseIsRefused) {
    const std::string estimate =
        R"("expected_flukes_per_pr":0.8,"prior_weight":0.1,"replay_weight":0.6)";
    const std::string fields =
        R"("budget":1.0,"sensitivity":2.5,"pull_requests":75,"flukes_per_pr":0.5,)" + estimate;
    const auto with = [&](const std::string& head, const std::string& rest) {
        return "{" + head + "," + rest + "}";
    };
    const std::string good =
        R"("format":"benchwatch-calibration","version":2,"source":"calibrated")";
    ASSERT_TRUE(parse_calibration(with(good, fields)));
    const std::vector<std::string> refused = {
        "",
        "[]",
        with(R"("format":"benchwatch-run","version":1,"source":"calibrated")", fields),
        with(R"("format":"benchwatch-calibration","version":1,"source":"calibrated")", fields),
        with(R"("format":"benchwatch-calibration","version":"2","source":"calibrated")", fields),
        with(R"("format":"benchwatch-calibration","version":2,"source":"fixed")", fields),
        with(R"("format":"benchwatch-calibration","version":2,"source":3)", fields),
        with(good, R"("budget":1.0,"sensitivity":2.5,"pull_requests":75,"flukes_per_pr":0.5)"),
        with(good, R"("budget":1.0,"sensitivity":2.5,"pull_requests":75,"flukes_per_pr":0.5,)"
                   R"("expected_flukes_per_pr":0.8,"prior_weight":-0.1,"replay_weight":0.6)"),
        with(good, R"("budget":1.0,"sensitivity":2.5,"pull_requests":75)"),
        with(good,
             R"("budget":1.0,"sensitivity":0,"pull_requests":75,"flukes_per_pr":0.5,)" + estimate),
        with(good, R"("budget":1.0,"sensitivity":null,"pull_requests":75,"flukes_per_pr":0.5,)" +
                       estimate),
        with(good, R"("budget":1.0,"sensitivity":"2.5","pull_requests":75,"flukes_per_pr":0.5,)" +
                       estimate),
        with(good,
             R"("budget":-1,"sensitivity":2.5,"pull_requests":75,"flukes_per_pr":0.5,)" + estimate),
        with(good, R"("budget":1.0,"sensitivity":2.5,"pull_requests":7.5,"flukes_per_pr":0.5,)" +
                       estimate),
        with(good, R"("budget":1.0,"sensitivity":2.5,"pull_requests":-1,"flukes_per_pr":0.5,)" +
                       estimate),
        with(good, fields).substr(1),
    };
    for (const auto& text : refused) EXPECT_FALSE(parse_calibration(text)) << text;
    // A sensitivity that is not finite is written as null, so it is never read back.
    auto infinite = calibration_of(model::CalibrationSource::Calibrated, 1, 0, 75, 0.5);
    infinite.sensitivity = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(parse_calibration(calibration_text(infinite)));
}

TEST(CalibrationFingerprint, HistoryNamesItsNewestCommitCountAndNewestRun) {
    auto recorder = history();
    const auto index = detail::index_runs(recorder.store, "p", "m");
    const std::vector<std::string> commits = {"c59", "c58", "c57"};
    const auto fingerprint = detail::calibration_history_fingerprint(commits, index);
    EXPECT_TRUE(fingerprint.starts_with("c59 3 60 ")) << fingerprint;
    const std::vector<std::string> other_order = {"c59", "c57", "c58"};
    EXPECT_NE(detail::calibration_history_fingerprint(other_order, index), fingerprint);
    EXPECT_TRUE(detail::calibration_history_fingerprint({}, index).starts_with("- 0 0 "));
}

TEST(CalibrationFingerprint, SettingsChangeWithEveryLevelSettingAndCategoryButNotItsName) {
    const auto choice = default_choice("level");
    const auto categories = model::default_categories();
    const auto base = detail::calibration_settings_fingerprint(choice, categories);
    EXPECT_TRUE(base.starts_with("level-")) << base;
    EXPECT_EQ(base.size(), 6u + 16u);

    auto renamed = categories;
    renamed[0].name = "Speed";
    EXPECT_EQ(detail::calibration_settings_fingerprint(choice, renamed), base);
    auto stricter = categories;
    stricter[0].minimum_change = 0.04;
    EXPECT_NE(detail::calibration_settings_fingerprint(choice, stricter), base);
    auto prefixed = categories;
    prefixed[1].prefixes.push_back("startup/");
    EXPECT_NE(detail::calibration_settings_fingerprint(choice, prefixed), base);

    // One change of each field of the level settings (the fingerprint binds them all, so a new
    // field does not compile until it is covered).
    std::vector<model::MethodChoice> changed(8, choice);
    changed[0].settings<LevelSettings>().sensitivity = 2.0;
    changed[1].settings<LevelSettings>().false_alarms_per_pr = 2.0;
    changed[2].settings<LevelSettings>().false_alarms_per_pr = std::nullopt;
    changed[3].settings<LevelSettings>().allocation = BudgetAllocation::OneFactor;
    changed[4].settings<LevelSettings>().thresholds_by_noise = {0.1};
    changed[5].settings<LevelSettings>().noise_quantile = 0.8;
    changed[6].settings<LevelSettings>().level_runs = 7;
    changed[7].settings<LevelSettings>().noise_runs = 30;
    for (const auto& other : changed)
        EXPECT_NE(detail::calibration_settings_fingerprint(other, categories), base);
}

}  // namespace
}  // namespace benchwatch::compare
