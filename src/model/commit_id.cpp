#include "model/commit_id.hpp"

#include <algorithm>

#include "model/printable.hpp"

namespace benchwatch::model {

namespace {

// The longest part of a rejected id that a message quotes.
constexpr std::size_t longest_quoted = 80;

bool is_lowercase_full_sha(std::string_view text) {
    return (text.size() == 40 || text.size() == 64) &&
           std::all_of(text.begin(), text.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// `text` cut to at most longest_quoted bytes, never inside a UTF-8 sequence, made printable,
// its quotes written \u{27} so that it cannot close the quote around it, with "…" when cut.
std::string quoted(std::string_view text) {
    const std::string_view kept = utf8_prefix(text, longest_quoted);
    std::string shown;
    for (const char c : printable_line(kept)) {
        if (c == '\'')
            shown += "\\u{27}";
        else
            shown += c;
    }
    if (kept.size() < text.size()) shown += "…";
    return shown;
}

}  // namespace

CommitId CommitId::check(std::string_view text, std::string_view origin, std::string_view remedy) {
    if (auto id = parse(text)) return *std::move(id);
    throw CommitIdError(printable_line(origin) + ": " + refusal(text) + "; " +
                        printable_line(remedy));
}

std::string CommitId::refusal(std::string_view text) {
    return "commit '" + quoted(text) + "' is not a full commit SHA (40 or 64 lowercase hex digits)";
}

std::optional<CommitId> CommitId::parse(std::string_view text) {
    if (!is_lowercase_full_sha(text)) return std::nullopt;
    return CommitId(text);
}

}  // namespace benchwatch::model
