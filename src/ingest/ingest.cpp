#include "ingest/ingest.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "ingest/readers.hpp"

namespace benchwatch::ingest {

namespace ondemand = simdjson::ondemand;

namespace {

constexpr std::string_view benchmarktools = "benchmarktools";
constexpr std::string_view googlebenchmark = "googlebenchmark";

// The format a document looks like, or why it looks like none.
struct Detection {
    std::string_view format;  // empty: unknown
    std::string looked_like;  // for the message when unknown
};

// BenchmarkTools.save writes [versions, [values…]]; Google Benchmark {"context", "benchmarks"}.
// Reads only as far as it must, then rewinds the document for the reader.
Detection detect(detail::JsonInput& input) {
    auto& document = input.document();
    Detection detection;
    const auto root_type = document.type().value();
    if (root_type == ondemand::json_type::array) {
        detection.looked_like =
            "a JSON array that is not a versions object followed by an array of saved values";
        int position = 0;
        for (auto element : document.get_array()) {
            ondemand::value value = element.value();
            const auto type = value.type().value();
            if (position == 0 && type == ondemand::json_type::object) {
                for (auto field : value.get_object())
                    if (field.unescaped_key().value() == "BenchmarkTools")
                        detection.format = benchmarktools;
            } else if (position == 1 && type == ondemand::json_type::array) {
                detection.format = benchmarktools;
            }
            if (!detection.format.empty() || position == 1 || type != ondemand::json_type::object)
                break;
            ++position;
        }
    } else if (root_type == ondemand::json_type::object) {
        detection.looked_like = "a JSON object without a \"benchmarks\" array";
        for (auto field : document.get_object()) {
            if (field.unescaped_key().value() != "benchmarks") continue;
            ondemand::value benchmarks = field.value();
            if (benchmarks.type().value() == ondemand::json_type::array)
                detection.format = googlebenchmark;
            break;
        }
    } else {
        detection.looked_like =
            fmt::format("{} rather than an object or array", detail::describe_type(root_type));
    }
    document.rewind();
    return detection;
}

std::string known_formats() {
    const auto names = format_names();
    std::string joined;
    for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
    return joined;
}

bool blank(std::string_view content) {
    return std::all_of(content.begin(), content.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

ParsedResults read(detail::JsonInput& input, std::string_view format) {
    std::string_view chosen = format;
    if (format == "auto") {
        const auto detection = detect(input);
        if (detection.format.empty())
            input.fail(fmt::format(
                "unknown results format (looked like: {}); pass --format with one of: {}",
                detection.looked_like, known_formats()));
        chosen = detection.format;
    }
    ParsedResults parsed;
    if (chosen == benchmarktools) {
        parsed = detail::read_benchmarktools(input);
    } else if (chosen == googlebenchmark) {
        parsed = detail::read_googlebenchmark(input);
    } else {
        input.fail(fmt::format("unknown format '{}'; expected auto or one of: {}", format,
                               known_formats()));
    }
    input.expect_end();
    return parsed;
}

// FNV-1a over 8-byte words (then the tail bytes): tells the few result files of one commit
// apart at memory speed; no defence against attackers, and none is needed.
std::uint64_t content_hash(std::string_view bytes) {
    constexpr std::uint64_t prime = 0x100000001b3ULL;
    std::uint64_t hash = 0xcbf29ce484222325ULL ^ bytes.size();
    std::size_t at = 0;
    for (; at + sizeof(std::uint64_t) <= bytes.size(); at += sizeof(std::uint64_t)) {
        std::uint64_t word = 0;
        std::memcpy(&word, bytes.data() + at, sizeof word);
        hash = (hash ^ word) * prime;
    }
    for (; at < bytes.size(); ++at) hash = (hash ^ static_cast<unsigned char>(bytes[at])) * prime;
    return hash;
}

ParsedResults parse_padded(std::string_view content, std::size_t capacity, std::string_view source,
                           std::string_view format) {
    if (blank(content))
        throw InputError(fmt::format("{}: empty file; expected benchmark results", source));
    detail::JsonInput input(content, capacity, source);
    ParsedResults parsed;
    try {
        parsed = read(input, format);
    } catch (const simdjson::simdjson_error& error) {
        input.fail_json(error.error());
    }
    if (parsed.results.empty() && parsed.warnings.empty())
        input.fail("no benchmark results in the file");
    if (parsed.results.empty())
        input.fail(fmt::format("no benchmark results; all were left out, e.g. {}",
                               parsed.warnings.front().substr(source.size() + 2)));
    parsed.content_hash = content_hash(content);
    return parsed;
}

}  // namespace

std::vector<std::string> format_names() {
    return {std::string(benchmarktools), std::string(googlebenchmark)};
}

ParsedResults parse(std::string_view content, std::string_view source, std::string_view format) {
    return parse_padded(content, content.size(), source, format);
}

ParsedResults parse_file(const std::filesystem::path& path, std::string_view format) {
    const std::string source = path.string();
    const auto cannot_read = [&](int error_number) {
        return InputError(fmt::format("{}: cannot read: {}", source, std::strerror(error_number)));
    };
    std::error_code status_error;
    if (std::filesystem::is_directory(path, status_error)) throw cannot_read(EISDIR);
    errno = 0;
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw cannot_read(errno != 0 ? errno : ENOENT);
    const auto size = static_cast<std::size_t>(file.tellg());
    file.seekg(0);
    // Room for simdjson's padding after the bytes, so that the parser reads them in place.
    std::string content;
    content.reserve(size + simdjson::SIMDJSON_PADDING);
    content.resize(size);
    file.read(content.data(), static_cast<std::streamsize>(size));
    if (file.bad() || static_cast<std::size_t>(file.gcount()) != size)
        throw cannot_read(errno != 0 ? errno : EIO);
    return parse_padded(content, content.capacity(), source, format);
}

}  // namespace benchwatch::ingest
