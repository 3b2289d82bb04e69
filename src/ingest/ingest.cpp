#include "ingest/ingest.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "ingest/readers.hpp"

namespace benchwatch::ingest {

namespace ondemand = simdjson::ondemand;

namespace {

// Every format, in detection order. A new format is one file defining its Reader and one line
// here.
constexpr std::array<const detail::Reader*, 15> readers = {
    &detail::benchmarktools_reader,  &detail::googlebenchmark_reader,
    &detail::hyperfine_reader,       &detail::pytestbenchmark_reader,
    &detail::criterion_reader,       &detail::cargocriterion_reader,
    &detail::gotest_reader,          &detail::libtest_reader,
    &detail::catch2_reader,          &detail::nanobench_reader,
    &detail::jmh_reader,             &detail::benchmarkdotnet_reader,
    &detail::nvbench_reader,         &detail::githubactionbenchmark_reader,
    &detail::bencher_reader};

std::string known_formats() {
    return fmt::format("{}", fmt::join(format_names(), ", "));
}

bool blank(std::string_view content) {
    return std::all_of(content.begin(), content.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

// A results file opened for detection and reading: its text, and its JSON document unless
// simdjson refused the text, in which case the refusal waits until a JSON reader needs it.
class OpenedFile {
  public:
    OpenedFile(std::string_view content, std::size_t capacity, std::string_view source)
        : content_(content), source_(source) {
        try {
            json_.emplace(content, capacity, source);
        } catch (const InputError& error) {
            json_error_ = error;
            return;
        }
        root_error_ = json_->document().type().get(root_type_);
    }

    std::string_view content() const { return content_; }
    std::string_view source() const { return source_; }

    // What the readers may look at; the document only for a JSON object or array.
    detail::Probe probe() {
        const bool container =
            json_ && root_error_ == simdjson::SUCCESS &&
            (root_type_ == ondemand::json_type::object || root_type_ == ondemand::json_type::array);
        return {content_, container ? &json_->document() : nullptr};
    }

    // The JSON document, throwing why the text is none when it is none.
    detail::JsonInput& json() {
        if (json_error_) throw *json_error_;
        return *json_;
    }

    // Why no reader claimed the file: the JSON error when the text is not JSON, else the first
    // reader's description of it, else the kind of JSON value it is.
    [[noreturn]] void fail_unknown(const std::string& looked_like) {
        auto& input = json();
        if (root_error_ != simdjson::SUCCESS) input.fail_json(root_error_);
        const std::string description = !looked_like.empty()
                                            ? looked_like
                                            : fmt::format("{} rather than an object or array",
                                                          detail::describe_type(root_type_));
        input.fail(
            fmt::format("unknown results format (looked like: {}); pass --format with one of: {}",
                        description, known_formats()));
    }

  private:
    std::string_view content_;
    std::string source_;
    std::optional<detail::JsonInput> json_;
    std::optional<InputError> json_error_;
    simdjson::error_code root_error_ = simdjson::SUCCESS;
    ondemand::json_type root_type_ = ondemand::json_type::null;
};

// The one reader that claims the file; an error when none or several do.
const detail::Reader& detect(OpenedFile& file) {
    const detail::Probe probe = file.probe();
    std::vector<const detail::Reader*> claimants;
    std::string looked_like;
    for (const detail::Reader* reader : readers) {
        if (reader->parse_directory != nullptr) continue;
        if (reader->parse_json != nullptr && probe.json == nullptr) continue;
        const detail::Claim claim = reader->detect(probe);
        if (probe.json != nullptr) probe.json->rewind();
        if (claim.matches)
            claimants.push_back(reader);
        else if (looked_like.empty())
            looked_like = claim.looked_like;
    }
    if (claimants.empty()) file.fail_unknown(looked_like);
    if (claimants.size() > 1) {
        std::vector<std::string_view> names;
        for (const detail::Reader* reader : claimants) names.push_back(reader->name);
        throw InputError(fmt::format(
            "{}: ambiguous results format (looked like {} alike); pass --format {}", file.source(),
            fmt::join(names, " and "), fmt::join(names, " or --format ")));
    }
    return *claimants.front();
}

ParsedResults read(OpenedFile& file, std::string_view format) {
    const detail::Reader* chosen = nullptr;
    if (format == "auto") {
        chosen = &detect(file);
    } else {
        const auto named =
            std::find_if(readers.begin(), readers.end(),
                         [&](const detail::Reader* reader) { return reader->name == format; });
        if (named == readers.end())
            throw InputError(fmt::format("{}: unknown format '{}'; expected auto or one of: {}",
                                         file.source(), format, known_formats()));
        chosen = *named;
    }
    if (chosen->parse_text != nullptr) return chosen->parse_text(file.content(), file.source());
    auto& input = file.json();
    ParsedResults parsed = chosen->parse_json(input);
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
    const auto fail = [&](std::string_view message) {
        throw InputError(fmt::format("{}: {}", source, message));
    };
    if (blank(content)) fail("empty file; expected benchmark results");
    OpenedFile file(content, capacity, source);
    ParsedResults parsed;
    try {
        parsed = read(file, format);
    } catch (const simdjson::simdjson_error& error) {
        file.json().fail_json(error.error());
    }
    if (parsed.results.empty() && parsed.warnings.empty()) fail("no benchmark results in the file");
    if (parsed.results.empty())
        fail(fmt::format("no benchmark results; all were left out, e.g. {}",
                         parsed.warnings.front().substr(source.size() + 2)));
    parsed.content_hash = content_hash(content);
    return parsed;
}

// A folder is read by the one reader that reads folders, or the one named if it does.
ParsedResults parse_directory(const std::filesystem::path& path, std::string_view format) {
    const auto reads_folders = [&](const detail::Reader* reader) {
        return reader->parse_directory != nullptr && (format == "auto" || reader->name == format);
    };
    const auto folder_reader = std::find_if(readers.begin(), readers.end(), reads_folders);
    if (folder_reader == readers.end()) {
        std::vector<std::string_view> names;
        for (const detail::Reader* reader : readers)
            if (reader->parse_directory != nullptr) names.push_back(reader->name);
        throw InputError(fmt::format(
            "{}: is a folder; only {} reads a folder, any other format needs the results file",
            path.string(), fmt::join(names, " or ")));
    }
    ParsedResults parsed = (*folder_reader)->parse_directory(path);
    if (parsed.results.empty())
        throw InputError(fmt::format("{}: no benchmark results in the folder", path.string()));
    return parsed;
}

}  // namespace

std::vector<std::string> format_names() {
    std::vector<std::string> names;
    for (const detail::Reader* reader : readers) names.emplace_back(reader->name);
    return names;
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
    if (std::filesystem::is_directory(path, status_error)) return parse_directory(path, format);
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
