#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "ingest/readers.hpp"

namespace benchwatch::ingest::test {

// Whether `reader` claims `content`, asked as ingest.cpp asks it: JSON readers only for a JSON
// object or array, text readers always.
inline bool claims_text(const detail::Reader& reader, const std::string& content) {
    std::optional<detail::JsonInput> json;
    try {
        json.emplace(content, content.size(), "probe");
    } catch (const InputError&) {
        json.reset();
    }
    simdjson::ondemand::json_type type{};
    const bool container = json && json->document().type().get(type) == simdjson::SUCCESS &&
                           (type == simdjson::ondemand::json_type::object ||
                            type == simdjson::ondemand::json_type::array);
    if (reader.parse_json != nullptr && !container) return false;
    const detail::Probe probe{content, container ? &json->document() : nullptr};
    try {
        return reader.detect(probe).matches;
    } catch (const simdjson::simdjson_error&) {
        return false;
    }
}

// Whether `reader` claims the file at `path`.
inline bool claims(const detail::Reader& reader, const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    return claims_text(reader, bytes.str());
}

// Every fixture file under tests/data except those in `own_folder` and README files.
inline std::vector<std::filesystem::path> other_fixtures(const std::filesystem::path& data,
                                                         const std::string& own_folder) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
        if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
        const auto relative = std::filesystem::relative(entry.path(), data);
        if (*relative.begin() == own_folder) continue;
        files.push_back(entry.path());
    }
    return files;
}

}  // namespace benchwatch::ingest::test
