// What could break: reading a Criterion.rs target/criterion folder — which files count (new/ only,
// sorted), per-iteration times from sample.json, the slope-or-mean fallback, throughput as its own
// bigger-is-better result, and errors that name the exact file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "claim_probe.hpp"
#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

namespace fs = std::filesystem;

const fs::path criterion_dir =
    fs::path(BENCHWATCH_TEST_DATA) / "criterion" / "target" / "criterion";

constexpr double tolerance = 1e-6;

// A scratch target/criterion folder, removed with this object.
class ScratchFolder {
  public:
    ScratchFolder()
        : root_(fs::temp_directory_path() /
                ("benchwatch-criterion-" +
                 std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
        fs::remove_all(root_);
        fs::create_directories(root_);
    }
    ~ScratchFolder() { fs::remove_all(root_); }
    const fs::path& root() const { return root_; }
    void write(const fs::path& relative, const std::string& content) const {
        fs::create_directories((root_ / relative).parent_path());
        std::ofstream(root_ / relative) << content;
    }

  private:
    fs::path root_;
};

const std::string estimates_json =
    R"({"mean":{"point_estimate":200.0},"median":{"point_estimate":190.0},)"
    R"("std_dev":{"point_estimate":4.0},"slope":null})";

std::string folder_error(const fs::path& folder, std::string_view format = "auto") {
    try {
        parse_file(folder, format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(Criterion, FolderGivesOneResultPerBenchmarkInSortedOrder) {
    const auto parsed = parse_file(criterion_dir, "auto");
    EXPECT_EQ(parsed.format, "criterion");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 6u);
    // sorted by path: checksum/crc32, fib/iterative/20, fib/recursive/20, sort; base/ skipped
    EXPECT_EQ(parsed.results[0].benchmark, "checksum/crc32");
    EXPECT_EQ(parsed.results[0].metric, "time");
    EXPECT_EQ(parsed.results[1].benchmark, "checksum/crc32");
    EXPECT_EQ(parsed.results[1].metric, "throughput");
    EXPECT_EQ(parsed.results[2].benchmark, "fib/iterative/20");
    EXPECT_EQ(parsed.results[3].benchmark, "fib/recursive/20");
    EXPECT_EQ(parsed.results[4].benchmark, "sort");
    EXPECT_EQ(parsed.results[5].benchmark, "sort");
    EXPECT_EQ(parsed.results[5].metric, "throughput");
}

TEST(Criterion, SampleJsonGivesTheFastestIterationAndTheSamples) {
    const auto parsed = parse_file(criterion_dir, "criterion");
    const auto& iterative = parsed.results[2];
    EXPECT_EQ(iterative.unit, "ns");
    EXPECT_EQ(iterative.direction, model::Direction::SmallerIsBetter);
    // times / iters: 1230/10 = 123, 2400/20 = 120, 3720/30 = 124, 4760/40 = 119, 6100/50 = 122
    EXPECT_NEAR(iterative.value, 119, tolerance);
    ASSERT_TRUE(iterative.samples.has_value());
    EXPECT_EQ(iterative.samples->count, 5);
    EXPECT_NEAR(iterative.samples->median, 122, tolerance);
    EXPECT_NEAR(iterative.samples->mean, 121.6, tolerance);  // 608 / 5
    // squared deviations 6.76 + 2.56 + 0.16 + 1.96 + 5.76 = 17.2; / 4 = 4.3
    EXPECT_NEAR(iterative.samples->stddev, std::sqrt(4.3), tolerance);
}

TEST(Criterion, WithoutSamplesTheSlopeElseTheMeanIsTheValue) {
    const auto parsed = parse_file(criterion_dir, "criterion");
    const auto& recursive = parsed.results[3];
    EXPECT_NEAR(recursive.value, 26012.5, tolerance);  // slope point estimate
    ASSERT_TRUE(recursive.samples.has_value());
    EXPECT_EQ(recursive.samples->count, 0);  // estimates.json does not say how many
    EXPECT_NEAR(recursive.samples->median, 26050, tolerance);
    EXPECT_NEAR(recursive.samples->mean, 26100, tolerance);
    EXPECT_NEAR(recursive.samples->stddev, 310, tolerance);

    const auto& sort = parsed.results[4];
    EXPECT_NEAR(sort.value, 1500, tolerance);  // slope is null (flat sampling): the mean
}

TEST(Criterion, ThroughputIsPerSecondAndBiggerIsBetter) {
    const auto parsed = parse_file(criterion_dir, "criterion");
    const auto& crc_time = parsed.results[0];
    // times / iters: 510, 500, 510, 510 → fastest 500 ns
    EXPECT_NEAR(crc_time.value, 500, tolerance);
    EXPECT_EQ(crc_time.samples->count, 4);
    EXPECT_NEAR(crc_time.samples->median, 510, tolerance);
    EXPECT_NEAR(crc_time.samples->mean, 507.5, tolerance);

    const auto& crc_bytes = parsed.results[1];
    EXPECT_EQ(crc_bytes.unit, "B/s");
    EXPECT_EQ(crc_bytes.direction, model::Direction::BiggerIsBetter);
    EXPECT_NEAR(crc_bytes.value, 8.192e9, 1e-3);  // 4096 B per 500 ns
    EXPECT_FALSE(crc_bytes.samples.has_value());

    const auto& sort_elements = parsed.results[5];
    EXPECT_EQ(sort_elements.unit, "elements/s");
    EXPECT_EQ(sort_elements.direction, model::Direction::BiggerIsBetter);
    EXPECT_NEAR(sort_elements.value, 1000 * 1e9 / 1500, 1e-3);  // 1000 elements per 1500 ns
}

TEST(Criterion, HashCoversTheFilesRead) {
    const auto first = parse_file(criterion_dir, "auto");
    const auto second = parse_file(criterion_dir, "auto");
    EXPECT_EQ(first.content_hash, second.content_hash);
    EXPECT_NE(first.content_hash, 0u);

    ScratchFolder folder;
    folder.write("a/new/benchmark.json", R"({"full_id":"a"})");
    folder.write("a/new/estimates.json", estimates_json);
    const auto before = parse_file(folder.root(), "auto").content_hash;
    folder.write("a/new/estimates.json", R"({"mean":{"point_estimate":201.0}})");
    EXPECT_NE(parse_file(folder.root(), "auto").content_hash, before);
}

TEST(Criterion, AFolderWithoutBenchmarksSaysWhatItExpects) {
    ScratchFolder folder;
    folder.write("notes.txt", "hello");
    EXPECT_EQ(folder_error(folder.root()),
              folder.root().string() +
                  ": no */new/benchmark.json in the folder; expected Criterion.rs's "
                  "target/criterion folder after cargo bench");
}

TEST(Criterion, BadFilesAreNamedExactly) {
    ScratchFolder folder;
    const fs::path new_dir = folder.root() / "a" / "new";
    folder.write("a/new/benchmark.json", R"({"group_id":"a"})");
    EXPECT_EQ(folder_error(folder.root()), (new_dir / "benchmark.json").string() +
                                               ": expected a \"full_id\" naming the benchmark");

    folder.write("a/new/benchmark.json", R"({"full_id":"a"})");
    EXPECT_EQ(folder_error(folder.root()),
              (new_dir / "estimates.json").string() + ": cannot read: No such file or directory");

    folder.write("a/new/estimates.json", R"({"mean":{"point_estimate":-3}})");
    EXPECT_EQ(folder_error(folder.root()),
              (new_dir / "estimates.json").string() +
                  ": benchmark 'a': time must be a positive number, got -3");

    folder.write("a/new/estimates.json", R"({"median":{"point_estimate":3}})");
    EXPECT_EQ(folder_error(folder.root()),
              (new_dir / "estimates.json").string() + ": expected a \"mean\" estimate");

    folder.write("a/new/estimates.json", R"({"mean":{"point_estimate":"fast"}})");
    EXPECT_EQ(folder_error(folder.root()),
              (new_dir / "estimates.json").string() +
                  ":1:27: expected a number for \"mean\".\"point_estimate\", got a string");

    folder.write("a/new/estimates.json", estimates_json);
    folder.write("a/new/sample.json", R"({"iters":[1,2],"times":[10]})");
    EXPECT_EQ(folder_error(folder.root()),
              (new_dir / "sample.json").string() +
                  ": expected \"iters\" and \"times\" of one length, got 2 and 1");

    folder.write("a/new/sample.json", R"({"iters":[0],"times":[10]})");
    EXPECT_EQ(folder_error(folder.root()),
              (new_dir / "sample.json").string() + ": \"iters\" must be positive counts, got 0");

    folder.write("a/new/sample.json", R"({"iters":[1],"times":[10]})");
    folder.write("b/new/benchmark.json", R"({"full_id":"a"})");
    folder.write("b/new/estimates.json", estimates_json);
    EXPECT_EQ(folder_error(folder.root()),
              (folder.root() / "b" / "new" / "benchmark.json").string() +
                  ": benchmark 'a' appears twice, also in " +
                  (new_dir / "benchmark.json").string());
}

TEST(Criterion, TruncatedJsonNamesTheFile) {
    ScratchFolder folder;
    folder.write("a/new/benchmark.json", R"({"full_id":"a")");  // 14 characters
    EXPECT_EQ(folder_error(folder.root()),
              (folder.root() / "a" / "new" / "benchmark.json").string() +
                  ":1:15: truncated JSON: the file ends inside an object or array");
}

TEST(Criterion, ClaimsNoSingleFile) {
    // Criterion's results are a folder; none of its files, nor any other fixture, is claimed.
    for (const auto& file : fs::recursive_directory_iterator(fs::path(BENCHWATCH_TEST_DATA))) {
        if (!file.is_regular_file()) continue;
        EXPECT_FALSE(test::claims(detail::criterion_reader, file.path())) << file.path();
    }
}

}  // namespace
}  // namespace benchwatch::ingest
