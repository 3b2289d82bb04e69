#include "store/run_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "model/commit_id.hpp"
#include "model/fnv.hpp"
#include "model/run_checks.hpp"

namespace benchwatch::store {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFormatName = "benchwatch-run";

// Encoded names longer than this are shortened to kKeptPrefix bytes, '~' and a hash.
constexpr std::size_t kLongestComponent = 96;
constexpr std::size_t kKeptPrefix = 64;

bool is_safe_byte(char byte, bool first) {
    if (byte >= 'A' && byte <= 'Z') return true;
    if (byte >= 'a' && byte <= 'z') return true;
    if (byte >= '0' && byte <= '9') return true;
    return byte == '-' || (byte == '.' && !first);
}

Json result_json(const model::Result& result) {
    Json json{{"benchmark", result.benchmark},
              {"metric", result.metric},
              {"value", result.value},
              {"unit", result.unit},
              {"direction", model::to_string(result.direction)}};
    const std::pair<const char*, const std::optional<double>*> optional_fields[] = {
        {"allocations", &result.allocations},
        {"memory", &result.memory},
        {"user_time", &result.user_time},
        {"system_time", &result.system_time},
        {"gc_time", &result.gc_time}};
    for (const auto& [name, value] : optional_fields)
        if (value->has_value()) json[name] = **value;
    if (result.samples) {
        json["samples"] = Json{{"count", result.samples->count},
                               {"median", result.samples->median},
                               {"mean", result.samples->mean},
                               {"stddev", result.samples->stddev}};
        if (!result.samples->values.empty()) json["samples"]["values"] = result.samples->values;
    }
    return json;
}

// Reads the fields of one JSON object, naming the object's place ("results[3]") in errors.
class FieldReader {
  public:
    FieldReader(const Json& object, std::string place, std::string_view source)
        : object_(object), place_(std::move(place)), source_(source) {}

    bool has(const char* key) const { return object_.contains(key) && !object_.at(key).is_null(); }

    std::string string(const char* key) const {
        const auto& value = field(key);
        if (!value.is_string()) fail(key, "must be a string");
        return value.get<std::string>();
    }

    std::string non_empty_string(const char* key) const {
        auto value = string(key);
        if (value.empty()) fail(key, "must not be empty");
        return value;
    }

