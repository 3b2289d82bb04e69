#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "cli/commands.hpp"
#include "compare/compare.hpp"
#include "report/report.hpp"

namespace benchwatch::cli {

namespace {

std::string read_whole_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file)
        throw UsageError(
            fmt::format("cannot read the report {}; write it with `benchwatch compare --output {}`",
                        path, path));
    return text.str();
}

bool looks_like_json(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && text[first] == '{';
}

// A report written before re-measuring settled its verdicts is settled as it is read, so that
// every forge command counts what was confirmed.
model::Comparison parse_comparison(std::string_view text, const std::string& path) {
    auto comparison = report::read_json(text, path);
    compare::settle_by_confirmation(comparison);
    return comparison;
}

}  // namespace

bool is_json_report_file(const std::string& report_path) {
    return looks_like_json(read_whole_file(report_path));
}

model::Comparison read_comparison_file(const std::string& report_path) {
    return parse_comparison(read_whole_file(report_path), report_path);
}

std::string resolve_report_project(const CommonFlags& flags, const std::string& report_path,
                                   const Context& context) {
    if (flags.project.empty() && !report_path.empty()) {
        const auto text = read_whole_file(report_path);
        if (looks_like_json(text)) return parse_comparison(text, report_path).project;
    }
    return resolve_project(flags, context);
}

std::string forge_report_markdown(const ComparisonFlags& flags, const std::string& report_path,
                                  const std::string& head, const Context& context,
                                  std::size_t max_characters) {
    std::ostringstream out;
    if (report_path.empty()) {
        report::render_markdown_limited(compare_head(flags, head, context), out, max_characters);
        return out.str();
    }
    auto text = read_whole_file(report_path);
    if (!looks_like_json(text)) return text;
    report::render_markdown_limited(parse_comparison(text, report_path), out, max_characters);
    return out.str();
}

}  // namespace benchwatch::cli
