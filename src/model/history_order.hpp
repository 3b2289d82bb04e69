#pragma once

#include <optional>
#include <string_view>

namespace benchwatch::model {

// The order a default-branch history's commits come in: git's first-parent chain, the order
// their runs were recorded in (no repository, or one that does not know the commits), or none
// (two results files compared without a history).
enum class HistoryOrder { None, Git, Recorded };

// "none", "git" or "recorded", as reports and the dashboard's API spell it.
std::string_view to_string(HistoryOrder order);

// The HistoryOrder that `text` spells as to_string() does; std::nullopt for anything else.
std::optional<HistoryOrder> parse_history_order(std::string_view text);

}  // namespace benchwatch::model
