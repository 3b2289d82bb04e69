#include <fmt/core.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ingest/gotest.hpp"
#include "ingest/ingest.hpp"
#include "ingest/text_input.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// One test2json event, with the fields the reader uses.
struct Event {
    std::string action;
    std::string package;
    std::string output;
};

// A printed line and the file line of the event that completed it.
struct PrintedLine {
    std::string text;
    std::size_t file_line = 0;
};

// What one package printed: its complete lines, and the start of a line still being printed
// (go test prints a benchmark's name, then its result in a later event).
struct PackageOutput {
    std::vector<PrintedLine> lines;
    std::string pending;
};

bool blank_line(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// The events of a `go test -json` file, one JSON object per line, and the printed lines of each
// package in the order the packages first appear. Each package's lines stay together, so that
// packages go test ran in parallel do not interleave their "pkg:" and result lines.
class EventStream {
  public:
    EventStream(std::string_view text, std::string_view source) : input_(text, source) {}

    // Reads every event; throws InputError naming the line of one that is not an event.
    void read() {
        std::string_view line;
        while (input_.next_line(line)) {
            if (blank_line(line)) continue;
            const Event event = parse_event(line);
            if (event.action == "output") add_output(event);
        }
        for (auto& [package, output] : packages_)
            if (!output.pending.empty())
                output.lines.push_back({std::move(output.pending), input_.line_number()});
    }

    // The printed lines, package after package, as read_go_output() and claim_go_output() take
    // them; valid while this stream lives.
    NextGoLine lines() const {
        return [this, package = std::size_t{0}, at = std::size_t{0}](GoOutputLine& line) mutable {
            while (package < order_.size()) {
                const auto& printed = packages_.at(order_[package]).lines;
                if (at < printed.size()) {
                    line = {printed[at].text, printed[at].file_line};
                    ++at;
                    return true;
                }
                ++package;
                at = 0;
            }
            return false;
        };
    }

  private:
    Event parse_event(std::string_view line) {
        const simdjson::padded_string padded(line);
        ondemand::document document;
        ondemand::object object;
        if (auto error = parser_.iterate(padded).get(document))
            input_.fail(fmt::format("invalid JSON: {}", simdjson::error_message(error)));
        ondemand::json_type type{};
        if (auto error = document.type().get(type))
            input_.fail(fmt::format("invalid JSON: {}", simdjson::error_message(error)));
        if (type != ondemand::json_type::object)
            input_.fail("expected one JSON object per line, as go test -json writes");
        if (auto error = document.get_object().get(object))
            input_.fail(fmt::format("invalid JSON: {}", simdjson::error_message(error)));
        Event event;
        try {
            for (auto field : object) {
                const std::string_view key = field.unescaped_key().value();
                std::string* target = key == "Action"    ? &event.action
                                      : key == "Package" ? &event.package
                                      : key == "Output"  ? &event.output
                                                         : nullptr;
                if (target == nullptr) continue;
                std::string_view text;
                if (field.value().get_string().get(text) != simdjson::SUCCESS)
                    input_.fail(fmt::format("expected a string for \"{}\"", key));
                *target = std::string(text);
            }
            const char* after = nullptr;
            if (document.current_location().get(after) == simdjson::SUCCESS)
                input_.fail("unexpected content after the event's JSON object");
        } catch (const simdjson::simdjson_error& error) {
            input_.fail(fmt::format("invalid JSON: {}", simdjson::error_message(error.error())));
        }
        return event;
    }

    void add_output(const Event& event) {
        const auto [found, inserted] = packages_.try_emplace(event.package);
        if (inserted) order_.push_back(event.package);
        PackageOutput& output = found->second;
        std::string_view rest = event.output;
        for (auto end = rest.find('\n'); end != std::string_view::npos; end = rest.find('\n')) {
            output.pending.append(rest.substr(0, end));
            if (output.pending.ends_with('\r')) output.pending.pop_back();
            output.lines.push_back({std::move(output.pending), input_.line_number()});
            output.pending.clear();
            rest.remove_prefix(end + 1);
        }
        output.pending.append(rest);
    }

    TextInput input_;
    ondemand::parser parser_;
    std::map<std::string, PackageOutput> packages_;
    std::vector<std::string> order_;
};

// Whether the first non-blank line is an object whose "Action" is a string, as in every event
// test2json writes.
bool starts_like_events(std::string_view text) {
    TextInput input(text, "");
    std::string_view line;
    while (input.next_line(line) && blank_line(line)) {
    }
    if (blank_line(line)) return false;
    const simdjson::padded_string padded(line);
    ondemand::parser parser;
    ondemand::document document;
    ondemand::object object;
    if (parser.iterate(padded).get(document) || document.get_object().get(object)) return false;
    for (auto field : object) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
        if (key != "Action") continue;
        std::string_view action;
        return field.value().get_string().get(action) == simdjson::SUCCESS;
    }
    return false;
}

// A stream of test2json events is ours when the output they carry holds a go test -bench result
// line; events without one are go test -json run without -bench.
Claim detect_gotestjson(const Probe& probe) {
    if (!starts_like_events(probe.text)) return {};
    EventStream stream(probe.text, "");
    try {
        stream.read();
    } catch (const InputError&) {
        return {true, {}, {}};  // an event stream with a broken line: reading it says where
    }
    return claim_go_output(stream.lines(), "go test -json");
}

ParsedResults read_gotestjson(std::string_view text, std::string_view source) {
    EventStream stream(text, source);
    stream.read();
    return read_go_output(stream.lines(), source, "go-json");
}

}  // namespace

const Reader gotestjson_reader{
    .name = "go-json", .detect = detect_gotestjson, .parse_text = read_gotestjson};

}  // namespace benchwatch::ingest::detail
