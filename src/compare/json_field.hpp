#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/error.hpp"

namespace benchwatch::compare {

// A JSON report read back that lacks a key or holds a value of the wrong type.
class JsonFieldError : public model::Error {
  public:
    explicit JsonFieldError(const std::string& message)
        : Error(model::ErrorKind::Report, message) {}
};

// One place in a JSON report read back, for messages: "benchmarks[3].base". Every accessor
// checks the type it reads and throws JsonFieldError naming the place, what was expected there
// and how to write a report that has it.
class JsonField {
  public:
    JsonField(const nlohmann::json& value, std::string path, std::string_view source)
        : value_(value), path_(std::move(path)), source_(source) {}

    JsonField operator[](std::string_view key) const {
        const auto& object = expect(value_.is_object(), "an object");
        const auto child_path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
        const auto found = object.find(key);
        if (found == object.end())
            throw JsonFieldError(fmt::format("{}: {}: missing; {}", source_, child_path, remedy));
        return {*found, child_path, source_};
    }

    std::vector<JsonField> elements() const {
        const auto& array = expect(value_.is_array(), "an array");
        std::vector<JsonField> fields;
        fields.reserve(array.size());
        for (std::size_t i = 0; i < array.size(); ++i)
            fields.emplace_back(array[i], fmt::format("{}[{}]", path_, i), source_);
        return fields;
    }

    bool is_null() const { return value_.is_null(); }

    // Whether this object has `key` (reports of older versions lack newer keys).
    bool has(std::string_view key) const {
        return expect(value_.is_object(), "an object").contains(key);
    }

    std::string text() const { return expect(value_.is_string(), "a string").get<std::string>(); }

    double number() const { return expect(value_.is_number(), "a number").get<double>(); }

    int integer() const {
        expect(value_.is_number_integer(), "an integer");
        const auto wide = value_.get<std::int64_t>();
        if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
            fail("an integer that fits 32 bits");
        return static_cast<int>(wide);
    }

    bool boolean() const { return expect(value_.is_boolean(), "true or false").get<bool>(); }

    std::optional<std::string> optional_text() const {
        if (is_null()) return std::nullopt;
        return text();
    }

    std::optional<double> optional_number() const {
        if (is_null()) return std::nullopt;
        return number();
    }

    std::vector<std::string> texts() const {
        std::vector<std::string> list;
        for (const auto& element : elements()) list.push_back(element.text());
        return list;
    }

    // Every member of an object whose values are strings.
    std::map<std::string, std::string> text_map() const {
        const auto& object = expect(value_.is_object(), "an object");
        std::map<std::string, std::string> map;
        for (const auto& [key, value] : object.items())
            map.emplace(key, JsonField(value, path_ + "." + key, source_).text());
        return map;
    }

    [[noreturn]] void fail(std::string_view expected) const {
        throw JsonFieldError(fmt::format("{}: {}: expected {}; {}", source_,
                                         path_.empty() ? "the document" : path_, expected, remedy));
    }

  private:
    static constexpr const char* remedy =
        "write the report with `benchwatch compare --format json`";

    const nlohmann::json& expect(bool holds, std::string_view expected) const {
        if (!holds) fail(expected);
        return value_;
    }

    const nlohmann::json& value_;
    std::string path_;
    std::string_view source_;
};

}  // namespace benchwatch::compare
