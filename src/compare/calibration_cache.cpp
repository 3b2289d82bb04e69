#include "compare/calibration_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "compare/level_method.hpp"
#include "model/fnv.hpp"
#include "stats/budget_share.hpp"

namespace benchwatch::compare::detail {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFormatName = "benchwatch-calibration";
constexpr int kFormatVersion = 2;

// Part of every settings fingerprint: raising it makes every cached calibration a miss. Raise it
// whenever calibrate_choice() may answer differently for the same runs and settings.
constexpr int kRulesVersion = 3;

std::string hex(std::uint64_t hash) {
    return fmt::format("{:016x}", hash);
}

// The string at `key`; empty when it is missing or not a string.
std::string string_at(const Json& object, const char* key) {
    const auto found = object.find(key);
    if (found == object.end() || !found->is_string()) return "";
    return found->get<std::string>();
}

// The number at `key` when it is finite and at least `minimum`.
std::optional<double> number_at(const Json& object, const char* key, double minimum) {
    const auto found = object.find(key);
    if (found == object.end() || !found->is_number()) return std::nullopt;
    const double value = found->get<double>();
    if (!std::isfinite(value) || value < minimum) return std::nullopt;
    return value;
}

}  // namespace

std::string calibration_text(const model::Calibration& calibration) {
    Json json{{"format", kFormatName},
              {"version", kFormatVersion},
              {"source", model::to_string(calibration.source)},
              {"budget", calibration.budget},
              {"sensitivity", calibration.sensitivity},
              {"pull_requests", calibration.pull_requests},
              {"flukes_per_pr", calibration.flukes_per_pr},
              {"expected_flukes_per_pr", calibration.expected_flukes_per_pr},
              {"prior_weight", calibration.prior_weight},
              {"replay_weight", calibration.replay_weight}};
    if (!calibration.thresholds_by_noise.empty())
        json["thresholds_by_noise"] = calibration.thresholds_by_noise;
    if (!calibration.thresholds_by_weight.empty()) {
        Json weighted = Json::array();
        for (const auto& [weight, thresholds] : calibration.thresholds_by_weight)
            weighted.push_back({{"weight", weight}, {"thresholds", thresholds}});
        json["thresholds_by_weight"] = std::move(weighted);
    }
    return json.dump();
}

namespace {

// A table of thresholds by noise as calibration_text() wrote it: one positive finite number per
// point of the noise grid; nullopt for anything else.
std::optional<std::vector<double>> threshold_table(const Json& thresholds) {
    if (!thresholds.is_array() || thresholds.size() != stats::share_noise_grid().size())
        return std::nullopt;
    std::vector<double> table;
    for (const auto& threshold : thresholds) {
        if (!threshold.is_number()) return std::nullopt;
        const double value = threshold.get<double>();
        if (!std::isfinite(value) || !(value > 0)) return std::nullopt;
        table.push_back(value);
    }
    return table;
}

}  // namespace

