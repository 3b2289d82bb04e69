#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>

#include "ingest/readers.hpp"
#include "stats/stats.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

bool is_json_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// What a simdjson error means to someone holding a results file.
std::string describe(simdjson::error_code error) {
    switch (error) {
        case simdjson::TAPE_ERROR:
            return "malformed JSON: a missing or extra comma, colon, brace, bracket or key";
        case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
            return "truncated JSON: the file ends inside an object or array";
        case simdjson::UNCLOSED_STRING:
            return "truncated JSON: a string is never closed";
        case simdjson::STRING_ERROR:
            return "malformed JSON string";
        case simdjson::UNESCAPED_CHARS:
            return "a control character inside a JSON string";
        case simdjson::NUMBER_ERROR:
            return "malformed or out-of-range number";
        case simdjson::T_ATOM_ERROR:
        case simdjson::F_ATOM_ERROR:
        case simdjson::N_ATOM_ERROR:
        case simdjson::INCORRECT_TYPE:
            return "invalid JSON value";
        case simdjson::UTF8_ERROR:
            return "invalid UTF-8";
        case simdjson::DEPTH_ERROR:
            return "JSON nested too deeply";
        case simdjson::CAPACITY:
            return "file too large for the JSON parser";
        default:
            return simdjson::error_message(error);
    }
}

}  // namespace

const char* describe_type(ondemand::json_type type) {
    switch (type) {
        case ondemand::json_type::object:
            return "an object";
        case ondemand::json_type::array:
            return "an array";
        case ondemand::json_type::number:
            return "a number";
        case ondemand::json_type::string:
            return "a string";
        case ondemand::json_type::boolean:
            return "a boolean";
        case ondemand::json_type::null:
            return "null";
    }
    return "an unknown value";
}

JsonInput::JsonInput(std::string_view content, std::size_t capacity, std::string_view source)
    : source_(source), own_parser_(std::in_place), parser_(&*own_parser_) {
    start(content, capacity);
}

JsonInput::JsonInput(std::string_view content, std::size_t capacity, std::string_view source,
                     std::vector<TextOrigin> origins, simdjson::ondemand::parser& parser)
    : source_(source), origins_(std::move(origins)), parser_(&parser) {
    start(content, capacity);
}

void JsonInput::start(std::string_view content, std::size_t capacity) {
    if (capacity < content.size() + simdjson::SIMDJSON_PADDING) {
        owned_ = simdjson::padded_string(content);
        content = std::string_view(owned_.data(), owned_.size());
        capacity = content.size() + simdjson::SIMDJSON_PADDING;
    }
    text_ = content;
    const simdjson::padded_string_view padded(content.data(), content.size(), capacity);
    if (auto error = parser_->iterate(padded).get(document_)) fail(describe(error));
}

const char* JsonInput::where(ondemand::value& value) {
    const char* location = nullptr;
    if (value.current_location().get(location)) return nullptr;
    return location;
}

void JsonInput::fail(std::string_view message) const {
    throw InputError(fmt::format("{}: {}", source_, message));
}

void JsonInput::fail_at(const char* where, std::string_view message) const {
    if (where == nullptr || where < text_.data() || where > text_.data() + text_.size())
        fail(message);
    const auto offset = static_cast<std::size_t>(where - text_.data());
    const TextOrigin origin = *std::prev(
        std::upper_bound(origins_.begin(), origins_.end(), offset,
                         [](std::size_t at, const TextOrigin& part) { return at < part.at; }));
    const std::string_view before = text_.substr(origin.at, offset - origin.at);
    const auto lines = static_cast<std::uintmax_t>(std::count(before.begin(), before.end(), '\n'));
    const auto line_start = before.rfind('\n');
    const auto column = line_start == std::string_view::npos ? origin.column + before.size()
                                                             : before.size() - line_start;
    throw InputError(fmt::format("{}:{}:{}: {}", source_, origin.line + lines, column, message));
}

void JsonInput::fail_json(simdjson::error_code error) {
    const char* location = nullptr;
    if (document_.current_location().get(location)) location = nullptr;
    const char* const end = text_.data() + text_.size();
    const char* last_content = end;
    while (last_content > text_.data() && is_json_space(last_content[-1])) --last_content;
    const bool at_end = location == nullptr || location >= last_content;
    // simdjson reports a document that stops early as a structure error at its end, or as an
    // incomplete one from wherever it noticed; either way the place to show is the end.
    if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || (error == simdjson::TAPE_ERROR && at_end))
        fail_at(last_content, describe(simdjson::INCOMPLETE_ARRAY_OR_OBJECT));
    if (at_end) fail(describe(error));
    // A bare word such as NaN or Infinity is no structural token, so simdjson calls it a
    // structure error too.
    if (error == simdjson::TAPE_ERROR && std::isalpha(static_cast<unsigned char>(*location)))
        fail_at(location, describe(simdjson::INCORRECT_TYPE));
    fail_at(location, describe(error));
}