    std::int64_t integer(const char* key) const {
        const auto& value = field(key);
        if (!value.is_number_integer()) fail(key, "must be an integer");
        if (value.is_number_unsigned() &&
            value.get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail(key, "is too large");
        return value.get<std::int64_t>();
    }

    double number(const char* key) const {
        const auto& value = field(key);
        if (!value.is_number()) fail(key, "must be a number");
        return value.get<double>();
    }

    std::optional<double> optional_number(const char* key) const {
        if (!has(key)) return std::nullopt;
        return number(key);
    }

    const Json& object(const char* key) const {
        const auto& value = field(key);
        if (!value.is_object()) fail(key, "must be an object");
        return value;
    }

    // An ascending array of at most model::kKeptSampleValues finite numbers.
    std::vector<double> sample_values(const char* key) const {
        const Json& values = array(key);
        if (values.size() > model::kKeptSampleValues)
            fail(key, fmt::format("holds {} values, more than the {} a result keeps", values.size(),
                                  model::kKeptSampleValues));
        std::vector<double> numbers;
        numbers.reserve(values.size());
        for (const Json& value : values) {
            if (!value.is_number() || !std::isfinite(value.get<double>()))
                fail(key, "must hold finite numbers only");
            numbers.push_back(value.get<double>());
            if (numbers.size() > 1 && numbers.back() < numbers[numbers.size() - 2])
                fail(key, "must be in ascending order");
        }
        return numbers;
    }

    const Json& array(const char* key) const {
        const auto& value = field(key);
        if (!value.is_array()) fail(key, "must be an array");
        return value;
    }

    std::string path(const char* key) const { return place_.empty() ? key : place_ + "." + key; }

    [[noreturn]] void fail(const char* key, std::string_view problem) const {
        throw RunFileError(fmt::format("{}: \"{}\" {}", source_, path(key), problem));
    }

  private:
    const Json& field(const char* key) const {
        if (!has(key)) throw RunFileError(fmt::format("{}: missing \"{}\"", source_, path(key)));
        return object_.at(key);
    }

    const Json& object_;
    std::string place_;
    std::string_view source_;
};

void require_object(const Json& value, const std::string& place, std::string_view source) {
    if (!value.is_object())
        throw RunFileError(fmt::format("{}: \"{}\" must be an object", source, place));
}

model::Result parse_result(const Json& json, const std::string& place, std::string_view source) {
    require_object(json, place, source);
    const FieldReader fields(json, place, source);
    model::Result result;
    result.benchmark = fields.non_empty_string("benchmark");
    result.metric = fields.non_empty_string("metric");
    result.value = fields.number("value");
    result.unit = fields.string("unit");
    const auto direction = model::parse_direction(fields.string("direction"));
    if (!direction) fields.fail("direction", "must be \"smaller\" or \"bigger\"");
    result.direction = *direction;
    result.allocations = fields.optional_number("allocations");
    result.memory = fields.optional_number("memory");
    result.user_time = fields.optional_number("user_time");
    result.system_time = fields.optional_number("system_time");
    result.gc_time = fields.optional_number("gc_time");
    if (fields.has("samples")) {
        const auto samples_place = fields.path("samples");
        const FieldReader samples(fields.object("samples"), samples_place, source);
        result.samples = model::SampleSummary{samples.integer("count"),
                                              samples.number("median"),
                                              samples.number("mean"),
                                              samples.number("stddev"),
                                              {}};
        if (samples.has("values")) {
            result.samples->values = samples.sample_values("values");
            if (static_cast<std::int64_t>(result.samples->values.size()) > result.samples->count)
                samples.fail("values", "holds more values than \"count\" says there are samples");
        }
    }
    return result;
}

}  // namespace

std::string run_file_text(const model::Run& run) {
    Json json{{"format", kFormatName},  {"version", kRunFileVersion}, {"project", run.project},
              {"machine", run.machine}, {"commit", run.commit},       {"branch", run.branch}};
    if (run.pull_request) json["pull_request"] = *run.pull_request;
    json["recorded_at_ms"] = run.recorded_at_ms;
    json["attempt"] = run.attempt;
    json["input_format"] = run.format;
    json["content_hash"] = run.content_hash;
    json["environment"] = Json::object();
    for (const auto& [key, value] : run.environment) json["environment"][key] = value;
    json["warnings"] = Json::array();
    for (const auto& warning : run.warnings)
        json["warnings"].push_back(Json{{"kind", warning.kind}, {"message", warning.message}});
    if (run.commit_info)
        json["commit_info"] = Json{{"message", run.commit_info->message},
                                   {"author", run.commit_info->author},
                                   {"timestamp", run.commit_info->timestamp},
                                   {"url", run.commit_info->url}};
    json["results"] = Json::array();
    for (const auto& result : run.results) json["results"].push_back(result_json(result));
    return json.dump(2) + "\n";
}

model::Run parse_run_file(std::string_view text, std::string_view source) {
    if (text.size() > kMaxRunFileBytes)
        throw RunFileError(
            fmt::format("{}: run file of {} bytes is larger than the {} MiB a run file may be",
                        source, text.size(), kMaxRunFileBytes >> 20));
    Json json;
    try {
        json = Json::parse(text);
    } catch (const Json::parse_error& error) {
        std::string_view message = error.what();
        if (const auto end_of_id = message.find("] "); end_of_id != std::string_view::npos)
            message.remove_prefix(end_of_id + 2);
        throw RunFileError(fmt::format("{}: not JSON: {}", source, message));
    } catch (const Json::out_of_range& error) {
        // A number beyond any double's range ("1e400"): nlohmann refuses it apart.
        std::string_view message = error.what();
        if (const auto end_of_id = message.find("] "); end_of_id != std::string_view::npos)
            message.remove_prefix(end_of_id + 2);
        throw RunFileError(
            fmt::format("{}: {}; run files hold numbers a double can hold", source, message));
    }
    const auto format = json.is_object() ? json.find("format") : json.end();
    if (format == json.end() || !format->is_string() || format->get<std::string>() != kFormatName)
        throw RunFileError(fmt::format("{}: not a benchwatch run file (\"format\" is not \"{}\")",
                                       source, kFormatName));
    const FieldReader fields(json, "", source);
    const auto version = fields.integer("version");
    if (version != kRunFileVersion)
        throw RunFileError(fmt::format(
            "{}: run file version {} is not the version {} this benchwatch reads; use the "
            "benchwatch that wrote it",
            source, version, kRunFileVersion));

    model::Run run;
    run.project = fields.non_empty_string("project");
    run.machine = fields.non_empty_string("machine");
    try {
        run.commit = model::CommitId::check(fields.non_empty_string("commit"), source,
                                            "a run file names its commit by the full SHA")
                         .str();
    } catch (const model::CommitIdError& error) {
        throw RunFileError(error.what());
    }
    run.branch = fields.string("branch");
    if (fields.has("pull_request")) run.pull_request = fields.integer("pull_request");
    run.recorded_at_ms = fields.integer("recorded_at_ms");
    const auto attempt = fields.integer("attempt");
    if (attempt < 1 || attempt > std::numeric_limits<int>::max())
        fields.fail("attempt", "must be a positive integer");
    run.attempt = static_cast<int>(attempt);
    run.format = fields.string("input_format");
    run.content_hash = fields.string("content_hash");
    for (const auto& [key, value] : fields.object("environment").items()) {
        if (!value.is_string())
            throw RunFileError(fmt::format("{}: \"environment.{}\" must be a string", source, key));
        run.environment.emplace(key, value.get<std::string>());
    }
    const auto& warnings = fields.array("warnings");
    for (std::size_t i = 0; i < warnings.size(); ++i) {
        const auto place = fmt::format("warnings[{}]", i);
        require_object(warnings[i], place, source);
        const FieldReader warning(warnings[i], place, source);
        run.warnings.push_back({warning.non_empty_string("kind"), warning.string("message")});
    }
    if (fields.has("commit_info")) {
        const FieldReader info(fields.object("commit_info"), "commit_info", source);
        run.commit_info = model::CommitInfo{info.string("message"), info.string("author"),
                                            info.string("timestamp"), info.string("url")};
    }
    const auto& results = fields.array("results");
    run.results.reserve(results.size());
    for (std::size_t i = 0; i < results.size(); ++i)
        run.results.push_back(parse_result(results[i], fmt::format("results[{}]", i), source));
    if (auto problem = model::run_names_problem(run.project, run.machine, run.branch, source))
        throw RunFileError(*problem);
    if (auto problem = model::results_problem(run.results, source)) throw RunFileError(*problem);
    return run;
}

std::string run_file_path_component(std::string_view name) {
    std::string encoded;
    encoded.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (is_safe_byte(name[i], i == 0))
            encoded += name[i];
        else
            encoded += fmt::format("%{:02X}", static_cast<unsigned char>(name[i]));
    }
    if (encoded.size() <= kLongestComponent) return encoded;
    // Never cut inside a %XX escape, so that the kept prefix still reads as the name's start.
    std::size_t kept = kKeptPrefix;
    if (encoded[kept - 1] == '%')
        kept -= 1;
    else if (encoded[kept - 2] == '%')
        kept -= 2;
    return fmt::format("{}~{:016x}", encoded.substr(0, kept), model::fnv1a(name));
}

std::string run_file_folder(std::string_view project, std::string_view machine) {
    std::string folder = "runs/";
    if (project.empty()) return folder;
    folder += run_file_path_component(project) + "/";
    if (!machine.empty()) folder += run_file_path_component(machine) + "/";
    return folder;
}

std::string run_file_path(const model::Run& run) {
    return fmt::format("{}{}_{}.json", run_file_folder(run.project, run.machine),
                       run_file_path_component(run.commit),
                       run_file_path_component(run.content_hash));
}

}  // namespace benchwatch::store
