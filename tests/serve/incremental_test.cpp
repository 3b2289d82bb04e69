// What could break: a dashboard extended with new runs that differs from the one read whole (a
// rerun combined the wrong way, a typical change or badge not worked out again, a new benchmark,
// machine or project missed, a pull request head's value lost), or a snapshot that keeps a
// machine's old answers after it changed.

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "sample_history.hpp"
#include "serve/api.hpp"
#include "serve/dashboard.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"

namespace benchwatch::serve {
namespace {

using testing::hour_ms;
using testing::result;
using testing::start_ms;

// Every answer of the API that does not need a comparison, and each machine's page data, one
// after another.
std::string api_text(const ApiSnapshot& snapshot) {
    const PullComparer no_comparisons = [](const std::string&, const std::string&,
                                           const std::string&) {
        return error_response(404, "no comparisons here");
    };
    std::string out;
    const auto add = [&](std::vector<std::string> segments, const Parameters& parameters) {
        const Response response = snapshot.answer(segments, parameters, no_comparisons);
        for (const auto& segment : segments) out += "/" + segment;
        out += " " + std::to_string(response.status) + " " + response.body + "\n";
    };
    add({"projects"}, {});
    for (const auto& project : snapshot.dashboard().projects) {
        for (const auto& machine : project.machines) {
            const Parameters on_machine = {{"machine", machine.name}};
            add({"projects", project.name, "benchmarks"}, on_machine);
            add({"projects", project.name, "pulls"}, on_machine);
            for (const auto& series : machine.benchmarks) {
                add({"projects", project.name, "series", series.id}, on_machine);
                add({"projects", project.name, "series", series.id},
                    {{"machine", machine.name}, {"points", "3"}});
            }
            const std::string* page = snapshot.page_data(project.name, machine.name);
            out += page == nullptr ? "no page" : *page;
            out += "\n";
        }
    }
    return out;
}

// Where two texts first differ, with some of each around it.
std::string first_difference(const std::string& got, const std::string& expected) {
    std::size_t at = 0;
    while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
    const std::size_t from = at < 200 ? 0 : at - 200;
    return "at byte " + std::to_string(at) + "\nextended: …" + got.substr(from, 400) +
           "\nread whole: …" + expected.substr(from, 400);
}

std::string commit_of(const char* prefix, int number) {
    return prefix + std::string(number < 10 ? "0" : "") + std::to_string(number);
}

// The runs, in recording order, of a history that exercises what an extension must get right:
// level steps shared by the suite and of one benchmark, an environment change, a benchmark that
// starts late and one that retires, reruns better and worse, a dirty run before the clean one,
// pull request heads with reruns and a dirty head, a commit measured on a branch before the
// default branch, a second machine and a second project that start late, and a machine whose
// first run is a pull request head.
std::vector<model::Run> recorded_runs() {
    std::vector<model::Run> runs;
    int clock = 0;
    const auto run_of = [&](const std::string& project, const std::string& machine,
                            const std::string& commit) {
        model::Run run = testing::sample_run(machine, commit, ++clock);
        run.project = project;
        run.content_hash = project + machine + commit + std::to_string(clock);
        return run;
    };
    const auto main_results = [](int number, double wobble) {
        std::vector<model::Result> results = {
            result("a", (number < 15 ? 100 : 130) + wobble),
            result("a", (number < 15 ? 1000 : 800) - wobble, "throughput"),
        };
        if (number < 25) results.push_back(result("b", (number < 20 ? 50 : 70) + wobble / 2));
        if (number >= 8) results.push_back(result("late/new", 10 + wobble / 10));
        return results;
    };
    for (int number = 1; number <= 30; ++number) {
        const double wobble = (number * 7) % 5;
        const std::string commit = commit_of("c", number);
        if (number == 13) {
            model::Run dirty = run_of("p", "m1", commit);
            dirty.environment = {{"git.dirty", "yes"}};
            dirty.results = main_results(number, 40);
            runs.push_back(dirty);
        }
        if (number == 21) {
            // Measured on a branch an hour before the default branch has it.
            model::Run early = run_of("p", "m1", commit);
            early.branch = "feature/early";
            early.results = main_results(number, 1);
            runs.push_back(early);
        }
        model::Run run = run_of("p", "m1", commit);
        run.results = main_results(number, wobble);
        run.environment = {{"julia", number < 15 ? "1.10" : "1.11"}, {"cpu", "x"}};
        if (number % 4 == 0)
            run.commit_info = model::CommitInfo{"Change " + std::to_string(number) + "\n\nbody",
                                                "Ann", "2023-11-14T12:00:00Z", ""};
        runs.push_back(run);
        if (number == 10 || number == 12) {
            // Reruns of the commit before: the first better, the second worse.
            model::Run rerun = run_of("p", "m1", commit_of("c", number - 1));
            rerun.results = main_results(number - 1, number == 10 ? -3 : 9);
            runs.push_back(rerun);
        }
        if (number >= 5 && number % 2 == 1) {
            model::Run other = run_of("p", "m2", commit);
            other.results = {result("a", 7 + wobble)};
            runs.push_back(other);
        }
        if (number == 7 || number == 9 || number == 16 || number == 17) {
            model::Run head = run_of("p", "m1", number < 16 ? "f1" : "f2");
            head.branch = number < 16 ? "feature/one" : "feature/two";
            head.pull_request = number < 16 ? 7 : 8;
            if (number == 16) head.environment = {{"git.dirty", "yes"}};
            head.results = main_results(number, 20 + number);
            runs.push_back(head);
        }
        if (number >= 22) {
            model::Run other = run_of("q", "m1", commit_of("q", number));
            other.results = {result("z", 3 + wobble)};
            runs.push_back(other);
        }
        if (number == 23) {
            model::Run head = run_of("p", "m3", "f3");
            head.branch = "feature/three";
            head.results = {result("a", 5)};
            runs.push_back(head);
        }
        if (number >= 26) {
            model::Run third = run_of("p", "m3", commit);
            third.results = {result("a", 4 + wobble)};
            runs.push_back(third);
        }
    }
    return runs;
}

TEST(IncrementalDashboard, EachRunAddedGivesTheApiOfTheStoreReadWhole) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    const auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    DashboardOptions options;
    options.repository_url = "https://forge.example/o/r";
    DashboardLoader loader(*store, nullptr, options);
    auto snapshot = std::make_unique<ApiSnapshot>(loader.load());
    const auto runs = recorded_runs();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        store->record(runs[i]);
        auto next =
            std::make_unique<ApiSnapshot>(loader.update(snapshot->dashboard()), snapshot.get());
        ASSERT_FALSE(loader.read_whole()) << "run " << i;
        const ApiSnapshot whole(load_dashboard(*store, nullptr, options));
        const std::string extended = api_text(*next);
        const std::string expected = api_text(whole);
        ASSERT_TRUE(extended == expected)
            << "after run " << i << " of commit " << runs[i].commit << " on " << runs[i].machine
            << ", " << first_difference(extended, expected);
        snapshot = std::move(next);
    }
    // Read whole: the machines that appeared (m1 and m2 of p, m1 of q, m3 first with a head
    // only), m3 again when its first default-branch run came, and m1 of p when c21, measured on
    // a branch before, entered its default branch.
    EXPECT_EQ(loader.machines_read_whole(), 6u);
    const auto& machines = snapshot->dashboard().find_project("p")->machines;
    ASSERT_EQ(machines.size(), 3u);
    // The history has what is worked out again: steps, and a badge that moved.
    bool stepped = !machines[0].suite_events.empty();
    for (const auto& series : machines[0].benchmarks) stepped = stepped || !series.steps.empty();
    EXPECT_TRUE(stepped);
}

