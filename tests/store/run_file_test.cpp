// What could break: a field of a run lost or rounded on its way through a run file, a malformed
// or foreign file accepted (or refused with an unhelpful message), or two runs given one path.

#include "store/run_file.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

namespace benchwatch::store {
namespace {

using Json = nlohmann::json;

constexpr const char* kSource = "origin/benchwatch-data:runs/p/m/c_h.json";

model::Run full_run() {
    model::Run run;
    run.id = 42;  // the store's own number: not written
    run.project = "cuda";
    run.machine = "gpu a100/2";
    run.commit = "0123456789abcdef0123456789abcdef01234567";
    run.branch = "main";
    run.pull_request = 2604;
    run.recorded_at_ms = 1'790'000'000'123;
    run.attempt = 2;
    run.environment = {{"julia", "1.11.2"}, {"cpu", "AMD EPYC 7402"}, {"empty", ""}};
    run.format = "benchmarktools";
    run.content_hash = "00000000000000ff-0000000000000a01";
    run.warnings = {{"cpu-governor", "The CPU governor is powersave; set it to performance."},
                    {"few-samples", "Only 3 samples."}};
    run.commit_info = model::CommitInfo{"Fix copyto!\n\nLonger body: \"quoted\".", "Tim Besard",
                                        "2024-10-02T09:50:18+02:00", "https://example.org/c/0123"};
    model::Result time;
    time.benchmark = "array/copyto!/gpu_to_cpu";
    time.value = 0.1 + 0.2;  // 0.30000000000000004: needs all 17 significant digits
    time.allocations = 3;
    time.memory = 1.5e9;
    time.user_time = 1e-300;
    time.system_time = 0;
    time.gc_time = 12.25;
    time.samples = model::SampleSummary{1000, 0.31, 0.32, 0.004, {0.305, 0.31, 1.0 / 3.0}};
    model::Result throughput;
    throughput.benchmark = "io/read";
    throughput.metric = "throughput";
    throughput.value = 123456789.0;
    throughput.unit = "B/s";
    throughput.direction = model::Direction::BiggerIsBetter;
    run.results = {time, throughput};
    return run;
}

// A valid run file with one field changed by `edit`.
std::string edited(const std::function<void(Json&)>& edit) {
    auto json = Json::parse(run_file_text(full_run()));
    edit(json);
    return json.dump();
}

std::string error_of(const std::string& text) {
    try {
        parse_run_file(text, kSource);
    } catch (const RunFileError& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(RunFileTest, RoundTripsEveryFieldExactlyExceptTheStoresId) {
    auto expected = full_run();
    const auto parsed = parse_run_file(run_file_text(expected), kSource);
    expected.id = 0;
    EXPECT_EQ(parsed.id, 0);
    EXPECT_EQ(parsed.project, expected.project);
    EXPECT_EQ(parsed.machine, expected.machine);
    EXPECT_EQ(parsed.commit, expected.commit);
    EXPECT_EQ(parsed.branch, expected.branch);
    EXPECT_EQ(parsed.pull_request, expected.pull_request);
    EXPECT_EQ(parsed.recorded_at_ms, expected.recorded_at_ms);
    EXPECT_EQ(parsed.attempt, expected.attempt);
    EXPECT_EQ(parsed.environment, expected.environment);
    EXPECT_EQ(parsed.format, expected.format);
    EXPECT_EQ(parsed.content_hash, expected.content_hash);
    EXPECT_EQ(parsed.warnings, expected.warnings);
    EXPECT_EQ(parsed.commit_info, expected.commit_info);
    EXPECT_EQ(parsed.results, expected.results);
    EXPECT_EQ(parsed.results[0].value, 0.30000000000000004);
}

TEST(RunFileTest, AbsentOptionalFieldsStayAbsent) {
    auto run = full_run();
    run.pull_request.reset();
    run.commit_info.reset();
    run.results.resize(1);
    run.results[0] = model::Result{};
    run.results[0].benchmark = "b";
    run.results[0].value = 7;
    const auto text = run_file_text(run);
    const auto json = Json::parse(text);
    EXPECT_FALSE(json.contains("pull_request"));
    EXPECT_FALSE(json.contains("commit_info"));
    EXPECT_EQ(json["results"][0].dump(),
              R"({"benchmark":"b","direction":"smaller","metric":"time","unit":"ns","value":7.0})");
    const auto parsed = parse_run_file(text, kSource);
    EXPECT_FALSE(parsed.pull_request);
    EXPECT_FALSE(parsed.commit_info);
    EXPECT_EQ(parsed.results, run.results);
}

TEST(RunFileTest, StartsWithItsFormatAndVersion) {
    const auto text = run_file_text(full_run());
    EXPECT_TRUE(text.starts_with("{\n  \"format\": \"benchwatch-run\",\n  \"version\": 1,\n"))
        << text;
    EXPECT_TRUE(text.ends_with("}\n"));
}

TEST(RunFileTest, FieldsOfALaterWriterAreIgnored) {
    const auto text = edited([](Json& json) { json["added_later"] = {1, 2}; });
    EXPECT_EQ(parse_run_file(text, kSource).project, "cuda");
}

TEST(RunFileTest, MalformedFilesGiveOneLineNamingTheFileAndTheField) {
    const std::string prefix = std::string(kSource) + ": ";
    EXPECT_EQ(error_of("{\"format\": "),
              prefix +
                  "not JSON: parse error at line 1, column 12: syntax error while parsing "
                  "value - unexpected end of input; expected '[', '{', or a literal");
    // Found by fuzz_run_file: nlohmann refuses such a number with out_of_range, not parse_error.
    EXPECT_EQ(error_of(R"({"format": "benchwatch-run", "recorded_at_ms": 5e3333})"),
              prefix +
                  "number overflow parsing '5e3333'; run files hold numbers a double can hold");
    EXPECT_EQ(error_of("[1, 2]"),
              prefix + "not a benchwatch run file (\"format\" is not \"benchwatch-run\")");
    EXPECT_EQ(error_of(edited([](Json& json) { json["format"] = "other"; })),
              prefix + "not a benchwatch run file (\"format\" is not \"benchwatch-run\")");
    EXPECT_EQ(error_of(edited([](Json& json) { json["version"] = 2; })),
              prefix +
                  "run file version 2 is not the version 1 this benchwatch reads; use the "
                  "benchwatch that wrote it");
    EXPECT_EQ(error_of(edited([](Json& json) { json["version"] = "1"; })),
              prefix + "\"version\" must be an integer");
    EXPECT_EQ(error_of(edited([](Json& json) { json.erase("commit"); })),
              prefix + "missing \"commit\"");
    EXPECT_EQ(error_of(edited([](Json& json) { json["project"] = ""; })),
              prefix + "\"project\" must not be empty");
    EXPECT_EQ(error_of(edited([](Json& json) { json["attempt"] = 0; })),
              prefix + "\"attempt\" must be a positive integer");
    EXPECT_EQ(error_of(edited([](Json& json) { json["recorded_at_ms"] = 1.5; })),
              prefix + "\"recorded_at_ms\" must be an integer");
    EXPECT_EQ(error_of(edited([](Json& json) {
                  json["pull_request"] = std::numeric_limits<std::uint64_t>::max();
              })),
              prefix + "\"pull_request\" is too large");
    EXPECT_EQ(error_of(edited([](Json& json) { json["environment"]["cpu"] = 3; })),
              prefix + "\"environment.cpu\" must be a string");
    EXPECT_EQ(error_of(edited([](Json& json) { json["warnings"] = Json::object(); })),
              prefix + "\"warnings\" must be an array");
    EXPECT_EQ(error_of(edited([](Json& json) { json["warnings"][1].erase("kind"); })),
              prefix + "missing \"warnings[1].kind\"");
    EXPECT_EQ(error_of(edited([](Json& json) { json["commit_info"]["url"] = nullptr; })),
              prefix + "missing \"commit_info.url\"");
    EXPECT_EQ(error_of(edited([](Json& json) { json["results"][1] = "io/read"; })),
              prefix + "\"results[1]\" must be an object");
    EXPECT_EQ(error_of(edited([](Json& json) { json["results"][1]["value"] = "fast"; })),
              prefix + "\"results[1].value\" must be a number");
    EXPECT_EQ(error_of(edited([](Json& json) { json["results"][0]["direction"] = "up"; })),
              prefix + "\"results[0].direction\" must be \"smaller\" or \"bigger\"");
    EXPECT_EQ(error_of(edited([](Json& json) { json["results"][0]["samples"].erase("mean"); })),
              prefix + "missing \"results[0].samples.mean\"");
}

TEST(RunFileTest, SampleValuesMustBeFewAscendingFiniteNumbers) {
    const std::string prefix = std::string(kSource) + ": \"results[0].samples.values\" ";
    const auto with_values = [](Json values, std::int64_t count = 1000) {
        return edited([&](Json& json) {
            json["results"][0]["samples"]["values"] = values;
            json["results"][0]["samples"]["count"] = count;
        });
    };
    EXPECT_EQ(error_of(with_values(Json{0.3, 0.2})), prefix + "must be in ascending order");
    EXPECT_EQ(error_of(with_values(Json{0.3, "fast"})), prefix + "must hold finite numbers only");
    EXPECT_EQ(error_of(with_values(Json::object())), prefix + "must be an array");
    EXPECT_EQ(error_of(with_values(Json(std::vector<double>(65, 1.0)))),
              prefix + "holds 65 values, more than the 64 a result keeps");
    EXPECT_EQ(error_of(with_values(Json{0.1, 0.2, 0.3}, 2)),
              prefix + "holds more values than \"count\" says there are samples");
    EXPECT_EQ(parse_run_file(with_values(Json(std::vector<double>(64, 1.0)), 64), kSource)
                  .results[0]
                  .samples->values.size(),
              64u);
}

TEST(RunFileTest, PathIsOneFilePerProjectMachineCommitAndContent) {
    auto run = full_run();
    EXPECT_EQ(run_file_path(run),
              "runs/cuda/gpu%20a100%2F2/"
              "0123456789abcdef0123456789abcdef01234567_00000000000000ff-0000000000000a01.json");
    auto rerun = run;
    rerun.attempt = 1;  // attempts are numbered by each store: not part of the identity
    rerun.recorded_at_ms += 1;
    EXPECT_EQ(run_file_path(rerun), run_file_path(run));
    rerun.content_hash = "00000000000000fe";
    EXPECT_NE(run_file_path(rerun), run_file_path(run));
}

TEST(RunFileTest, SeparatorsInNamesCannotMakeTwoRunsShareAPath) {
    auto a = full_run();
    auto b = full_run();
    a.commit = "x_y";  // commit "x_y", hash "z" against commit "x", hash "y_z"
    a.content_hash = "z";
    b.commit = "x";
    b.content_hash = "y_z";
    EXPECT_EQ(run_file_path(a), "runs/cuda/gpu%20a100%2F2/x%5Fy_z.json");
    EXPECT_EQ(run_file_path(b), "runs/cuda/gpu%20a100%2F2/x_y%5Fz.json");
}

TEST(RunFileTest, ComponentsAreSafeOnEveryFileSystem) {
    EXPECT_EQ(run_file_path_component("gpu a100/x"), "gpu%20a100%2Fx");
    EXPECT_EQ(run_file_path_component(".."), "%2E.");
    EXPECT_EQ(run_file_path_component(".hidden"), "%2Ehidden");
    EXPECT_EQ(run_file_path_component("v1.2-rc"), "v1.2-rc");
    EXPECT_EQ(run_file_path_component("caf\xc3\xa9"), "caf%C3%A9");
    EXPECT_EQ(run_file_folder("p q", ""), "runs/p%20q/");
    EXPECT_EQ(run_file_folder("p", "m"), "runs/p/m/");
    EXPECT_EQ(run_file_folder("", ""), "runs/");
}

TEST(RunFileTest, LongNamesKeepTheirStartAndAHashOfTheWhole) {
    const std::string long_name(200, 'a');
    const auto component = run_file_path_component(long_name);
    // 64 kept bytes + '~' + 16 hex digits = 81 bytes.
    ASSERT_EQ(component.size(), 81U);
    EXPECT_EQ(component.substr(0, 65), std::string(64, 'a') + "~");
    EXPECT_NE(component, run_file_path_component(long_name + "b"));
    // 63 'a' then a space: the cut at 64 would split "%20", so only the 63 letters are kept.
    const auto escaped = run_file_path_component(std::string(63, 'a') + std::string(40, ' '));
    EXPECT_EQ(escaped.substr(0, 64), std::string(63, 'a') + "~");
}

}  // namespace
}  // namespace benchwatch::store
