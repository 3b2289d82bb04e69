#include "ingest/ingest.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "ingest/json_pieces.hpp"
#include "ingest/readers.hpp"
#include "model/environment_keys.hpp"
#include "model/printable.hpp"
#include "model/run_checks.hpp"
#include "model/utf8.hpp"

namespace benchwatch::ingest {

namespace ondemand = simdjson::ondemand;

namespace {

// Every format, in detection order. A new format is one file defining its Reader and one line
// here.
constexpr std::array<const detail::Reader*, 16> readers = {&detail::benchmarktools_reader,
                                                           &detail::googlebenchmark_reader,
                                                           &detail::hyperfine_reader,
                                                           &detail::pytestbenchmark_reader,
                                                           &detail::criterion_reader,
                                                           &detail::cargocriterion_reader,
                                                           &detail::gotest_reader,
                                                           &detail::gotestjson_reader,
                                                           &detail::libtest_reader,
                                                           &detail::catch2_reader,
                                                           &detail::nanobench_reader,
                                                           &detail::jmh_reader,
                                                           &detail::benchmarkdotnet_reader,
                                                           &detail::nvbench_reader,
                                                           &detail::githubactionbenchmark_reader,
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
    OpenedFile(std::string_view content, std::size_t capacity, std::string_view source,
               std::string_view other_fix = {})
        : content_(content), source_(source), other_fix_(other_fix) {
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

    // Why no reader claimed the file: a reader's description of it when one recognised its
    // shape, else the JSON error when the text was meant to be JSON, else what kind of text or
    // JSON value it is.
    [[noreturn]] void fail_unknown(const std::string& looked_like) {
        const auto unknown = [&](const std::string& description) {
            return InputError(fmt::format(
                "{}: unknown results format (looked like: {}); {}pass --input-format with one of: "
                "{}",
                source_, description, other_fix_.empty() ? "" : other_fix_ + ", else ",
                known_formats()));
        };
        if (!looked_like.empty()) throw unknown(looked_like);
        const std::size_t first = content_.find_first_not_of(" \t\r\n");
        const bool meant_as_json =
            first != std::string_view::npos && (content_[first] == '{' || content_[first] == '[');
        if (!meant_as_json && !whole_json_scalar())
            throw unknown("text that is neither JSON nor the output of a harness benchwatch reads");
        auto& input = json();
        if (root_error_ != simdjson::SUCCESS) input.fail_json(root_error_);
        throw unknown(
            fmt::format("{} rather than an object or array", detail::describe_type(root_type_)));
    }

  private:
    // Whether the text is one JSON number, string, boolean or null and nothing else ("42"), as
    // opposed to text that only starts like one ("name  old time/op", "2024/01/02 log line").
    bool whole_json_scalar() {
        if (!json_ || root_error_ != simdjson::SUCCESS) return false;
        auto& document = json_->document();
        switch (root_type_) {
            case ondemand::json_type::number:
                return document.get_double().error() == simdjson::SUCCESS;
            case ondemand::json_type::string:
                return document.get_string().error() == simdjson::SUCCESS;
            case ondemand::json_type::boolean:
                return document.get_bool().error() == simdjson::SUCCESS;
            case ondemand::json_type::null: {
                bool is_null = false;
                return document.is_null().get(is_null) == simdjson::SUCCESS && is_null;
            }
            default:
                return false;
        }
    }

    std::string_view content_;
    std::string source_;
    std::string other_fix_;
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
    std::string refusal;
    for (const detail::Reader* reader : readers) {
        if (reader->parse_directory != nullptr) continue;
        if (reader->parse_json != nullptr && probe.json == nullptr) continue;
        const detail::Claim claim = reader->detect(probe);
        if (probe.json != nullptr) probe.json->rewind();
        if (claim.matches) {
            claimants.push_back(reader);
            continue;
        }
        if (looked_like.empty()) looked_like = claim.looked_like;
        if (refusal.empty()) refusal = claim.refusal;
    }
    if (claimants.empty() && !refusal.empty())
        throw InputError(fmt::format("{}: {}", file.source(), refusal));
    if (claimants.empty()) file.fail_unknown(looked_like);
    if (claimants.size() > 1) {
        std::vector<std::string_view> names;
        for (const detail::Reader* reader : claimants) names.push_back(reader->name);
        throw InputError(fmt::format(
            "{}: ambiguous results format (looked like {} alike); pass --input-format {}",
            file.source(), fmt::join(names, " and "), fmt::join(names, " or --input-format ")));
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

using detail::content_hash;

// Results files above this size are refused before they are read. The largest suites write a few
// MB; parsing holds the text plus simdjson's index of it (up to 4 bytes per byte of text), so the
// cap keeps a mistaken input (a log, a core dump) to about a GiB of memory at worst.
constexpr std::uintmax_t max_file_bytes = std::uintmax_t{256} << 20;

// Google Benchmark files from this size on are read a batch of rows at a time: 100,000
// benchmarks × 10 repetitions is about 290 MiB of JSON, and whole it would need the text and an
// index of it in memory, over a GiB.
constexpr std::uintmax_t pieces_from_bytes = std::uintmax_t{16} << 20;

// What a batch holds: large enough that simdjson's start-up per batch does not count, small
// enough that the batch and its index are a few tens of MB.
constexpr std::size_t batch_bytes = std::size_t{4} << 20;

// A file read in batches takes memory by its results, not its bytes, so it may be larger; the
// cap bounds the time a mistaken input takes (a few seconds per GiB).
constexpr std::uintmax_t max_pieces_file_bytes = std::uintmax_t{4} << 30;

// How much of a refused name its message shows, in characters.
constexpr std::size_t shown_name_characters = 60;

// "1.0 GiB", "300.5 MiB", "12.0 KiB" or "17 bytes".
std::string size_text(std::uintmax_t bytes) {
    constexpr std::array<std::string_view, 3> units = {"KiB", "MiB", "GiB"};
    if (bytes < 1024) return fmt::format("{} bytes", bytes);
    double scaled = static_cast<double>(bytes) / 1024;
    std::size_t unit = 0;
    while (scaled >= 1024 && unit + 1 < units.size()) {
        scaled /= 1024;
        ++unit;
    }
    return fmt::format("{:.1f} {}", scaled, units[unit]);
}

// Refuses a file over `limit` bytes: max_file_bytes, or max_pieces_file_bytes for a file that may
// be read in batches.
void check_size(std::uintmax_t bytes, std::string_view source,
                std::uintmax_t limit = max_file_bytes) {
    if (bytes <= limit) return;
    throw InputError(fmt::format(
        "{}: file is {}; benchwatch reads results files up to {} MiB, Google Benchmark files up "
        "to {} GiB; split the run into several files",
        source, size_text(bytes), max_file_bytes >> 20, max_pieces_file_bytes >> 30));
}

// The first `characters` characters of `name` (whole UTF-8 sequences), "…" when cut.
std::string name_start(std::string_view name, std::size_t characters) {
    std::size_t end = 0;
    for (std::size_t seen = 0; end < name.size(); ++end) {
        const bool starts_character = (static_cast<unsigned char>(name[end]) & 0xC0) != 0x80;
        if (starts_character && seen++ == characters) break;
    }
    return end < name.size() ? std::string(name.substr(0, end)) + "…" : std::string(name);
}

// Refuses a name over max_name_bytes.
void check_name_length(std::string_view name, std::string_view what, std::string_view source) {
    if (name.size() > detail::max_name_bytes)
        throw InputError(fmt::format("{}: {} of {} bytes is longer than the {} allowed: \"{}\"",
                                     source, what, name.size(), detail::max_name_bytes,
                                     name_start(name, shown_name_characters)));
}

// Refuses text for a format named by --format that reads only folders (Criterion.rs's
// target/criterion), whose reader has nothing to read text with.
void check_reads_files(std::string_view format, std::string_view source) {
    for (const detail::Reader* reader : readers)
        if (reader->name == format && reader->parse_json == nullptr &&
            reader->parse_text == nullptr)
            throw InputError(
                fmt::format("{}: --input-format {} reads a folder, not a file; pass the folder it "
                            "wrote instead",
                            source, format));
}

// Notes in the context which statistic of the harness's samples the values are (model::
// statistic_key), for the readers that always store the same one, unless the reader said.
void note_statistic(ParsedResults& parsed) {
    struct Statistic {
        std::string_view format;
        std::string_view statistic;
    };
    static constexpr std::array<Statistic, 11> statistics = {{{"benchmarkdotnet", "minimum"},
                                                              {"benchmarktools", "minimum"},
                                                              {"cargo-criterion", "minimum"},
                                                              {"catch2", "mean"},
                                                              {"criterion", "minimum"},
                                                              {"go", "minimum"},
                                                              {"go-json", "minimum"},
                                                              {"googlebenchmark", "minimum"},
                                                              {"jmh", "minimum"},
                                                              {"libtest", "median"},
                                                              {"pytest-benchmark", "minimum"}}};
    for (const Statistic& known : statistics)
        if (known.format == parsed.format)
            parsed.context.emplace(model::statistic_key, known.statistic);
}

// The checks every file's results pass after its reader: some results, printable names, finite
// values.
void check_parsed(ParsedResults& parsed, std::string_view source) {
    const auto fail = [&](std::string_view message) {
        throw InputError(fmt::format("{}: {}", source, message));
    };
    for (auto& warning : parsed.warnings) warning = model::printable_line(warning);
    if (parsed.results.empty() && parsed.warnings.empty()) fail("no benchmark results in the file");
    if (parsed.results.empty()) {
        // Warnings start "source: " or, from text readers, "source:LINE: ".
        const std::string& first = parsed.warnings.front();
        const std::size_t reason = first.find(": ", source.size());
        fail(fmt::format("no benchmark results; all were left out, e.g. {}",
                         reason == std::string::npos ? first : first.substr(reason + 2)));
    }
    detail::check_results(parsed.results, source);
}

ParsedResults parse_padded(std::string_view content, std::size_t capacity, std::string_view source,
                           std::string_view format, std::string_view other_fix = {}) {
    check_size(content.size(), source);
    if (blank(content))
        throw InputError(fmt::format("{}: empty file; expected benchmark results{}", source,
                                     other_fix.empty() ? "" : fmt::format("; {}", other_fix)));
    detail::check_utf8(content, source);
    check_reads_files(format, source);
    OpenedFile file(content, capacity, source, other_fix);
    ParsedResults parsed;
    try {
        parsed = read(file, format);
    } catch (const simdjson::simdjson_error& error) {
        file.json().fail_json(error.error());
    }
    check_parsed(parsed, source);
    note_statistic(parsed);
    parsed.content_hash = content_hash(content);
    return parsed;
}

// Whether the text before the "benchmarks" rows is Google Benchmark's, as detection would judge
// the whole file by its context.
bool opens_as_googlebenchmark(const std::string& head, std::string_view source) {
    const std::string text = head + "]}";
    try {
        detail::JsonInput input(text, text.size(), source);
        const detail::Probe probe{text, &input.document()};
        return detail::googlebenchmark_reader.detect(probe).matches;
    } catch (const InputError&) {
        return false;
    } catch (const simdjson::simdjson_error&) {
        return false;
    }
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
    for (auto& warning : parsed.warnings) warning = model::printable_line(warning);
    if (parsed.results.empty())
        throw InputError(fmt::format("{}: no benchmark results in the folder", path.string()));
    detail::check_results(parsed.results, path.string());
    note_statistic(parsed);
    return parsed;
}

}  // namespace

std::vector<std::string> format_names() {
    std::vector<std::string> names;
    for (const detail::Reader* reader : readers) names.emplace_back(reader->name);
    return names;
}

ParsedResults parse(std::string_view content, std::string_view source, std::string_view format,
                    std::string_view other_fix) {
    return parse_padded(content, content.size(), source, format, other_fix);
}

namespace {

// The bytes of `file`, which is not a regular file (a pipe, /dev/stdin), read until its end or
// until there are more than benchwatch reads.
std::string read_stream_bounded(std::ifstream& file) {
    std::string content;
    std::array<char, 1 << 16> chunk{};
    while (content.size() <= max_file_bytes &&
           file.read(chunk.data(), static_cast<std::streamsize>(chunk.size())).gcount() > 0)
        content.append(chunk.data(), static_cast<std::size_t>(file.gcount()));
    return content;
}

}  // namespace

namespace detail {

void check_utf8(std::string_view content, std::string_view source, std::uintmax_t offset,
                std::uintmax_t line) {
    if (simdjson::validate_utf8(content.data(), content.size())) return;
    const std::size_t at = model::first_invalid_utf8(content);
    const auto lines = std::count(content.begin(), content.begin() + static_cast<long>(at), '\n');
    throw InputError(fmt::format(
        "{}:{}: invalid UTF-8 (byte 0x{:02X} at offset {}); results files must be UTF-8 text",
        source, line + static_cast<std::uintmax_t>(lines), static_cast<unsigned char>(content[at]),
        offset + at));
}

std::optional<ParsedResults> parse_in_pieces(std::istream& in, std::uintmax_t size,
                                             std::string_view source, std::string_view format,
                                             std::size_t batch_bytes, bool second_thread) {
    if (format != "auto" && format != googlebenchmark_reader.name) return std::nullopt;
    RootArrayPieces pieces(in, size, source, "benchmarks", batch_bytes);
    if (!pieces.found()) return std::nullopt;
    if (format == "auto" && !opens_as_googlebenchmark(pieces.head(), source)) return std::nullopt;
    ParsedResults parsed = read_googlebenchmark_in_pieces(pieces, second_thread);
    check_parsed(parsed, source);
    note_statistic(parsed);
    parsed.content_hash = pieces.content_hash();
    return parsed;
}

void check_results(std::span<const model::Result> results, std::string_view source) {
    if (auto problem = model::results_problem(results, source)) throw InputError(*problem);
}

NameBudget::NameBudget(std::uintmax_t file_bytes, std::string_view source)
    : source_(source),
      limit_(max_names_bytes_per_file_byte * file_bytes + max_names_bytes_beyond_file) {}

void NameBudget::check_length(std::string_view name, std::string_view what) const {
    check_name_length(name, what, source_);
}

void NameBudget::take(std::string_view name) {
    check_length(name);
    used_ += name.size();
    if (used_ > limit_)
        throw InputError(fmt::format(
            "{}: the benchmark names add up to more than {} ({} times the file's size plus {} "
            "KiB): a long group, package or benchmark name is repeated in each of many results; "
            "shorten it",
            source_, size_text(limit_), max_names_bytes_per_file_byte,
            max_names_bytes_beyond_file >> 10));
}

std::string read_results_file(const std::filesystem::path& path) {
    const std::string source = path.string();
    const auto cannot_read = [&](int error_number) {
        return InputError(fmt::format("{}: cannot read: {}", source, std::strerror(error_number)));
    };
    std::error_code status_error;
    if (std::filesystem::is_directory(path, status_error)) throw cannot_read(EISDIR);
    const bool regular = std::filesystem::is_regular_file(path, status_error);
    const std::uintmax_t size = regular ? std::filesystem::file_size(path, status_error) : 0;
    if (regular && !status_error) check_size(size, source);
    errno = 0;
    std::ifstream file(path, std::ios::binary);
    if (!file) throw cannot_read(errno != 0 ? errno : ENOENT);
    std::string content;
    if (regular) {
        // Room for simdjson's padding after the bytes, so that the parser reads them in place.
        content.reserve(size + simdjson::SIMDJSON_PADDING);
        content.resize(size);
        file.read(content.data(), static_cast<std::streamsize>(size));
        if (file.bad() || static_cast<std::uintmax_t>(file.gcount()) != size)
            throw cannot_read(errno != 0 ? errno : EIO);
    } else {
        content = read_stream_bounded(file);
        if (file.bad()) throw cannot_read(errno != 0 ? errno : EIO);
        check_size(content.size(), source);
        content.reserve(content.size() + simdjson::SIMDJSON_PADDING);
    }
    return content;
}

}  // namespace detail

ParsedResults parse_file(const std::filesystem::path& path, std::string_view format) {
    std::error_code status_error;
    if (std::filesystem::is_directory(path, status_error)) return parse_directory(path, format);
    const std::uintmax_t size = std::filesystem::is_regular_file(path, status_error)
                                    ? std::filesystem::file_size(path, status_error)
                                    : 0;
    if (!status_error && size >= pieces_from_bytes) {
        check_size(size, path.string(), max_pieces_file_bytes);
        std::ifstream file(path, std::ios::binary);
        if (file)
            if (auto parsed =
                    detail::parse_in_pieces(file, size, path.string(), format, batch_bytes))
                return std::move(*parsed);
    }
    const std::string content = detail::read_results_file(path);
    return parse_padded(content, content.capacity(), path.string(), format);
}

InputError::InputError(std::string_view message)
    : Error(model::ErrorKind::Input, model::printable_line(message)) {}

}  // namespace benchwatch::ingest
