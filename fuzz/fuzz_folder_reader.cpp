// The libFuzzer target of the one reader of folders, Criterion.rs's: a benchmark folder holds
// the fixture's benchmark.json, estimates.json and sample.json, one of them replaced by the
// input (chosen by what the input looks like, so that the fixtures seed each file), and the
// folder goes through ingest::parse_file. An InputError is the expected answer to a bad file.
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "ingest/ingest.hpp"

namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> file_names = {"benchmark.json", "estimates.json",
                                                   "sample.json"};

std::string read_bytes(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, std::string_view bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A target/criterion folder made once per process, its fixture files kept to restore them.
struct Folder {
    fs::path root =
        fs::temp_directory_path() / ("benchwatch-fuzz-criterion-" + std::to_string(getpid()));
    fs::path benchmark = root / "checksum" / "new";
    std::array<std::string, file_names.size()> originals;

    Folder() {
        fs::create_directories(benchmark);
        for (std::size_t i = 0; i < file_names.size(); ++i) {
            originals[i] = read_bytes(fs::path(BENCHWATCH_FUZZ_FOLDER_FIXTURE) / file_names[i]);
            write_bytes(benchmark / file_names[i], originals[i]);
        }
        std::atexit([] { fs::remove_all(folder().root); });
    }

    static Folder& folder() {
        static Folder made;
        return made;
    }
};

std::size_t file_for(std::string_view input) {
    if (input.find("\"iters\"") != std::string_view::npos) return 2;
    if (input.find("point_estimate") != std::string_view::npos) return 1;
    return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    Folder& folder = Folder::folder();
    const std::size_t replaced = file_for(input);
    write_bytes(folder.benchmark / file_names[replaced], input);
    try {
        benchwatch::ingest::parse_file(folder.root, "criterion");
    } catch (const benchwatch::ingest::InputError&) {
        // A refused folder with its message: what a malformed file should get.
    }
    write_bytes(folder.benchmark / file_names[replaced], folder.originals[replaced]);
    return 0;
}