std::optional<model::Calibration> parse_calibration(std::string_view text) {
    const Json json = Json::parse(text.begin(), text.end(), nullptr, false);
    if (!json.is_object() || string_at(json, "format") != kFormatName) return std::nullopt;
    const auto version = json.find("version");
    if (version == json.end() || !version->is_number_integer() ||
        version->get<std::int64_t>() != kFormatVersion)
        return std::nullopt;

    model::Calibration calibration;
    const std::string source = string_at(json, "source");
    if (source == model::to_string(model::CalibrationSource::Calibrated))
        calibration.source = model::CalibrationSource::Calibrated;
    else if (source == model::to_string(model::CalibrationSource::Conservative))
        calibration.source = model::CalibrationSource::Conservative;
    else
        return std::nullopt;

    const auto pull_requests = json.find("pull_requests");
    if (pull_requests == json.end() || !pull_requests->is_number_integer()) return std::nullopt;
    const auto count = pull_requests->get<std::int64_t>();
    if (count < 0 || count > std::numeric_limits<int>::max()) return std::nullopt;
    calibration.pull_requests = static_cast<int>(count);

    const auto budget = number_at(json, "budget", 0);
    const auto sensitivity = number_at(json, "sensitivity", 0);
    const auto flukes = number_at(json, "flukes_per_pr", 0);
    if (!budget || !sensitivity || !flukes || *sensitivity == 0) return std::nullopt;
    calibration.budget = *budget;
    calibration.sensitivity = *sensitivity;
    calibration.flukes_per_pr = *flukes;
    const auto expected = number_at(json, "expected_flukes_per_pr", 0);
    const auto prior_weight = number_at(json, "prior_weight", 0);
    const auto replay_weight = number_at(json, "replay_weight", 0);
    if (!expected || !prior_weight || !replay_weight) return std::nullopt;
    calibration.expected_flukes_per_pr = *expected;
    calibration.prior_weight = *prior_weight;
    calibration.replay_weight = *replay_weight;

    if (const auto thresholds = json.find("thresholds_by_noise"); thresholds != json.end()) {
        auto table = threshold_table(*thresholds);
        if (!table) return std::nullopt;
        calibration.thresholds_by_noise = std::move(*table);
    }
    if (const auto weighted = json.find("thresholds_by_weight"); weighted != json.end()) {
        if (!weighted->is_array()) return std::nullopt;
        for (const auto& one : *weighted) {
            if (!one.is_object() || !one.contains("thresholds")) return std::nullopt;
            const auto weight = number_at(one, "weight", 0);
            auto table = threshold_table(one["thresholds"]);
            if (!weight || !table || !(*weight > 0)) return std::nullopt;
            calibration.thresholds_by_weight.push_back({*weight, std::move(*table)});
        }
    }
    return calibration;
}

std::string calibration_settings_fingerprint(const model::MethodChoice& choice,
                                             const std::vector<model::Category>& categories,
                                             const model::BenchmarkRules& rules) {
    // Only the level method calibrates.
    Json settings{{"rules", kRulesVersion}, {"method", choice.name()}};
    settings.update(level_settings_fingerprint(choice.settings<LevelSettings>()));
    Json list = Json::array();
    for (const auto& category : categories)
        list.push_back({{"prefixes", category.prefixes},
                        {"minimum_change", category.minimum_change},
                        {"counted_minimum_change", category.counted_minimum_change}});
    settings["categories"] = std::move(list);
    // Without rules the fingerprint stays what it was, so that caches written before rules
    // existed still serve.
    if (!rules.empty()) {
        Json rule_list = Json::array();
        for (const auto& rule : rules) {
            Json one{{"patterns", rule.patterns}, {"ignore", rule.ignore}};
            if (rule.minimum_change) one["minimum_change"] = *rule.minimum_change;
            if (rule.counted_minimum_change)
                one["counted_minimum_change"] = *rule.counted_minimum_change;
            if (rule.budget_weight) one["budget_weight"] = *rule.budget_weight;
            rule_list.push_back(std::move(one));
        }
        settings["benchmark_rules"] = std::move(rule_list);
    }
    return "level-" + hex(model::fnv1a(settings.dump()));
}

std::string calibration_history_fingerprint(std::span<const std::string> commits,
                                            const RunIndex& index) {
    std::int64_t newest_run = 0;
    std::uint64_t hash = model::fnv1a_basis;
    for (const auto& commit : commits) {
        for (const auto* run : index.runs_of(commit)) newest_run = std::max(newest_run, run->id);
        hash = model::fnv1a("\n", model::fnv1a(commit, hash));
    }
    return fmt::format("{} {} {} {}", commits.empty() ? "-" : commits.front(), commits.size(),
                       newest_run, hex(hash));
}

model::Calibration cached_calibration(
    store::Store& store, const store::CalibrationKey& key,
    const std::function<model::Calibration()>& calibrate,
    const std::function<std::optional<std::string>(const model::Calibration&)>& out_of_range) {
    std::string refusal;
    try {
        if (const auto text = store.cached_calibration(key))
            if (auto cached = parse_calibration(*text)) {
                if (auto problem = out_of_range(*cached)) {
                    refusal = std::move(*problem);
                } else {
                    cached->from_cache = true;
                    return *cached;
                }
            }
    } catch (const store::StoreError&) {
        // Unreadable: calibrated as if nothing were cached.
    }
    auto calibration = calibrate();
    try {
        store.cache_calibration(key, calibration_text(calibration));
    } catch (const store::StoreError&) {
        // Unwritable now: the next compare calibrates again.
    }
    calibration.cache_refusal = std::move(refusal);
    return calibration;
}

}  // namespace benchwatch::compare::detail