// The machine called `machine` of project `project` in `dashboard`, or null.
const MachineHistory* machine_in(const Dashboard& dashboard, const std::string& project,
                                 const std::string& machine) {
    const ProjectHistory* found = dashboard.find_project(project);
    if (found == nullptr) return nullptr;
    for (const auto& each : found->machines)
        if (each.name == machine) return &each;
    return nullptr;
}

TEST(IncrementalDashboard, NewValuesAreShownBeforeTheyAreJudged) {
    // Each update first shows the new runs' values with the judgement of the dashboard before
    // them; the judged dashboard that follows is the store's read whole, even when its API is
    // built on the unjudged one's (same machine revisions, other badges).
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    const auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    DashboardOptions options;
    options.repository_url = "https://forge.example/o/r";
    DashboardLoader loader(*store, nullptr, options);
    auto snapshot = std::make_unique<ApiSnapshot>(loader.load());
    const auto runs = recorded_runs();
    std::size_t shown_unjudged = 0, judgements_kept = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        store->record(runs[i]);
        const Dashboard& previous = snapshot->dashboard();
        std::unique_ptr<ApiSnapshot> unjudged;
        const Dashboard judged = loader.update(previous, [&](const Dashboard& shown) {
            unjudged = std::make_unique<ApiSnapshot>(shown, snapshot.get());
        });
        const Dashboard whole = load_dashboard(*store, nullptr, options);
        if (unjudged) {
            ++shown_unjudged;
            const Dashboard& shown = unjudged->dashboard();
            EXPECT_FALSE(shown.judged);
            EXPECT_EQ(shown.last_run_id, whole.last_run_id);
            const auto* now = machine_in(shown, runs[i].project, runs[i].machine);
            const auto* before = machine_in(previous, runs[i].project, runs[i].machine);
            const auto* expected = machine_in(whole, runs[i].project, runs[i].machine);
            if (now != nullptr && before != nullptr && expected != nullptr && !now->judged) {
                ASSERT_EQ(now->commits.size(), expected->commits.size()) << "run " << i;
                ASSERT_EQ(now->benchmarks.size(), expected->benchmarks.size()) << "run " << i;
                EXPECT_EQ(now->suite_events.size(), before->suite_events.size()) << "run " << i;
                // Everything but the judgement is the store's read whole: commits, environment
                // changes, pull requests' heads, and each series' points, typical change,
                // retirement and heads' values.
                for (std::size_t c = 0; c < now->commits.size(); ++c) {
                    const auto &got = now->commits[c], &want = expected->commits[c];
                    EXPECT_EQ(
                        std::tie(got.commit, got.time_ms, got.subject, got.author, got.url),
                        std::tie(want.commit, want.time_ms, want.subject, want.author, want.url))
                        << "run " << i << ", commit " << c;
                }
                ASSERT_EQ(now->environment_changes.size(), expected->environment_changes.size())
                    << "run " << i;
                for (std::size_t e = 0; e < now->environment_changes.size(); ++e)
                    EXPECT_EQ(now->environment_changes[e].commit,
                              expected->environment_changes[e].commit)
                        << "run " << i;
                ASSERT_EQ(now->pulls.size(), expected->pulls.size()) << "run " << i;
                for (std::size_t p = 0; p < now->pulls.size(); ++p)
                    EXPECT_EQ(std::tie(now->pulls[p].commit, now->pulls[p].base),
                              std::tie(expected->pulls[p].commit, expected->pulls[p].base))
                        << "run " << i;
                EXPECT_EQ(now->revision, expected->revision) << "run " << i;
                for (std::size_t b = 0; b < now->benchmarks.size(); ++b) {
                    const auto& series = now->benchmarks[b];
                    const auto& whole_series = expected->benchmarks[b];
                    EXPECT_EQ(series.id, whole_series.id) << "run " << i;
                    EXPECT_EQ(series.values, whole_series.values) << "run " << i;
                    EXPECT_EQ(series.commits, whole_series.commits) << "run " << i;
                    EXPECT_EQ(series.typical_change, whole_series.typical_change) << "run " << i;
                    EXPECT_EQ(series.retired, whole_series.retired) << "run " << i;
                    ASSERT_EQ(series.pulls.size(), whole_series.pulls.size()) << "run " << i;
                    for (std::size_t p = 0; p < series.pulls.size(); ++p)
                        EXPECT_EQ(std::tie(series.pulls[p].pull, series.pulls[p].value),
                                  std::tie(whole_series.pulls[p].pull, whole_series.pulls[p].value))
                            << "run " << i;
                    const auto* old = before->find_benchmark(series.id);
                    if (old == nullptr) continue;
                    EXPECT_EQ(series.threshold, old->threshold) << "run " << i;
                    EXPECT_EQ(series.trend, old->trend) << "run " << i;
                    EXPECT_EQ(series.steps.size(), old->steps.size()) << "run " << i;
                    ++judgements_kept;
                }
            }
        }
        auto next =
            std::make_unique<ApiSnapshot>(judged, unjudged ? unjudged.get() : snapshot.get());
        EXPECT_TRUE(next->dashboard().judged);
        const std::string extended = api_text(*next);
        const std::string expected = api_text(ApiSnapshot(whole));
        ASSERT_TRUE(extended == expected)
            << "after run " << i << " of commit " << runs[i].commit << " on " << runs[i].machine
            << ", " << first_difference(extended, expected);
        snapshot = std::move(next);
    }
    EXPECT_EQ(shown_unjudged, runs.size());
    EXPECT_GT(judgements_kept, 0u);
}

TEST(IncrementalDashboard, ADashboardItDidNotMakeIsReadWhole) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    const auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    testing::record_sample_history(*store);
    DashboardLoader loader(*store, nullptr, {});
    const Dashboard loaded = loader.load();
    EXPECT_TRUE(loader.read_whole());
    const Dashboard same = loader.update(loaded);
    EXPECT_FALSE(loader.read_whole());
    EXPECT_EQ(same.last_run_id, loaded.last_run_id);
    const Dashboard other = loader.update(Dashboard{});
    EXPECT_TRUE(loader.read_whole());
    EXPECT_EQ(other.last_run_id, loaded.last_run_id);
}

}  // namespace
}  // namespace benchwatch::serve