void JsonInput::fail_json_at(const char* where, simdjson::error_code error) const {
    fail_at(where, describe(error));
}

void JsonInput::expect(ondemand::value& value, ondemand::json_type expected,
                       std::string_view what) {
    const auto actual = value.type().value();
    if (actual == expected) return;
    fail_at(where(value), fmt::format("expected {} for {}, got {}", describe_type(expected), what,
                                      describe_type(actual)));
}

double JsonInput::number(ondemand::value& value, std::string_view what) {
    expect(value, ondemand::json_type::number, what);
    return value.get_double().value();
}

std::optional<double> JsonInput::number_or_null(ondemand::value& value, std::string_view what) {
    if (value.type().value() == ondemand::json_type::null) return std::nullopt;
    return number(value, what);
}

std::string_view JsonInput::string(ondemand::value& value, std::string_view what) {
    expect(value, ondemand::json_type::string, what);
    return value.get_string().value();
}

bool JsonInput::boolean(ondemand::value& value, std::string_view what) {
    expect(value, ondemand::json_type::boolean, what);
    return value.get_bool().value();
}

std::optional<std::string> JsonInput::scalar_text(ondemand::value& value) {
    switch (value.type().value()) {
        case ondemand::json_type::string:
            return std::string(value.get_string().value());
        case ondemand::json_type::boolean:
            return value.get_bool().value() ? "true" : "false";
        case ondemand::json_type::number: {
            std::string_view token = value.raw_json_token();
            while (!token.empty() && is_json_space(token.back())) token.remove_suffix(1);
            return std::string(token);
        }
        default:
            return std::nullopt;
    }
}

void JsonInput::expect_end() {
    const char* location = nullptr;
    if (document_.current_location().get(location)) return;
    fail_at(location, "unexpected content after the JSON document");
}

std::optional<std::vector<std::string>> first_element_keys(const Probe& probe,
                                                           std::string_view key) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::object)
        return std::nullopt;
    for (auto field : probe.json->get_object()) {
        if (field.unescaped_key().value() != key) continue;
        ondemand::value array = field.value();
        if (array.type().value() != ondemand::json_type::array) return std::nullopt;
        std::vector<std::string> keys;
        for (auto element : array.get_array()) {
            ondemand::value first = element.value();
            if (first.type().value() == ondemand::json_type::object)
                for (auto first_field : first.get_object())
                    keys.emplace_back(first_field.unescaped_key().value());
            break;
        }
        return keys;
    }
    return std::nullopt;
}

void check_positive_time(const JsonInput& input, std::string_view benchmark, double time) {
    if (std::isfinite(time) && time > 0) return;
    if (time > 0)
        input.fail(fmt::format("benchmark '{}': time is too large to store in ns", benchmark));
    input.fail(
        fmt::format("benchmark '{}': time must be a positive number, got {}", benchmark, time));
}

model::SampleSummary summarize(std::span<const double> times) {
    return {static_cast<std::int64_t>(times.size()), stats::median(times), stats::mean(times),
            stats::sample_stddev(times),
            stats::kept_order_statistics(times, model::kKeptSampleValues)};
}

namespace {

constexpr std::uint64_t fnv_prime = 0x100000001b3ULL;

}  // namespace

// FNV-1a over 8-byte words, then the tail bytes.
std::uint64_t content_hash(std::string_view bytes) {
    ContentHasher hasher(bytes.size());
    hasher.update(bytes);
    return hasher.value();
}

ContentHasher::ContentHasher(std::uintmax_t size) : hash_(0xcbf29ce484222325ULL ^ size) {}

void ContentHasher::update(std::string_view bytes) {
    std::size_t at = 0;
    if (pending_size_ > 0) {
        const std::size_t taken = std::min(bytes.size(), pending_.size() - pending_size_);
        std::memcpy(pending_.data() + pending_size_, bytes.data(), taken);
        pending_size_ += taken;
        at = taken;
        if (pending_size_ < pending_.size()) return;
        std::uint64_t word = 0;
        std::memcpy(&word, pending_.data(), sizeof word);
        hash_ = (hash_ ^ word) * fnv_prime;
        pending_size_ = 0;
    }
    for (; at + sizeof(std::uint64_t) <= bytes.size(); at += sizeof(std::uint64_t)) {
        std::uint64_t word = 0;
        std::memcpy(&word, bytes.data() + at, sizeof word);
        hash_ = (hash_ ^ word) * fnv_prime;
    }
    std::memcpy(pending_.data(), bytes.data() + at, bytes.size() - at);
    pending_size_ = bytes.size() - at;
}

std::uint64_t ContentHasher::value() const {
    std::uint64_t hash = hash_;
    for (std::size_t at = 0; at < pending_size_; ++at)
        hash = (hash ^ static_cast<unsigned char>(pending_[at])) * fnv_prime;
    return hash;
}

}  // namespace benchwatch::ingest::detail
