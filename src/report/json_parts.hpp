#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "model/comparison.hpp"

// Pieces that more than one of the report layer's JSON documents contain.
namespace benchwatch::report::detail {

// The value, or null when there is none.
template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

// [{"key", "before", "after"}, …], null for a side without the key.
inline nlohmann::ordered_json environment_changes_json(
    const std::vector<model::EnvironmentChange>& changes) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& change : changes)
        list.push_back({{"key", change.key},
                        {"before", optional_json(change.before)},
                        {"after", optional_json(change.after)}});
    return list;
}

// `benchwatch confirm --format json`'s document, which a report of `compare --confirm` carries
// as its "confirmation".
nlohmann::ordered_json confirmation_json(const model::Confirmation& confirmation);

}  // namespace benchwatch::report::detail
