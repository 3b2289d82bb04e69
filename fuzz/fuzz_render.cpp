// The rendering fuzz target: the bytes are read as a JSON report (report::read_json, as the fork
// flow reads a pull request's artifact) and, when they are one, rendered by every renderer. A
// ReportError is the expected answer to a bad report. Any other exception, a crash, or an output
// that carries what the checks of tests/support/output_checks.hpp forbid (markup the report did
// not write, terminal controls, workflow commands), or a report that renders differently once
// written as JSON and read back, is a finding: it is printed and the target aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "report/report.hpp"
#include "support/output_checks.hpp"

namespace {

using benchwatch::model::Comparison;
namespace report = benchwatch::report;
namespace checks = benchwatch::testing;

[[noreturn]] void finding(std::string_view what, std::string_view output) {
    std::fprintf(stderr, "finding: %.*s\n--- output ---\n%.*s\n--- end ---\n",
                 static_cast<int>(what.size()), what.data(), static_cast<int>(output.size()),
                 output.data());
    std::abort();
}

void expect_clean(std::string_view renderer, const std::optional<std::string>& problem,
                  std::string_view output) {
    if (problem) finding(std::string(renderer) + ": " + *problem, output);
}

std::string markdown_of(const Comparison& comparison) {
    std::ostringstream out;
    report::render_markdown(comparison, out);
    return out.str();
}

std::string text_of(const Comparison& comparison, bool color) {
    std::ostringstream out;
    report::render_text(comparison, out, color);
    return out.str();
}

std::string json_of(const Comparison& comparison) {
    std::ostringstream out;
    report::render_json(comparison, out);
    return out.str();
}

void check_every_renderer(const Comparison& comparison) {
    const auto markdown = markdown_of(comparison);
    expect_clean("markdown", checks::markdown_problem(markdown), markdown);
    expect_clean("markdown", checks::workflow_command_problem(markdown), markdown);
    // GitHub's comment limit, and limits that make the report drop rows or whole tables.
    for (const std::size_t limit : {65536u, 4000u, 600u}) {
        std::ostringstream out;
        report::render_markdown_limited(comparison, out, limit);
        expect_clean("limited markdown", checks::markdown_problem(out.str()), out.str());
    }
    for (const bool color : {false, true}) {
        const auto text = text_of(comparison, color);
        expect_clean("text", checks::terminal_problem(text, color), text);
        expect_clean("text", checks::workflow_command_problem(text), text);
    }
    const auto json = json_of(comparison);
    Comparison read_back;
    try {
        read_back = report::read_json(json, "rendered.json");
    } catch (const report::ReportError& error) {
        finding(std::string("render_json wrote a report read_json refuses: ") + error.what(), json);
    }
    if (markdown_of(read_back) != markdown)
        finding("markdown differs once written as JSON and read back", json);
    if (text_of(read_back, false) != text_of(comparison, false))
        finding("text differs once written as JSON and read back", json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view content(reinterpret_cast<const char*>(data), size);
    Comparison comparison;
    try {
        comparison = report::read_json(content, "fuzz-input.json");
    } catch (const report::ReportError&) {
        return 0;  // a refused report with its message: what a malformed one should get
    }
    check_every_renderer(comparison);
    return 0;
}
