#include "ingest/catch2.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <cmath>
#include <pugixml.hpp>
#include <set>
#include <string>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/text_input.hpp"

namespace benchwatch::ingest::detail {

namespace {

// Test cases and sections nest at most this deep, and so do groups; Catch2's own reports stay far
// below it. The reader descends one call per level.
constexpr std::size_t max_nesting = 256;

// The text after an optional "<?xml …?>" declaration and whitespace.
std::string_view skip_declaration(std::string_view text) {
    constexpr std::string_view blanks = " \t\r\n";
    std::size_t start = text.find_first_not_of(blanks);
    if (start == std::string_view::npos) return {};
    text = text.substr(start);
    if (!text.starts_with("<?xml")) return text;
    const std::size_t end = text.find("?>");
    if (end == std::string_view::npos) return {};
    start = text.find_first_not_of(blanks, end + 2);
    return start == std::string_view::npos ? std::string_view() : text.substr(start);
}

// Whether `text` opens the element `name`: "<name" followed by a blank, "/" or ">".
bool opens_element(std::string_view text, std::string_view name) {
    if (text.size() <= name.size() + 1 || text[0] != '<' || text.substr(1, name.size()) != name)
        return false;
    const char next = text[name.size() + 1];
    return next == ' ' || next == '\t' || next == '\r' || next == '\n' || next == '>' ||
           next == '/';
}

class Catch2Reader {
  public:
    Catch2Reader(std::string_view text, std::string_view source)
        : text_(text), input_(text, source), names_budget_(text.size(), source) {}

    // The rows read(), which must have run, found, in document order.
    std::vector<Catch2Row> take_rows() { return std::move(rows_); }

    ParsedResults read() {
        parsed_.format = "catch2";
        pugi::xml_document document;
        const pugi::xml_parse_result loaded = document.load_buffer(
            text_.data(), text_.size(), pugi::parse_default | pugi::parse_doctype);
        if (!loaded)
            fail_at_offset(static_cast<std::size_t>(loaded.offset),
                           fmt::format("XML error: {}", loaded.description()));
        for (const pugi::xml_node node : document.children())
            if (node.type() == pugi::node_doctype)
                fail_at(node,
                        "a DOCTYPE is not part of Catch2's XML; refusing it rather than "
                        "reading its entity declarations");
        const pugi::xml_node root = document.document_element();
        if (!root) input_.fail_file("expected Catch2's <Catch> or <Catch2TestRun> root element");
        const std::string_view root_name = root.name();
        if (root_name != "Catch" && root_name != "Catch2TestRun")
            fail_at(root, fmt::format("expected Catch2's <Catch> or <Catch2TestRun> as the root "
                                      "element, got <{}>",
                                      root_name));
        if (const auto version = root.attribute("catch2-version"))
            parsed_.context.emplace("catch2.version", version.value());
        walk(root);
        return std::move(parsed_);
    }

  private:
    // Visits the test cases, sections and groups under `parent`, naming benchmarks by the path
    // of test case and section names above them.
    void walk(const pugi::xml_node parent) {
        for (const pugi::xml_node child : parent.children()) {
            const std::string_view element = child.name();
            if (element == "BenchmarkResults") {
                read_benchmark(child);
            } else if (element == "TestCase" || element == "Section") {
                if (path_.size() == max_nesting)
                    fail_at(child, fmt::format("test cases and sections nest deeper than {} "
                                               "levels",
                                               max_nesting));
                path_.emplace_back(child.attribute("name").value());
                walk(child);
                path_.pop_back();
                if (element == "TestCase") warn_if_failed(child);
            } else if (element == "Group") {
                if (groups_ == max_nesting)
                    fail_at(child, fmt::format("groups nest deeper than {} levels", max_nesting));
                ++groups_;
                walk(child);
                --groups_;
            }
        }
    }

    void warn_if_failed(const pugi::xml_node test_case) {
        const pugi::xml_node outcome = test_case.child("OverallResult");
        if (outcome && std::string_view(outcome.attribute("success").value()) == "false")
            parsed_.warnings.push_back(
                located(outcome, fmt::format("test case '{}' failed; its benchmarks are kept",
                                             test_case.attribute("name").value())));
    }

