// Google Benchmark suite of textkit. Inputs come from a fixed seed, so every run and every commit
// measures the same work. scripts/demo runs it with --benchmark_min_time=0.05 so that the suite
// with --benchmark_repetitions=3 takes a few seconds.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "textkit.hpp"

namespace {

// Lower-case words of 2 to 9 letters, the same list on every run.
std::vector<std::string> make_vocabulary(std::size_t size, std::mt19937& random) {
    std::uniform_int_distribution<int> length(2, 9);
    std::uniform_int_distribution<int> letter('a', 'z');
    std::vector<std::string> vocabulary(size);
    for (std::string& word : vocabulary) {
        word.resize(static_cast<std::size_t>(length(random)));
        for (char& c : word) c = static_cast<char>(letter(random));
    }
    return vocabulary;
}

// Prose-like text of about `bytes` bytes: words of a 500-word vocabulary, spaces and newlines.
std::string make_text(std::size_t bytes) {
    std::mt19937 random(42);
    const std::vector<std::string> vocabulary = make_vocabulary(500, random);
    std::uniform_int_distribution<std::size_t> pick(0, vocabulary.size() - 1);
    std::string text;
    text.reserve(bytes + 16);
    for (std::size_t words = 1; text.size() < bytes; ++words) {
        text += vocabulary[pick(random)];
        text += words % 12 == 0 ? '\n' : ' ';
    }
    return text;
}

// Short texts only: on 64 KiB the loop's branches defeat the predictor, and its speed then swings
// by 30% with where the linker happens to place the code.
void BM_CountWords(benchmark::State& state) {
    const std::string text = make_text(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(textkit::count_words(text));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_CountWords)->Arg(1024)->Arg(4096);

void BM_Checksum(benchmark::State& state) {
    const std::string data = make_text(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(textkit::adler32(data));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(data.size()));
}
BENCHMARK(BM_Checksum)->Arg(4096)->Arg(65536);

void BM_Join(benchmark::State& state) {
    std::mt19937 random(7);
    const std::vector<std::string> parts =
        make_vocabulary(static_cast<std::size_t>(state.range(0)), random);
    for (auto _ : state) benchmark::DoNotOptimize(textkit::join(parts, ", "));
}
BENCHMARK(BM_Join)->Arg(64)->Arg(1024);

void BM_Split(benchmark::State& state) {
    const std::string text = make_text(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(textkit::split(text, ' '));
}
BENCHMARK(BM_Split)->Arg(16384);

void BM_ParseIntegers(benchmark::State& state) {
    std::mt19937 random(11);
    std::uniform_int_distribution<std::int64_t> number(-1'000'000, 1'000'000);
    std::string csv;
    for (std::int64_t i = 0; i < state.range(0); ++i) {
        if (i > 0) csv += ',';
        csv += std::to_string(number(random));
    }
    for (auto _ : state) benchmark::DoNotOptimize(textkit::parse_integers(csv));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParseIntegers)->Arg(1000);

// Each iteration sorts a fresh copy; keys fit the small-string buffer, so copying is cheap.
void BM_SortRecords(benchmark::State& state) {
    std::mt19937 random(3);
    const std::vector<std::string> keys = make_vocabulary(64, random);
    std::uniform_int_distribution<std::size_t> pick(0, keys.size() - 1);
    std::vector<textkit::Record> unsorted(static_cast<std::size_t>(state.range(0)));
    std::int64_t row = 0;
    for (textkit::Record& record : unsorted) record = {keys[pick(random)], row++};
    for (auto _ : state) {
        std::vector<textkit::Record> records = unsorted;
        textkit::sort_records(records);
        benchmark::DoNotOptimize(records.data());
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SortRecords)->Arg(64)->Arg(1024);

void BM_TopWords(benchmark::State& state) {
    const std::string text = make_text(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(textkit::top_words(text, 10));
}
BENCHMARK(BM_TopWords)->Arg(65536);

}  // namespace

BENCHMARK_MAIN();
