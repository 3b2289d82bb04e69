#include "forge/sticky.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace benchwatch::forge {

namespace {

bool needs_escape(char character, char previous) {
    const auto byte = static_cast<unsigned char>(character);
    return byte < 0x21 || byte == 0x7f || character == '%' || character == '<' ||
           character == '>' || character == '!' || (character == '-' && previous == '-');
}

std::string cut_note(std::size_t kept, std::size_t whole, const CommentLimit& limit) {
    return fmt::format("\n_benchwatch cut this report after {} of its {} bytes to fit {}; {}._\n",
                       kept, whole, limit.limit_name, limit.full_report);
}

bool is_marked_item(const nlohmann::json& item, std::string_view project) {
    return item.is_object() && item.contains("id") && item["id"].is_number_integer() &&
           item.contains("body") && item["body"].is_string() &&
           !(item.contains("system") && item["system"] == true) &&
           is_sticky_comment(item["body"].get<std::string>(), project);
}

}  // namespace

std::string comment_marker(std::string_view project) {
    std::string marker = "<!-- benchwatch:";
    char previous = ':';
    for (const char character : project) {
        if (needs_escape(character, previous))
            marker += fmt::format("%{:02X}", static_cast<unsigned char>(character));
        else
            marker += character;
        previous = character;
    }
    return marker + " -->";
}

bool is_sticky_comment(std::string_view body, std::string_view project) {
    const auto marker = comment_marker(project);
    if (!body.starts_with(marker)) return false;
    body.remove_prefix(marker.size());
    return body.empty() || body.starts_with('\n') || body.starts_with("\r\n");
}

std::size_t report_allowance(std::string_view project, const CommentLimit& limit) {
    return limit.bytes - comment_marker(project).size() - 1;
}

std::string sticky_comment_body(std::string_view project, std::string_view report,
                                const CommentLimit& limit) {
    auto body = comment_marker(project) + "\n";
    const auto allowance = report_allowance(project, limit);
    if (report.size() <= allowance) return body.append(report);
    // The note's numbers have at most as many digits as the report's size.
    const auto note_size = cut_note(report.size(), report.size(), limit).size();
    assert(allowance > note_size);
    const auto last_newline = report.rfind('\n', allowance - note_size - 1);
    const auto kept = last_newline == std::string_view::npos ? 0 : last_newline + 1;
    return body.append(report.substr(0, kept)).append(cut_note(kept, report.size(), limit));
}

bool same_user(const nlohmann::json& author, const nlohmann::json& identity,
               std::string_view name_key) {
    if (!author.is_object() || !identity.is_object()) return false;
    const auto integer = [](const nlohmann::json& user) -> std::optional<std::int64_t> {
        if (!user.contains("id") || !user["id"].is_number_integer()) return std::nullopt;
        return user["id"].get<std::int64_t>();
    };
    if (integer(author) && integer(identity)) return *integer(author) == *integer(identity);
    const std::string key(name_key);
    const auto name = [&key](const nlohmann::json& user) {
        return user.contains(key) && user[key].is_string() ? user[key].get<std::string>() : "";
    };
    return !name(author).empty() && name(author) == name(identity);
}

StickyPlan plan_sticky_comment(const std::vector<nlohmann::json>& listed, std::string_view project,
                               const WrittenByBenchwatch& ours) {
    std::vector<std::int64_t> marked;
    for (const auto& item : listed)
        if (is_marked_item(item, project) && ours(item))
            marked.push_back(item["id"].get<std::int64_t>());
    std::sort(marked.begin(), marked.end());
    StickyPlan plan;
    if (marked.empty()) return plan;
    plan.edit = marked.back();
    marked.pop_back();
    plan.remove = std::move(marked);
    return plan;
}

StickyOutcome post_sticky_comment(const StickyCalls& calls, std::string_view project,
                                  const std::string& body) {
    const auto plan = plan_sticky_comment(calls.list_all(), project, calls.ours);
    const nlohmann::json payload = {{"body", body}};
    StickyOutcome outcome;
    outcome.created = !plan.edit;
    outcome.answer = plan.edit ? calls.edit(*plan.edit, payload) : calls.create(payload);
    for (const auto id : plan.remove) {
        calls.remove(id);
        ++outcome.deleted;
    }
    const auto& answer = outcome.answer;
    if (answer.is_object() && answer.contains("id") && answer["id"].is_number_integer())
        outcome.id = answer["id"].get<std::int64_t>();
    return outcome;
}

}  // namespace benchwatch::forge