    // <BenchmarkResults name samples …><mean value/><standardDeviation value/>…, values in ns.
    void read_benchmark(const pugi::xml_node benchmark) {
        std::vector<std::string_view> parts(path_.begin(), path_.end());
        parts.emplace_back(benchmark.attribute("name").value());
        const std::string name = fmt::format("{}", fmt::join(parts, "/"));
        names_budget_.take(name);
        if (!names_.insert(name).second)
            fail_at(benchmark, fmt::format("benchmark '{}' appears twice", name));
        auto& row = rows_.emplace_back();
        row.benchmark = name;
        row.iterations = parse_count(benchmark.attribute("iterations").value()).value_or(0);
        if (const pugi::xml_node failed = benchmark.child("failed")) {
            row.failed = true;
            parsed_.warnings.push_back(
                located(failed, fmt::format("benchmark '{}' failed: {}; left out", name,
                                            failed.attribute("message").value())));
            return;
        }
        const auto samples = parse_count(benchmark.attribute("samples").value());
        if (!samples || *samples == 0)
            fail_at(benchmark, fmt::format("benchmark '{}': expected a positive sample count in "
                                           "\"samples\", got '{}'",
                                           name, benchmark.attribute("samples").value()));
        const double mean = number(benchmark, "mean", name);
        const double stddev = number(benchmark, "standardDeviation", name);
        if (!(mean > 0) || !std::isfinite(mean))
            fail_at(
                benchmark.child("mean"),
                fmt::format("benchmark '{}': time must be a positive number, got {}", name, mean));
        row.samples = static_cast<std::int64_t>(*samples);
        model::Result result;
        result.benchmark = name;
        result.value = mean;
        // Catch2 reports no median; its mean stands in for it.
        result.samples = model::SampleSummary{*samples, mean, mean, stddev, {}};
        parsed_.results.push_back(std::move(result));
    }

    // The number in <element value="…"/> under `benchmark`.
    double number(const pugi::xml_node benchmark, const char* element, const std::string& name) {
        const pugi::xml_node child = benchmark.child(element);
        if (!child)
            fail_at(benchmark,
                    fmt::format("benchmark '{}': expected a <{}> element", name, element));
        const auto value = parse_number(child.attribute("value").value());
        if (!value)
            fail_at(child, fmt::format("benchmark '{}': expected a number in <{} value>, got '{}'",
                                       name, element, child.attribute("value").value()));
        return *value;
    }

    std::string located(const pugi::xml_node node, std::string_view message) const {
        return fmt::format("{}:{}: {}", input_.source(),
                           line_at_offset(text_, static_cast<std::size_t>(node.offset_debug())),
                           message);
    }

    [[noreturn]] void fail_at(const pugi::xml_node node, std::string_view message) const {
        fail_at_offset(static_cast<std::size_t>(node.offset_debug()), message);
    }

    [[noreturn]] void fail_at_offset(std::size_t offset, std::string_view message) const {
        input_.fail_at_line(line_at_offset(text_, offset), message);
    }

    std::string_view text_;
    TextInput input_;
    ParsedResults parsed_;
    std::vector<std::string> path_;
    std::set<std::string, std::less<>> names_;
    NameBudget names_budget_;
    std::size_t groups_ = 0;  // <Group> elements around the one being walked
    std::vector<Catch2Row> rows_;
};

// Catch2's XML reporter writes <Catch …> (v2) or <Catch2TestRun …> (v3) as the root element,
// after an optional XML declaration: the file is ours when it opens with one of them.
Claim detect_catch2(const Probe& probe) {
    if (probe.json != nullptr) return {};
    const std::string_view start = skip_declaration(probe.text);
    if (opens_element(start, "Catch") || opens_element(start, "Catch2TestRun")) return {true, {}};
    if (start.starts_with("<")) return {false, "an XML document whose root is not Catch2's"};
    return {};
}

ParsedResults read_catch2(std::string_view text, std::string_view source) {
    return Catch2Reader(text, source).read();
}

}  // namespace

const Reader catch2_reader{.name = "catch2", .detect = detect_catch2, .parse_text = read_catch2};

}  // namespace benchwatch::ingest::detail

namespace benchwatch::ingest {

std::vector<Catch2Row> catch2_rows(std::string_view xml, std::string_view source) {
    detail::Catch2Reader reader(xml, source);
    reader.read();
    return reader.take_rows();
}

}  // namespace benchwatch::ingest
