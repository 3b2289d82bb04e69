#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "model/error.hpp"

namespace benchwatch::model {

// A commit id from outside (a run file, an imported history, an upload, the store) that is not a
// full SHA. what() is one line naming the id and where it came from.
class CommitIdError : public Error {
  public:
    explicit CommitIdError(const std::string& message) : Error(ErrorKind::Input, message) {}
};

// A full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hexadecimal digits, as git prints it.
// The only form in which a commit becomes a folder name or a git argument: it can be neither an
// option, nor a path of more than one component, nor "." or "..". Made only by check() or
// parse(), so that holding one proves the text was checked.
class CommitId {
  public:
    // What a refusal of a commit id advises when its caller has nothing more precise to say.
    static constexpr std::string_view default_remedy =
        "give the full SHA that git rev-parse prints";

    // `text` as a commit id; otherwise throws CommitIdError "ORIGIN: REFUSAL; REMEDY":
    // check("..", "data.js") throws "data.js: commit '..' is not a full commit SHA (40 or 64
    // lowercase hex digits); give the full SHA that git rev-parse prints".
    static CommitId check(std::string_view text, std::string_view origin,
                          std::string_view remedy = default_remedy);

    // `text` as a commit id, or std::nullopt when it is not one.
    static std::optional<CommitId> parse(std::string_view text);

    // Why `text` is no commit id, quoted safely (printable, at most 80 bytes of it, its quotes
    // as \u{27}): refusal("..") == "commit '..' is not a full commit SHA (40 or 64 lowercase hex
    // digits)".
    static std::string refusal(std::string_view text);

    // The 40 or 64 lowercase hex digits.
    const std::string& str() const { return sha_; }

    friend auto operator<=>(const CommitId&, const CommitId&) = default;

  private:
    explicit CommitId(std::string_view sha) : sha_(sha) {}
    std::string sha_;
};

}  // namespace benchwatch::model
