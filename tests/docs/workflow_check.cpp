#include "docs/workflow_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <regex>
#include <utility>

#include "support/test_support.hpp"

namespace benchwatch::testing::docs {
namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        lines.push_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

// A Markdown code fence's opening or closing line: up to three spaces, then ``` or ~~~.
struct Fence {
    std::size_t indent = 0;
    char marker = '`';
    std::size_t length = 0;
    std::string_view info;  // what follows the marker: "yaml", "toml title=x"…
};

std::optional<Fence> read_fence(std::string_view line) {
    Fence fence;
    while (fence.indent < line.size() && fence.indent < 4 && line[fence.indent] == ' ')
        ++fence.indent;
    if (fence.indent == 4 || fence.indent == line.size()) return std::nullopt;
    fence.marker = line[fence.indent];
    if (fence.marker != '`' && fence.marker != '~') return std::nullopt;
    while (fence.indent + fence.length < line.size() &&
           line[fence.indent + fence.length] == fence.marker)
        ++fence.length;
    if (fence.length < 3) return std::nullopt;
    fence.info = trim(line.substr(fence.indent + fence.length));
    return fence;
}

// The fence's language: the first word of its info string.
std::string_view fence_language(const Fence& fence) {
    return fence.info.substr(0, std::min(fence.info.find(' '), fence.info.size()));
}

bool closes(const Fence& opening, std::string_view line) {
    const auto candidate = read_fence(line);
    return candidate && candidate->marker == opening.marker &&
           candidate->length >= opening.length && candidate->info.empty();
}

bool is_variable_name(std::string_view name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// A word such as FOO=bar before a command's name, which sets the command's environment.
bool is_assignment(std::string_view word) {
    const auto equals = word.find('=');
    return equals != std::string_view::npos && is_variable_name(word.substr(0, equals));
}

// Words a shell reads before a command's name without running them: reserved words and
// builtins that run the command after them.
bool is_command_prefix(std::string_view word) {
    static constexpr std::array prefixes{"if",   "then", "else", "elif", "while",  "until",
                                         "do",   "!",    "{",    "}",    "fi",     "done",
                                         "esac", "time", "exec", "env",  "command"};
    return std::find(prefixes.begin(), prefixes.end(), word) != prefixes.end();
}

// The POSIX shell's splitting of a script into simple commands, as far as the docs need it.
class ShellScanner {
  public:
    ShellScanner(std::string_view script, int first_line) : text_(script), line_(first_line) {}

    std::vector<ShellCommand> scan() {
        scan_list(false);
        return std::move(commands_);
    }

  private:
    enum class NextWord { argument, redirection_target, heredoc_delimiter };

    // The command being read and its word in progress.
    struct CommandInProgress {
        ShellCommand command;
        std::string word;
        bool in_word = false;
        int word_line = 0;
        NextWord next = NextWord::argument;
        bool heredoc_strips_tabs = false;
    };

    struct PendingHeredoc {
        std::string delimiter;
        bool strips_tabs = false;
    };

    bool at_end() const { return position_ >= text_.size(); }
    char peek(std::size_t ahead = 0) const {
        return position_ + ahead < text_.size() ? text_[position_ + ahead] : '\0';
    }
    bool looking_at(std::string_view prefix) const {
        return text_.substr(position_).starts_with(prefix);
    }
    // Moves past one character, counting lines.
    void advance() {
        if (peek() == '\n') ++line_;
        ++position_;
    }

    void start_word(CommandInProgress& current) const {
        if (current.in_word) return;
        current.in_word = true;
        current.word_line = line_;
    }

    void end_word(CommandInProgress& current) {
        if (!current.in_word) return;
        current.in_word = false;
        auto word = std::exchange(current.word, {});
        switch (std::exchange(current.next, NextWord::argument)) {
            case NextWord::redirection_target:
                return;
            case NextWord::heredoc_delimiter:
                heredocs_.push_back({std::move(word), current.heredoc_strips_tabs});
                return;
            case NextWord::argument:
                break;
        }
        auto& words = current.command.words;
        if (words.empty() && (is_assignment(word) || is_command_prefix(word))) return;
        if (words.empty()) current.command.line = current.word_line;
        words.push_back(std::move(word));
    }

    void end_command(CommandInProgress& current) {
        end_word(current);
        if (!current.command.words.empty()) commands_.push_back(std::move(current.command));
        current = CommandInProgress{};
    }

    // Reads commands until the end, or until the `)` closing a $( ) when `inside_substitution`.
    void scan_list(bool inside_substitution) {
        CommandInProgress current;
        int open_parentheses = 0;
        while (!at_end()) {
            const char c = peek();
            if (c == '\\') {
                if (peek(1) == '\n') {
                    advance();
                    advance();
                    continue;
                }
                start_word(current);
                advance();
                if (!at_end()) {
                    current.word += peek();
                    advance();
                }
            } else if (c == '\'') {
                start_word(current);
                advance();
                while (!at_end() && peek() != '\'') {
                    current.word += peek();
                    advance();
                }
                advance();
            } else if (c == '"') {
                start_word(current);
                advance();
                read_double_quoted(current.word);
            } else if (c == '$') {
                start_word(current);
                read_dollar(current.word);
            } else if (c == '`') {
                start_word(current);
                read_backticks(current.word);
            } else if (c == '#' && !current.in_word) {
                while (!at_end() && peek() != '\n') advance();
            } else if (is_blank(c)) {
                end_word(current);
                advance();
            } else if (c == '\n') {
                end_command(current);
                advance();
                skip_heredoc_bodies();
            } else if (c == '(') {
                end_command(current);
                ++open_parentheses;
                advance();
            } else if (c == ')') {
                end_command(current);
                advance();
                if (open_parentheses == 0 && inside_substitution) return;
                open_parentheses = std::max(open_parentheses - 1, 0);
            } else if (c == '>' || c == '<' || (c == '&' && peek(1) == '>')) {
                read_redirection(current);
            } else if (c == ';' || c == '&' || c == '|') {
                end_command(current);
                const bool doubled = peek(1) == c || (c == '|' && peek(1) == '&');
                advance();
                if (doubled) advance();
            } else {
                start_word(current);
                current.word += c;
                advance();
            }
        }
        end_command(current);
    }

    // After the opening quote: up to and past the closing one.
    void read_double_quoted(std::string& word) {
        while (!at_end()) {
            const char c = peek();
            if (c == '"') {
                advance();
                return;
            }
            if (c == '\\' && std::string_view("$`\"\\\n").find(peek(1)) != std::string_view::npos) {
                advance();
                if (peek() != '\n') word += peek();
                advance();
            } else if (c == '$') {
                read_dollar(word);
            } else if (c == '`') {
                read_backticks(word);
            } else {
                word += c;
                advance();
            }
        }
    }

    // At a `$`: an expansion, kept in the word as its source text. The commands of a $( ) are
    // scanned as commands of their own.
    void read_dollar(std::string& word) {
        const auto start = position_;
        if (looking_at("$((")) {
            advance();
            skip_balanced('(', ')');
        } else if (looking_at("$(")) {
            advance();
            advance();
            scan_list(true);
        } else if (looking_at("${{")) {
            // A GitHub Actions expression, replaced before the shell runs.
            const auto end = text_.find("}}", position_);
            const auto stop = end == std::string_view::npos ? text_.size() : end + 2;
            while (position_ < stop) advance();
        } else if (looking_at("${")) {
            advance();
            skip_balanced('{', '}');
        } else {
            advance();
        }
        word += text_.substr(start, position_ - start);
    }

    // At `open`: past its matching `close`.
    void skip_balanced(char open, char close) {
        int depth = 0;
        while (!at_end()) {
            const char c = peek();
            advance();
            if (c == open)
                ++depth;
            else if (c == close && --depth == 0)
                return;
        }
    }

    // At a backquote: the old form of $( ), whose commands are scanned separately.
    void read_backticks(std::string& word) {
        const auto start = position_;
        const int first_line = line_;
        advance();
        while (!at_end() && peek() != '`') {
            if (peek() == '\\') advance();
            advance();
        }
        advance();
        const auto source = text_.substr(start, position_ - start);
        for (auto& command : ShellScanner(trim_backquotes(source), first_line).scan())
            commands_.push_back(std::move(command));
        word += source;
    }

    static std::string_view trim_backquotes(std::string_view source) {
        source.remove_prefix(1);
        if (source.ends_with('`')) source.remove_suffix(1);
        return source;
    }

    // At `<`, `>` or `&>`: the operator; its target word is then left out of the command.
    void read_redirection(CommandInProgress& current) {
        const bool word_is_descriptor =
            current.in_word && !current.word.empty() &&
            std::all_of(current.word.begin(), current.word.end(),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        if (word_is_descriptor) {
            current.in_word = false;
            current.word.clear();
        } else {
            end_word(current);
        }
        current.next = NextWord::redirection_target;
        std::size_t length = 1;
        if (looking_at("<<<") || looking_at("&>>")) {
            length = 3;
        } else if (looking_at("<<-")) {
            length = 3;
            current.next = NextWord::heredoc_delimiter;
            current.heredoc_strips_tabs = true;
        } else if (looking_at("<<")) {
            length = 2;
            current.next = NextWord::heredoc_delimiter;
            current.heredoc_strips_tabs = false;
        } else {
            static constexpr std::array two_characters{">>", ">&", ">|", "<&", "<>", "&>"};
            for (std::string_view operator_text : two_characters)
                if (looking_at(operator_text)) length = 2;
        }
        for (std::size_t i = 0; i < length; ++i) advance();
    }

    // After a newline: the bodies of the here-documents opened on the line before.
    void skip_heredoc_bodies() {
        for (const auto& heredoc : std::exchange(heredocs_, {})) {
            while (!at_end()) {
                const auto end = std::min(text_.find('\n', position_), text_.size());
                auto body_line = text_.substr(position_, end - position_);
                while (heredoc.strips_tabs && body_line.starts_with('\t'))
                    body_line.remove_prefix(1);
                const bool last = body_line == heredoc.delimiter;
                while (position_ < end) advance();
                if (!at_end()) advance();
                if (last) break;
            }
        }
    }

    std::string_view text_;
    std::size_t position_ = 0;
    int line_;
    std::vector<ShellCommand> commands_;
    std::vector<PendingHeredoc> heredocs_;
};

// The blocks of `markdown` fenced with one of `languages`, in order; other fences are skipped whole.
std::vector<FencedBlock> fenced_blocks(std::string_view markdown,
                                       std::initializer_list<std::string_view> languages) {
    std::vector<FencedBlock> blocks;
    const auto lines = split_lines(markdown);
    for (std::size_t index = 0; index < lines.size(); ++index) {
        const auto opening = read_fence(lines[index]);
        if (!opening) continue;
        const auto language = fence_language(*opening);
        const bool wanted =
            std::find(languages.begin(), languages.end(), language) != languages.end();
        FencedBlock block{static_cast<int>(index) + 1, {}};
        for (++index; index < lines.size() && !closes(*opening, lines[index]); ++index) {
            auto content = lines[index];
            for (std::size_t removed = 0; removed < opening->indent && content.starts_with(' ');
                 ++removed)
                content.remove_prefix(1);
            block.text += content;
            block.text += '\n';
        }
        if (wanted) blocks.push_back(std::move(block));
    }
    return blocks;
}

// The position of the program's name in a command's words, past prefixes such as `env A=1`.
std::size_t program_position(const std::vector<std::string>& words) {
    std::size_t position = 0;
    while (position < words.size() &&
           (is_command_prefix(words[position]) || is_assignment(words[position])))
        ++position;
    return position;
}

bool is_benchwatch(std::string_view program) {
    return program == "benchwatch" || program.ends_with("/benchwatch");
}

std::string command_name(const std::vector<std::string>& chain) {
    return chain.empty() ? "benchwatch" : fmt::format("benchwatch {}", fmt::join(chain, " "));
}

// The option a command-line word names: "--format" for "--format=json", "-j" for "-j4"; ""
// when it names none (an argument, "-", a negative number, or "--" itself).
std::string option_name(std::string_view word) {
    if (word.starts_with("--"))
        return word.size() == 2 ? "" : std::string(word.substr(0, word.find('=')));
    if (word.size() >= 2 && word[0] == '-' && std::isalpha(static_cast<unsigned char>(word[1])))
        return std::string(word.substr(0, 2));
    return "";
}

// The ${{ }} expressions that paste what a pull request's author controls into a script.
std::vector<std::pair<std::size_t, std::string>> untrusted_expressions(std::string_view script) {
    static constexpr std::array untrusted{"github.event.", "github.event[", "github.head_ref"};
    std::vector<std::pair<std::size_t, std::string>> found;
    for (auto start = script.find("${{"); start != std::string_view::npos;
         start = script.find("${{", start + 3)) {
        const auto end = script.find("}}", start);
        const auto expression =
            script.substr(start, end == std::string_view::npos ? end : end + 2 - start);
        for (std::string_view field : untrusted)
            if (expression.find(field) != std::string_view::npos) {
                found.emplace_back(start, std::string(expression));
                break;
            }
    }
    return found;
}

// What a cmake command does, as far as the build rules need.
struct CmakeCommand {
    enum class Kind { other, configure, build };
    Kind kind = Kind::other;
    std::string folder;                     // -B of a configure, the folder of --build; or ""
    std::optional<std::string> build_type;  // the CMAKE_BUILD_TYPE a configure sets
};

bool is_cmake(std::string_view program) {
    return program == "cmake" || program.ends_with("/cmake");
}

// A folder as the build rules compare them: "./build/" is "build".
std::string normal_folder(std::string_view path) {
    while (path.starts_with("./")) path.remove_prefix(2);
    while (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
    return std::string(path);
}

// `words` (words[0] the program) read as a cmake command; nullopt when the program is not cmake.
std::optional<CmakeCommand> read_cmake(const std::vector<std::string>& words) {
    if (words.empty() || !is_cmake(words[0])) return std::nullopt;
    CmakeCommand cmake;
    if (words.size() < 2) return cmake;
    if (words[1] == "--build") {
        cmake.kind = CmakeCommand::Kind::build;
        if (words.size() > 2) cmake.folder = normal_folder(words[2]);
        return cmake;
    }
    static constexpr std::array other_modes{"--install", "--open", "-E",     "-P",
                                            "--workflow", "--help", "--version"};
    if (std::find(other_modes.begin(), other_modes.end(), words[1]) != other_modes.end())
        return cmake;
    cmake.kind = CmakeCommand::Kind::configure;
    for (std::size_t index = 1; index < words.size(); ++index) {
        const std::string_view word = words[index];
        std::string_view definition;
        if (word == "-B" && index + 1 < words.size()) {
            cmake.folder = normal_folder(words[++index]);
        } else if (word.starts_with("-B") && word.size() > 2) {
            cmake.folder = normal_folder(word.substr(2));
        } else if (word == "-D" && index + 1 < words.size()) {
            definition = words[++index];
        } else if (word.starts_with("-D")) {
            definition = word.substr(2);
        }
        const auto equals = definition.find('=');
        if (equals == std::string_view::npos) continue;
        // NAME=VALUE or NAME:TYPE=VALUE
        const auto name = definition.substr(0, std::min(definition.find(':'), equals));
        if (name == "CMAKE_BUILD_TYPE") cmake.build_type = std::string(definition.substr(equals + 1));
    }
    return cmake;
}

bool is_optimised(const std::optional<std::string>& build_type) {
    if (!build_type) return false;
    auto lower = *build_type;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower == "release" || lower == "relwithdebinfo";
}

// The problem of a configure that does not ask for an optimised build; nullopt for any other
// command. `words` starts at the program.
std::optional<std::string> build_type_problem(const std::vector<std::string>& words) {
    const auto cmake = read_cmake(words);
    if (!cmake || cmake->kind != CmakeCommand::Kind::configure || is_optimised(cmake->build_type))
        return std::nullopt;
    const auto quoted = fmt::format("`{}`", describe(words));
    if (!cmake->build_type)
        return fmt::format("{}: configures without CMAKE_BUILD_TYPE, which compiles without "
                           "optimisation when the project sets no default; add "
                           "-DCMAKE_BUILD_TYPE=Release (or RelWithDebInfo)",
                           quoted);
    return fmt::format("{}: CMAKE_BUILD_TYPE={} is not an optimised build; benchmark a Release "
                       "(or RelWithDebInfo) build",
                       quoted, *cmake->build_type);
}

// The commands of one CI job in the order it runs them, for the build rules.
struct JobCommands {
    std::string name;
    std::vector<ShellCommand> commands;
    // From which command on the submodules are checked out; nullopt when never.
    std::optional<std::size_t> submodules_from;
    std::string submodules_fix;  // what to add, said the CI's way
};

// The innermost of `folders` that `piece` names a path in ("build/x", "./build/x"); "" if none.
std::string folder_named(std::string_view piece, const std::set<std::string>& folders) {
    const auto path = normal_folder(piece);
    std::string found;
    for (const auto& folder : folders)
        if (path.size() > folder.size() + 1 && path.starts_with(folder) &&
            path[folder.size()] == '/' && folder.size() > found.size())
            found = folder;
    return found;
}

// The parts of a word the build rules read as paths: the word and its blank-separated parts,
// each also after its first "=".
std::vector<std::string_view> path_pieces(std::string_view word) {
    std::vector<std::string_view> pieces;
    std::size_t start = 0;
    while (start < word.size()) {
        const auto end = std::min(word.find_first_of(" \t\n", start), word.size());
        if (end > start) {
            const auto piece = word.substr(start, end - start);
            pieces.push_back(piece);
            if (const auto equals = piece.find('='); equals != std::string_view::npos)
                pieces.push_back(piece.substr(equals + 1));
        }
        start = end + 1;
    }
    return pieces;
}

// The problems of one job under the build rules "built first" and "submodules" (the header
// says what they are), each "LINE: what is wrong".
std::vector<std::pair<int, std::string>> build_order_problems(const JobCommands& job) {
    std::vector<std::pair<int, std::string>> problems;
    std::set<std::string> folders{"build"};
    std::set<std::string> optimised;  // configured with an optimised build type
    std::set<std::string> built;      // built since that configure
    bool submodules_reported = false;
    for (std::size_t index = 0; index < job.commands.size(); ++index) {
        const auto& command = job.commands[index];
        const auto position = program_position(command.words);
        if (position == command.words.size()) continue;
        const std::vector<std::string> words(
            command.words.begin() + static_cast<std::ptrdiff_t>(position), command.words.end());
        if (const auto cmake = read_cmake(words)) {
            if (cmake->kind == CmakeCommand::Kind::other) continue;
            const bool has_submodules = job.submodules_from && *job.submodules_from <= index;
            if (!has_submodules && !submodules_reported) {
                problems.emplace_back(command.line,
                                      fmt::format("job \"{}\" builds without checking out its "
                                                  "submodules; {}",
                                                  job.name, job.submodules_fix));
                submodules_reported = true;
            }
            if (cmake->folder.empty()) continue;
            folders.insert(cmake->folder);
            if (cmake->kind == CmakeCommand::Kind::configure) {
                built.erase(cmake->folder);
                if (is_optimised(cmake->build_type))
                    optimised.insert(cmake->folder);
                else
                    optimised.erase(cmake->folder);
            } else if (optimised.contains(cmake->folder)) {
                built.insert(cmake->folder);
            }
            continue;
        }
        for (const auto& word : words) {
            std::string folder;
            std::string_view path;
            for (const auto piece : path_pieces(word)) {
                folder = folder_named(piece, folders);
                path = piece;
                if (!folder.empty()) break;
            }
            if (folder.empty() || built.contains(folder)) continue;
            problems.emplace_back(
                command.line,
                fmt::format("job \"{}\" uses {} before building it: no earlier command of the job "
                            "configures \"{}\" with -DCMAKE_BUILD_TYPE=Release (or "
                            "RelWithDebInfo) and then runs `cmake --build {}`",
                            job.name, path, folder, folder));
            break;
        }
    }
    return problems;
}

// The `build` key of a ```toml block's [measure] table (or `measure.build` at its top).
struct MeasureBuild {
    int line = 0;                      // of the document
    std::optional<std::string> value;  // nullopt when it is not a one-line string
};

// A one-line TOML string at the start of `text`: "basic" with escapes, or 'literal'.
std::optional<std::string> toml_string(std::string_view text) {
    if (text.empty() || text.starts_with(R"(""")") || text.starts_with("'''")) return std::nullopt;
    if (text.front() == '\'') {
        const auto end = text.find('\'', 1);
        if (end == std::string_view::npos) return std::nullopt;
        return std::string(text.substr(1, end - 1));
    }
    if (text.front() != '"') return std::nullopt;
    std::string value;
    for (std::size_t index = 1; index < text.size(); ++index) {
        const char c = text[index];
        if (c == '"') return value;
        if (c != '\\' || index + 1 == text.size()) {
            value += c;
            continue;
        }
        const char escaped = text[++index];
        value += escaped == 'n' ? '\n' : escaped == 't' ? '\t' : escaped;
    }
    return std::nullopt;
}

std::vector<MeasureBuild> measure_builds(const FencedBlock& block) {
    std::vector<MeasureBuild> builds;
    std::string table;
    int line = block.fence_line;
    for (const auto text : split_lines(block.text)) {
        ++line;
        const auto content = trim(text);
        if (content.starts_with('[')) {
            const auto name = content.substr(0, content.find(']'));
            table = std::string(trim(name.substr(name.find_first_not_of('['))));
            continue;
        }
        const auto equals = content.find('=');
        if (content.starts_with('#') || equals == std::string_view::npos) continue;
        const auto key = trim(content.substr(0, equals));
        if ((table == "measure" && key == "build") || (table.empty() && key == "measure.build"))
            builds.push_back({line, toml_string(trim(content.substr(equals + 1)))});
    }
    return builds;
}

bool is_benchwatch_action(std::string_view action) {
    return action.starts_with("OWNER/benchwatch@") || action == "./";
}

// Checks the YAML of one block of one document, adding to `result`.
class BlockChecker {
  public:
    BlockChecker(const FencedBlock& block, const std::string& file, const HelpLookup& help,
                 DocumentCheck& result, const std::set<std::string>* action_inputs = nullptr)
        : block_(block), file_(file), help_(help), result_(result), action_inputs_(action_inputs) {}

    // Checks the block as benchwatch's composite action (action.yml) and returns its inputs.
    std::set<std::string> check_action() {
        YAML::Node root;
        try {
            root = YAML::Load(block_.text);
        } catch (const YAML::ParserException& error) {
            report(block_.fence_line + 1 + error.mark.line, "invalid YAML: " + error.msg);
            return {};
        }
        std::set<std::string> inputs;
        if (!root.IsMap() || !root["name"] || !root["description"] || !root["runs"]) {
            report(1, "an action needs \"name\", \"description\" and \"runs\"");
            return inputs;
        }
        if (root["inputs"] && root["inputs"].IsMap()) {
            for (const auto& entry : root["inputs"]) {
                inputs.insert(entry.first.as<std::string>());
                if (!entry.second.IsMap() || !entry.second["description"])
                    report(line_of(entry.first), fmt::format("input \"{}\" has no description",
                                                             entry.first.as<std::string>()));
            }
        }
        const auto runs = root["runs"];
        if (!runs["using"] || runs["using"].as<std::string>() != "composite" || !runs["steps"] ||
            !runs["steps"].IsSequence()) {
            report(line_of(runs), "\"runs\" must be a composite action with a \"steps\" list");
            return inputs;
        }
        int number = 0;
        for (const auto& step : runs["steps"]) {
            ++number;
            if (step["run"] && !step["shell"])
                report(line_of(step), fmt::format("step {} runs a script without \"shell\", which "
                                                  "a composite action needs",
                                                  number));
            if (step["run"] && step["run"].IsScalar())
                check_shell(step["run"].as<std::string>(), first_text_line(step["run"]));
        }
        // Every ${{ inputs.NAME }} the action uses must be one it declares.
        static const std::regex reference(R"(inputs\.([A-Za-z0-9_-]+))");
        for (auto it = std::sregex_iterator(block_.text.begin(), block_.text.end(), reference);
             it != std::sregex_iterator(); ++it) {
            const auto name = (*it)[1].str();
            if (!inputs.contains(name)) {
                const auto line = 1 + static_cast<int>(std::count(
                                          block_.text.begin(),
                                          block_.text.begin() + it->position(0), '\n'));
                report(line, fmt::format("uses inputs.{}, which the action does not declare", name));
            }
        }
        return inputs;
    }

    void check() {
        YAML::Node root;
        try {
            root = YAML::Load(block_.text);
        } catch (const YAML::ParserException& error) {
            report(block_.fence_line + 1 + error.mark.line,
                   fmt::format("invalid YAML in the block opened on line {}: {}", block_.fence_line,
                               error.msg));
            return;
        }
        if (is_github_workflow(root)) {
            ++result_.github_workflows;
            check_github_workflow(root);
        } else if (is_buildkite_pipeline(root)) {
            ++result_.buildkite_pipelines;
            check_buildkite_pipeline(root);
        } else if (is_gitlab_file(root)) {
            ++result_.gitlab_files;
            check_gitlab_file(root);
        } else {
            report(block_.fence_line,
                   "the ```yaml block is neither a GitHub Actions workflow (top-level \"on\" and "
                   "\"jobs\"), a GitLab CI file (jobs with \"script\") nor a Buildkite pipeline "
                   "(top-level \"steps\" list); show a complete file that can be copied as it is");
            check_scripts_anywhere(root);
        }
    }

  private:
    static bool is_github_workflow(const YAML::Node& root) {
        return root.IsMap() && root["on"] && root["jobs"];
    }

    static bool is_buildkite_pipeline(const YAML::Node& root) {
        return root.IsMap() && root["steps"] && root["steps"].IsSequence() && !root["jobs"];
    }

    // The "key" of every step of a Buildkite pipeline, groups' steps included.
    static void buildkite_keys(const YAML::Node& steps, std::set<std::string>& keys) {
        for (const auto& step : steps) {
            if (!step.IsMap()) continue;
            if (step["key"] && step["key"].IsScalar()) keys.insert(step["key"].as<std::string>());
            if (step["group"] && step["steps"] && step["steps"].IsSequence())
                buildkite_keys(step["steps"], keys);
        }
    }

    void check_buildkite_pipeline(const YAML::Node& root) {
        std::set<std::string> keys;
        buildkite_keys(root["steps"], keys);
        check_buildkite_steps(root["steps"], keys);
    }

    void check_buildkite_steps(const YAML::Node& steps, const std::set<std::string>& keys) {
        static constexpr std::array other_kinds{"wait", "block", "input", "trigger"};
        int number = 0;
        for (const auto& step : steps) {
            ++number;
            if (step.IsScalar()) {
                const auto word = step.as<std::string>();
                if (word != "wait" && word != "block")
                    report(line_of(step), fmt::format("step {} \"{}\" is neither \"wait\" nor a "
                                                      "step mapping",
                                                      number, word));
                continue;
            }
            if (!step.IsMap()) {
                report(line_of(step), fmt::format("step {} is not a mapping", number));
                continue;
            }
            const bool command = step["command"] || step["commands"];
            const bool other = std::any_of(other_kinds.begin(), other_kinds.end(),
                                           [&step](const char* kind) { return bool(step[kind]); });
            if (step["group"]) {
                if (!step["steps"] || !step["steps"].IsSequence())
                    report(line_of(step),
                           fmt::format("group step {} has no \"steps\" list", number));
                else
                    check_buildkite_steps(step["steps"], keys);
            } else if (command == other) {
                report(line_of(step),
                       fmt::format("step {} must be exactly one of a command step (\"command\" or "
                                   "\"commands\"), wait, block, input, trigger or group",
                                   number));
            }
            if (step["if"] && !step["if"].IsScalar())
                report(line_of(step["if"]),
                       fmt::format("\"if\" of step {} must be a conditional expression string",
                                   number));
            if (const auto agents = step["agents"]; agents) {
                const bool tags = agents.IsMap() &&
                                  std::all_of(agents.begin(), agents.end(), [](const auto& entry) {
                                      return entry.second.IsScalar();
                                  });
                if (!tags)
                    report(line_of(agents),
                           fmt::format("\"agents\" of step {} must map agent tags to values "
                                       "(queue: NAME)",
                                       number));
            }
            if (const auto depends = step["depends_on"]; depends) {
                std::vector<YAML::Node> named;
                if (depends.IsSequence())
                    for (const auto& item : depends)
                        named.push_back(item.IsMap() && item["step"] ? item["step"] : item);
                else
                    named.push_back(depends);
                for (const auto& name : named)
                    if (!name.IsScalar() || !keys.contains(name.as<std::string>()))
                        report(line_of(name),
                               fmt::format("step {} depends on \"{}\", which no step has as its "
                                           "\"key\"",
                                           number, name.IsScalar() ? name.as<std::string>() : "?"));
            }
            if (!command) continue;
            JobCommands job{fmt::format("step {}", number), {}, std::size_t{0}, ""};
            for (const char* key : {"command", "commands"}) {
                const auto script = step[key];
                if (!script) continue;
                std::vector<YAML::Node> lines;
                if (script.IsSequence())
                    for (const auto& item : script) lines.push_back(item);
                else
                    lines.push_back(script);
                for (const auto& line : lines) {
                    if (!line.IsScalar()) {
                        report(line_of(line),
                               fmt::format("\"{}\" of step {} must be a string or a list of "
                                           "strings",
                                           key, number));
                        continue;
                    }
                    const auto text = line.as<std::string>();
                    check_shell(text, first_text_line(line));
                    check_upload_interpolation(text, first_text_line(line));
                    for (auto& found : shell_commands(text, first_text_line(line)))
                        job.commands.push_back(std::move(found));
                }
            }
            check_builds(job);
        }
    }

    // A BUILDKITE_ variable written with one "$" in a pipeline's command, which Buildkite
    // replaces with its value when the pipeline is uploaded, before the shell quotes anything.
    void check_upload_interpolation(std::string_view script, int first_line) {
        for (std::size_t at = script.find('$'); at != std::string_view::npos;
             at = script.find('$', at)) {
            std::size_t dollars = 0;
            while (at + dollars < script.size() && script[at + dollars] == '$') ++dollars;
            auto name = script.substr(at + dollars);
            if (name.starts_with('{')) name.remove_prefix(1);
            if (dollars % 2 == 1 && name.starts_with("BUILDKITE_")) {
                const auto end = name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
                const auto line =
                    first_line +
                    static_cast<int>(std::count(
                        script.begin(), script.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
                report(line, fmt::format("${} is pasted into the command when the pipeline is "
                                         "uploaded, before the shell quotes it (script injection); "
                                         "write $${} so that the shell reads it when the step runs",
                                         name.substr(0, end), name.substr(0, end)));
            }
            at += dollars;
        }
    }

    static bool is_gitlab_job(const YAML::Node& value) { return value.IsMap() && value["script"]; }

    static bool is_gitlab_file(const YAML::Node& root) {
        if (!root.IsMap()) return false;
        return std::any_of(root.begin(), root.end(),
                           [](const auto& entry) { return is_gitlab_job(entry.second); });
    }

    // The document line of a node's first character.
    int line_of(const YAML::Node& node) const { return block_.fence_line + 1 + node.Mark().line; }

    // The document line of a scalar's first line of text: the line after a `|` or `>` header.
    int first_text_line(const YAML::Node& scalar) const {
        const auto mark = scalar.Mark();
        const auto position = static_cast<std::size_t>(mark.pos);
        const bool block_scalar = position < block_.text.size() &&
                                  (block_.text[position] == '|' || block_.text[position] == '>');
        return line_of(scalar) + (block_scalar ? 1 : 0);
    }

    void report(int line, const std::string& message) {
        result_.problems.push_back(fmt::format("{}:{}: {}", file_, line, message));
    }

    static std::set<std::string> triggers(const YAML::Node& on) {
        std::set<std::string> names;
        if (on.IsScalar()) {
            names.insert(on.as<std::string>());
        } else if (on.IsSequence()) {
            for (const auto& item : on) names.insert(item.as<std::string>());
        } else if (on.IsMap()) {
            for (const auto& entry : on) names.insert(entry.first.as<std::string>());
        }
        return names;
    }

    void check_github_workflow(const YAML::Node& root) {
        const auto names = triggers(root["on"]);
        std::string untrusted_trigger;
        for (const char* trigger : {"pull_request_target", "workflow_run", "repository_dispatch"})
            if (names.contains(trigger)) untrusted_trigger = trigger;
        const auto jobs = root["jobs"];
        if (!jobs.IsMap() || jobs.size() == 0) {
            report(line_of(jobs), "\"jobs\" must map job ids to jobs");
            return;
        }
        for (const auto& entry : jobs) {
            const auto id = entry.first.as<std::string>();
            const auto& job = entry.second;
            if (!job.IsMap()) {
                report(line_of(entry.first), fmt::format("job \"{}\" is not a mapping", id));
            } else if (job["uses"]) {
                continue;  // a call of a reusable workflow: its steps are elsewhere
            } else if (!job["runs-on"]) {
                report(line_of(entry.first),
                       fmt::format("job \"{}\" has neither \"runs-on\" nor \"uses\"", id));
            } else if (!job["steps"] || !job["steps"].IsSequence() || job["steps"].size() == 0) {
                report(line_of(entry.first), fmt::format("job \"{}\" has no \"steps\" list", id));
            } else {
                check_github_steps(id, job["steps"], untrusted_trigger);
                check_builds(github_job_commands(id, job["steps"]));
            }
        }
    }

    void check_github_steps(const std::string& job_id, const YAML::Node& steps,
                            const std::string& untrusted_trigger) {
        int number = 0;
        for (const auto& step : steps) {
            ++number;
            const bool runs = step.IsMap() && step["run"];
            const bool uses = step.IsMap() && step["uses"];
            if (runs == uses) {
                report(line_of(step),
                       fmt::format("step {} of job \"{}\" must have exactly one of \"run\" and "
                                   "\"uses\"",
                                   number, job_id));
                continue;
            }
            if (uses) check_action_use(step, job_id, number);
            if (uses && is_benchwatch_action(step["uses"].as<std::string>()) && step["with"] &&
                step["with"]["run"] && step["with"]["run"].IsScalar())
                check_configures(step["with"]["run"].as<std::string>(),
                                 first_text_line(step["with"]["run"]));
            if (!runs) continue;
            const auto run = step["run"];
            if (!run.IsScalar()) {
                report(line_of(run), fmt::format("\"run\" of step {} of job \"{}\" is not a script",
                                                 number, job_id));
                continue;
            }
            const auto script = run.as<std::string>();
            check_shell(script, first_text_line(run));
            if (untrusted_trigger.empty()) continue;
            for (const auto& [offset, expression] : untrusted_expressions(script)) {
                const auto line = first_text_line(run) +
                                  static_cast<int>(std::count(
                                      script.begin(),
                                      script.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
                report(line, fmt::format("run: pastes {} into the script of a workflow triggered "
                                         "by {}, where a pull request's author controls it "
                                         "(script injection); pass it through env: and use the "
                                         "variable",
                                         expression, untrusted_trigger));
            }
        }
    }

    // The commands of every "run" or "script" value in a block of unknown shape, so that its
    // benchwatch commands are checked and counted all the same.
    void check_scripts_anywhere(const YAML::Node& node) {
        if (node.IsSequence()) {
            for (const auto& item : node) check_scripts_anywhere(item);
            return;
        }
        if (!node.IsMap()) return;
        for (const auto& entry : node) {
            const auto key = entry.first.as<std::string>();
            if (key == "run" && entry.second.IsScalar())
                check_shell(entry.second.as<std::string>(), first_text_line(entry.second));
            else if (key.ends_with("script"))
                check_gitlab_script(entry.second);
            else
                check_scripts_anywhere(entry.second);
        }
    }

    void check_gitlab_file(const YAML::Node& root) {
        static constexpr std::array script_keys{"before_script", "script", "after_script"};
        for (const auto& entry : root) {
            const auto name = entry.first.as<std::string>();
            const auto& value = entry.second;
            if (std::find(script_keys.begin(), script_keys.end(), name) != script_keys.end()) {
                check_gitlab_script(value);  // the global form, before `default:` existed
                continue;
            }
            if (!value.IsMap()) continue;
            for (const char* key : script_keys)
                if (value[key]) check_gitlab_script(value[key]);
        }
        for (const auto& entry : root) {
            const auto name = entry.first.as<std::string>();
            if (name.starts_with('.') || !entry.second.IsMap()) continue;
            if (auto job = gitlab_job_commands(root, name, entry.second)) check_builds(*job);
        }
    }

    // GitLab's `extends:` chain is at most 11 deep; deeper (or circular) chains are not followed.
    static constexpr int gitlab_extends_limit = 11;

    // The templates `job` extends, the one whose keys win last.
    static std::vector<YAML::Node> gitlab_templates(const YAML::Node& root, const YAML::Node& job) {
        std::vector<YAML::Node> templates;
        const auto extends = job["extends"];
        std::vector<std::string> names;
        if (extends && extends.IsScalar()) names.push_back(extends.as<std::string>());
        if (extends && extends.IsSequence())
            for (const auto& name : extends)
                if (name.IsScalar()) names.push_back(name.as<std::string>());
        for (auto name = names.rbegin(); name != names.rend(); ++name)
            if (const auto found = root[*name]; found && found.IsMap()) templates.push_back(found);
        return templates;
    }

    // A job's `key`: its own, else that of the templates it extends; nullopt when none has it.
    static std::optional<YAML::Node> gitlab_key(const YAML::Node& root, const YAML::Node& job,
                                                const char* key, int depth = 0) {
        if (job[key]) return job[key];
        if (depth == gitlab_extends_limit) return std::nullopt;
        for (const auto& parent : gitlab_templates(root, job))
            if (auto found = gitlab_key(root, parent, key, depth + 1)) return found;
        return std::nullopt;
    }

    // A job's variable `name`: its own, its templates', else the file's.
    static std::optional<std::string> gitlab_variable(const YAML::Node& root, const YAML::Node& job,
                                                      const std::string& name, int depth = 0) {
        const auto value_of = [&name](const YAML::Node& variables) -> std::optional<std::string> {
            if (!variables || !variables.IsMap() || !variables[name]) return std::nullopt;
            const auto value = variables[name];
            if (value.IsScalar()) return value.as<std::string>();
            if (value.IsMap() && value["value"] && value["value"].IsScalar())
                return value["value"].as<std::string>();
            return std::nullopt;
        };
        if (auto own = value_of(job["variables"])) return own;
        if (depth < gitlab_extends_limit)
            for (const auto& parent : gitlab_templates(root, job))
                if (auto found = gitlab_variable(root, parent, name, depth + 1)) return found;
        if (depth > 0) return std::nullopt;
        return value_of(root["variables"]);
    }

    // The commands of GitLab job `name`, before_script, script and after_script (from the job,
    // its templates, `default:` or the file's global keys); nullopt when it has no script.
    std::optional<JobCommands> gitlab_job_commands(const YAML::Node& root, const std::string& name,
                                                   const YAML::Node& job) const {
        const auto script = gitlab_key(root, job, "script");
        if (!script) return std::nullopt;
        const auto inherited = [&](const char* key) -> std::optional<YAML::Node> {
            if (auto found = gitlab_key(root, job, key)) return found;
            if (const auto defaults = root["default"]; defaults && defaults.IsMap() && defaults[key])
                return defaults[key];
            if (root[key]) return root[key];
            return std::nullopt;
        };
        JobCommands commands{name, {}, std::nullopt,
                             "set GIT_SUBMODULE_STRATEGY: recursive in its variables or the "
                             "file's"};
        if (gitlab_variable(root, job, "GIT_SUBMODULE_STRATEGY") == "recursive")
            commands.submodules_from = 0;
        for (const auto& part : {inherited("before_script"), script, inherited("after_script")})
            if (part) add_gitlab_commands(*part, commands.commands);
        return commands;
    }

    // The commands of a GitLab script (a string or nested lists of them), appended in order.
    void add_gitlab_commands(const YAML::Node& script, std::vector<ShellCommand>& commands) const {
        if (script.IsScalar()) {
            for (auto& command : shell_commands(script.as<std::string>(), first_text_line(script)))
                commands.push_back(std::move(command));
        } else if (script.IsSequence()) {
            for (const auto& item : script) add_gitlab_commands(item, commands);
        }
    }

    // A GitLab script: one string or a list of them, lists nested by YAML anchors flattened.
    void check_gitlab_script(const YAML::Node& script) {
        if (script.IsScalar()) {
            check_shell(script.as<std::string>(), first_text_line(script));
        } else if (script.IsSequence()) {
            for (const auto& item : script) check_gitlab_script(item);
        } else {
            report(line_of(script), "a GitLab script must be a string or a list of strings");
        }
    }

    // A step that uses benchwatch's action ("OWNER/benchwatch@REF" or "./" in its own
    // repository) may pass only the inputs action.yml declares.
    void check_action_use(const YAML::Node& step, const std::string& job_id, int number) {
        const auto action = step["uses"].as<std::string>();
        if (action_inputs_ == nullptr || !is_benchwatch_action(action)) return;
        ++result_.action_steps;
        if (!step["with"]) return;
        for (const auto& entry : step["with"]) {
            const auto name = entry.first.as<std::string>();
            if (!action_inputs_->contains(name))
                report(line_of(entry.first),
                       fmt::format("step {} of job \"{}\" passes \"{}\", which action.yml does "
                                   "not declare as an input",
                                   number, job_id, name));
        }
    }

    // The commands of a GitHub job in step order: `run:` scripts and the `run` input of
    // benchwatch's action, with the first command after an actions/checkout step that checks out
    // submodules recursively.
    JobCommands github_job_commands(const std::string& job_id, const YAML::Node& steps) const {
        JobCommands job{job_id, {}, std::nullopt,
                        "give the actions/checkout step before it \"with: submodules: recursive\""};
        for (const auto& step : steps) {
            if (!step.IsMap()) continue;
            YAML::Node script;
            if (step["run"]) {
                script = step["run"];
            } else if (step["uses"] && step["uses"].IsScalar()) {
                const auto action = step["uses"].as<std::string>();
                const auto with = step["with"];
                if (action.starts_with("actions/checkout@") && with && with["submodules"] &&
                    with["submodules"].IsScalar() &&
                    with["submodules"].as<std::string>() == "recursive" && !job.submodules_from)
                    job.submodules_from = job.commands.size();
                if (is_benchwatch_action(action) && with && with["run"]) script = with["run"];
            }
            if (!script || !script.IsScalar()) continue;
            for (auto& command : shell_commands(script.as<std::string>(), first_text_line(script)))
                job.commands.push_back(std::move(command));
        }
        return job;
    }

    void check_builds(const JobCommands& job) {
        for (const auto& [line, problem] : build_order_problems(job)) report(line, problem);
    }

    // Every cmake configure of `script` must ask for an optimised build.
    void check_configures(std::string_view script, int first_line) {
        for (const auto& command : shell_commands(script, first_line)) {
            const auto position = program_position(command.words);
            const std::vector<std::string> words(
                command.words.begin() + static_cast<std::ptrdiff_t>(position), command.words.end());
            if (const auto problem = build_type_problem(words)) report(command.line, *problem);
        }
    }

    void check_shell(std::string_view script, int first_line) {
        check_configures(script, first_line);
        for (const auto& command : shell_commands(script, first_line)) {
            const auto position = program_position(command.words);
            if (position == command.words.size() || !is_benchwatch(command.words[position]))
                continue;
            ++result_.benchwatch_commands;
            const std::vector<std::string> words(
                command.words.begin() + static_cast<std::ptrdiff_t>(position), command.words.end());
            for (const auto& problem : check_benchwatch_command(words, help_))
                report(command.line, problem);
        }
    }

    const FencedBlock& block_;
    const std::string& file_;
    const HelpLookup& help_;
    DocumentCheck& result_;
    const std::set<std::string>* action_inputs_;
};

}  // namespace

std::vector<FencedBlock> yaml_blocks(std::string_view markdown) {
    return fenced_blocks(markdown, {"yaml", "yml"});
}

std::vector<FencedBlock> toml_blocks(std::string_view markdown) {
    return fenced_blocks(markdown, {"toml"});
}

std::vector<ShellCommand> shell_commands(std::string_view script, int first_line) {
    return ShellScanner(script, first_line).scan();
}

HelpPage parse_help(std::string_view help_text) {
    HelpPage page;
    std::string_view section;
    for (const auto line : split_lines(help_text)) {
        if (line.empty()) continue;
        if (!is_blank(line.front())) {
            if (line.ends_with(':')) section = line;
            page.takes_positionals = page.takes_positionals || line == "Positionals:";
            continue;
        }
        const auto entry = trim(line);
        const auto first_field = entry.substr(0, std::min(entry.find(' '), entry.size()));
        if (section == "Subcommands:") {
            page.subcommands.emplace(first_field);
        } else if (first_field.starts_with('-')) {
            // "-h,--help" or "--format TEXT:{markdown,json}", under "Options:" or the name of
            // an option group: names before the first space.
            std::string_view names = first_field;
            while (!names.empty()) {
                const auto comma = std::min(names.find(','), names.size());
                if (names.starts_with('-')) page.options.emplace(names.substr(0, comma));
                names.remove_prefix(std::min(comma + 1, names.size()));
            }
        }
    }
    return page;
}

HelpPage BinaryHelp::operator()(const std::vector<std::string>& chain) {
    if (const auto found = pages_.find(chain); found != pages_.end()) return found->second;
    auto argv = chain;
    argv.insert(argv.begin(), binary_.string());
    argv.emplace_back("--help");
    ++runs_;
    const auto output = run_checked(argv, std::filesystem::current_path(), without_ci_variables());
    return pages_.emplace(chain, parse_help(output.out)).first->second;
}

std::vector<std::string> check_benchwatch_command(const std::vector<std::string>& words,
                                                  const HelpLookup& help) {
    const auto quoted = fmt::format("`{}`", describe(words));
    std::vector<std::string> chain;
    auto page = help(chain);
    std::size_t position = 1;
    for (; position < words.size(); ++position) {
        const auto& word = words[position];
        if (word.starts_with('-')) break;
        if (page.subcommands.contains(word)) {
            chain.push_back(word);
            page = help(chain);
            continue;
        }
        if (!page.subcommands.empty() && !page.takes_positionals)
            return {fmt::format("{}: unknown subcommand \"{}\" of `{}` (its help lists: {})",
                                quoted, word, command_name(chain),
                                fmt::join(page.subcommands, ", "))};
        break;
    }
    std::vector<std::string> problems;
    for (; position < words.size() && words[position] != "--"; ++position) {
        const auto name = option_name(words[position]);
        if (!name.empty() && !page.options.contains(name))
            problems.push_back(
                fmt::format("{}: unknown option {} of `{}`", quoted, name, command_name(chain)));
    }
    return problems;
}

DocumentCheck check_document(std::string_view markdown, const std::string& file,
                             const HelpLookup& help, const std::set<std::string>* action_inputs) {
    DocumentCheck result;
    for (const auto& block : yaml_blocks(markdown)) {
        ++result.yaml_blocks;
        BlockChecker(block, file, help, result, action_inputs).check();
    }
    for (const auto& block : toml_blocks(markdown)) {
        for (const auto& build : measure_builds(block)) {
            ++result.measure_builds;
            if (!build.value) {
                result.problems.push_back(fmt::format(
                    "{}:{}: [measure] build is not a one-line TOML string, the only kind this "
                    "check reads; write it as one",
                    file, build.line));
                continue;
            }
            for (const auto& command : shell_commands(*build.value, build.line)) {
                const auto position = program_position(command.words);
                const std::vector<std::string> words(
                    command.words.begin() + static_cast<std::ptrdiff_t>(position),
                    command.words.end());
                if (const auto problem = build_type_problem(words))
                    result.problems.push_back(
                        fmt::format("{}:{}: [measure] build: {}", file, command.line, *problem));
            }
        }
    }
    return result;
}

namespace {

// `word` without what prose and synopses put around a word: brackets, parentheses, quotes,
// emphasis, and a clause's closing punctuation or ellipsis.
std::string_view bare_word(std::string_view word) {
    constexpr std::string_view leading = "[(\"'*<";
    constexpr std::string_view trailing = "])\"'*>.,;:!?";
    constexpr std::string_view ellipsis = "\u2026";
    for (bool trimmed = true; trimmed && !word.empty();) {
        trimmed = false;
        if (leading.find(word.front()) != std::string_view::npos) {
            word.remove_prefix(1);
            trimmed = true;
        } else if (trailing.find(word.back()) != std::string_view::npos) {
            word.remove_suffix(1);
            trimmed = true;
        } else if (word.ends_with(ellipsis)) {
            word.remove_suffix(ellipsis.size());
            trimmed = true;
        }
    }
    return word;
}

// Whether running text's `word` ends a clause: a full stop, comma, semicolon, colon, question
// or exclamation mark, or closing parenthesis after it.
bool ends_clause(std::string_view word) {
    while (!word.empty() && (word.back() == '"' || word.back() == '\'' || word.back() == '*'))
        word.remove_suffix(1);
    return !word.empty() && std::string_view(".,;:!?)").find(word.back()) != std::string_view::npos;
}

// Whether `word` is a placeholder for a word the reader chooses: capitals, digits, '_' and '-',
// starting with a capital ("SUBCOMMAND", "BASE_FILE").
bool is_placeholder(std::string_view word) {
    return !word.empty() && std::isupper(static_cast<unsigned char>(word.front())) &&
           std::all_of(word.begin(), word.end(), [](char c) {
               return std::isupper(static_cast<unsigned char>(c)) ||
                      std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-';
           });
}

// One word of a document, with the 1-based line it is on.
struct PlacedWord {
    std::string_view text;
    int line = 0;
};

// Collects and checks the commands of one document.
class NamedCommandChecker {
  public:
    NamedCommandChecker(const std::string& file, const HelpLookup& help, NamedCommandsCheck& result)
        : file_(file), help_(help), result_(result) {}

    void check(std::string_view markdown) {
        const auto lines = split_lines(markdown);
        std::string paragraph_text;
        int paragraph_line = 0;
        const auto end_paragraph = [&] {
            if (!paragraph_text.empty()) check_paragraph(paragraph_text, paragraph_line);
            paragraph_text.clear();
        };
        for (std::size_t index = 0; index < lines.size(); ++index) {
            const int line = static_cast<int>(index) + 1;
            if (const auto opening = read_fence(lines[index])) {
                end_paragraph();
                std::string text;
                for (++index; index < lines.size() && !closes(*opening, lines[index]); ++index) {
                    text += lines[index];
                    text += '\n';
                }
                check_code_block(fence_language(*opening), text, line + 1);
                continue;
            }
            if (trim(lines[index]).empty()) {
                end_paragraph();
                continue;
            }
            if (paragraph_text.empty()) paragraph_line = line;
            paragraph_text += lines[index];
            paragraph_text += '\n';
        }
        end_paragraph();
    }

  private:
    void check_code_block(std::string_view language, const std::string& text, int first_line) {
        static constexpr std::array shells{"", "sh", "bash", "shell", "console"};
        if (std::find(shells.begin(), shells.end(), language) == shells.end()) return;
        for (const auto& command : shell_commands(text, first_line)) {
            auto position = program_position(command.words);
            if (language == "console" && position < command.words.size() &&
                command.words[position] == "$")
                ++position;
            if (position < command.words.size() && is_benchwatch(command.words[position]))
                check_words(command.line, command.words, position + 1);
        }
    }

    // A paragraph: its inline code spans, then its running text with each span as a break.
    void check_paragraph(const std::string& text, int first_line) {
        const auto line_at = [&](std::size_t offset) {
            const auto end = text.begin() + static_cast<std::ptrdiff_t>(offset);
            return first_line + static_cast<int>(std::count(text.begin(), end, '\n'));
        };
        const auto run_end = [&](std::size_t at) {
            return std::min(text.find_first_not_of('`', at), text.size());
        };
        std::vector<PlacedWord> words;
        const auto add_words = [&](std::size_t from, std::size_t to) {
            for (std::size_t at = from; at < to;) {
                while (at < to && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
                const auto start = at;
                while (at < to && !std::isspace(static_cast<unsigned char>(text[at]))) ++at;
                if (at > start)
                    words.push_back(
                        {std::string_view(text).substr(start, at - start), line_at(start)});
            }
        };
        std::size_t position = 0;
        for (auto opening = text.find('`'); opening != std::string::npos;
             opening = text.find('`', position)) {
            const auto content = run_end(opening);
            const auto run = content - opening;
            // A span ends at the next run of exactly as many backticks.
            auto closing = text.find('`', content);
            while (closing != std::string::npos && run_end(closing) - closing != run)
                closing = text.find('`', run_end(closing));
            if (closing == std::string::npos) {
                add_words(position, content);
                position = content;
                continue;
            }
            add_words(position, opening);
            words.push_back({"`", line_at(opening)});
            auto span = text.substr(content, closing - content);
            std::replace(span.begin(), span.end(), '\n', ' ');
            check_code_span(span, line_at(opening));
            position = closing + run;
        }
        add_words(position, text.size());
        check_running_text(words);
    }

    // A span is a command when its first one is: a message quoted in a span ("FILE: file is
    // 300 MiB; benchwatch reads results files up to 256 MiB") names none after a ';'.
    void check_code_span(std::string_view span, int line) {
        const auto commands = shell_commands(span, line);
        if (commands.empty()) return;
        const auto& words = commands.front().words;
        const auto position = program_position(words);
        if (position >= words.size()) return;
        if (is_benchwatch(bare_word(words[position]))) {
            check_words(line, words, position + 1);
            return;
        }
        const bool names_subcommand =
            position == 0 && top_level().subcommands.contains(std::string(bare_word(words[0])));
        const bool passes_flag = std::any_of(words.begin() + 1, words.end(), [](const auto& word) {
            return !option_name(bare_word(word)).empty();
        });
        if (names_subcommand && passes_flag) check_words(line, words, 0);
    }

    void check_running_text(const std::vector<PlacedWord>& words) {
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (bare_word(words[i].text) != "benchwatch" || ends_clause(words[i].text)) continue;
            std::vector<std::string> command{"benchwatch"};
            std::vector<std::string> chain;
            auto page = top_level();
            std::size_t next = i + 1;
            bool clause_ended = false;
            for (; next < words.size() && !clause_ended; ++next) {
                const std::string word(bare_word(words[next].text));
                if (!page.subcommands.contains(word)) break;
                chain.push_back(word);
                command.push_back(word);
                page = help_(chain);
                clause_ended = ends_clause(words[next].text);
            }
            if (clause_ended || next >= words.size() ||
                option_name(bare_word(words[next].text)).empty())
                continue;
            bool after_flag = false;
            for (; next < words.size(); ++next) {
                const auto word = bare_word(words[next].text);
                const bool flag = !option_name(word).empty();
                if (!flag && !after_flag) break;
                command.emplace_back(word);
                after_flag = flag;
                if (ends_clause(words[next].text)) break;
            }
            check_words(words[i].line, command, 1);
        }
    }

    // Checks benchwatch with `words` from `first` on as its arguments, each a bare_word(). A
    // placeholder where a subcommand is due (`benchwatch SUBCOMMAND --help`) names no command
    // that could be checked.
    void check_words(int line, const std::vector<std::string>& words, std::size_t first) {
        std::vector<std::string> command{"benchwatch"};
        for (std::size_t i = first; i < words.size(); ++i) {
            const auto word = words[i] == "--" ? std::string_view(words[i]) : bare_word(words[i]);
            if (!word.empty()) command.emplace_back(word);
        }
        std::vector<std::string> chain;
        for (std::size_t i = 1; i < command.size(); ++i) {
            const auto page = chain.empty() ? top_level() : help_(chain);
            if (!page.subcommands.contains(command[i])) {
                if (!page.subcommands.empty() && is_placeholder(command[i])) return;
                break;
            }
            chain.push_back(command[i]);
        }
        ++result_.benchwatch_commands;
        for (const auto& problem : check_benchwatch_command(command, help_))
            result_.problems.push_back(fmt::format("{}:{}: {}", file_, line, problem));
    }

    const HelpPage& top_level() {
        if (!top_level_) top_level_ = help_({});
        return *top_level_;
    }

    const std::string& file_;
    const HelpLookup& help_;
    NamedCommandsCheck& result_;
    std::optional<HelpPage> top_level_;
};

}  // namespace

NamedCommandsCheck check_named_commands(std::string_view markdown, const std::string& file,
                                        const HelpLookup& help) {
    NamedCommandsCheck result;
    NamedCommandChecker(file, help, result).check(markdown);
    return result;
}

ActionCheck check_action(std::string_view action_yaml, const std::string& file,
                         const HelpLookup& help) {
    ActionCheck result;
    DocumentCheck found;
    const FencedBlock block{0, std::string(action_yaml)};
    result.inputs = BlockChecker(block, file, help, found).check_action();
    result.benchwatch_commands = found.benchwatch_commands;
    result.problems = std::move(found.problems);
    return result;
}

}  // namespace benchwatch::testing::docs
