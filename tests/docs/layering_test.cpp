// What could break: a layer of src/ including a layer above it (a circle in the making, or the
// store knowing of the CLI), or including one its CMakeLists.txt does not declare, so that the
// build links it only by luck through another library; or the layer table of src/README.md
// drifting from the folders that exist.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = BENCHWATCH_SOURCE_DIR;

// The layers of src/README.md's table, top first: "| `cli/` | …" gives "cli".
std::vector<std::string> layer_table(const std::string& readme) {
    std::vector<std::string> layers;
    static const std::regex row(R"(^\| `([a-z]+)/` \|)");
    std::istringstream lines(readme);
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        if (std::regex_search(line, match, row)) layers.push_back(match[1]);
    }
    return layers;
}

// One `#include "layer/…"` of a file of a layer.
struct Include {
    std::string file;   // "src/store/sqlite_store.cpp"
    int line = 0;
    std::string layer;  // "model"
};

// The problems of the includes of `layer`: a layer not below it in `table`, or one its
// `declared` dependencies (the benchwatch_* libraries of its CMakeLists.txt) leave out.
std::vector<std::string> layering_problems(const std::string& layer,
                                           const std::vector<Include>& includes,
                                           const std::vector<std::string>& table,
                                           const std::set<std::string>& declared) {
    std::vector<std::string> problems;
    const auto rank = [&](const std::string& name) {
        return std::find(table.begin(), table.end(), name) - table.begin();
    };
    for (const auto& include : includes) {
        if (include.layer == layer) continue;
        const auto where = fmt::format("{}:{}: includes {}/", include.file, include.line,
                                       include.layer);
        if (rank(include.layer) == static_cast<std::ptrdiff_t>(table.size()))
            problems.push_back(where + ", which is not a layer of src/README.md's table");
        else if (rank(include.layer) <= rank(layer))
            problems.push_back(fmt::format("{}, which is not below {}/ in src/README.md's table",
                                           where, layer));
        else if (!declared.contains(include.layer))
            problems.push_back(fmt::format(
                "{}, which src/{}/CMakeLists.txt does not declare (DEPENDS benchwatch_{})", where,
                layer, include.layer));
    }
    return problems;
}

// Every `#include "x/…"` of the .hpp and .cpp files of src/<layer>/.
std::vector<Include> includes_of(const std::string& layer) {
    std::vector<Include> found;
    static const std::regex include(R"re(^#include "([a-z_]+)/)re");
    for (const auto& entry : fs::directory_iterator(source_dir / "src" / layer)) {
        const auto extension = entry.path().extension();
        if (extension != ".hpp" && extension != ".cpp") continue;
        std::istringstream lines(read_text(entry.path()));
        int number = 0;
        for (std::string line; std::getline(lines, line);) {
            ++number;
            std::smatch match;
            if (std::regex_search(line, match, include))
                found.push_back({fs::relative(entry.path(), source_dir).string(), number, match[1]});
        }
    }
    return found;
}

// The benchwatch_<layer> libraries that src/<layer>/CMakeLists.txt names.
std::set<std::string> declared_layers(const std::string& layer) {
    std::set<std::string> declared;
    const auto text = read_text(source_dir / "src" / layer / "CMakeLists.txt");
    static const std::regex library(R"(benchwatch_([a-z]+))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), library);
         it != std::sregex_iterator(); ++it)
        declared.insert((*it)[1]);
    return declared;
}

const std::vector<std::string> table = layer_table(read_text(source_dir / "src" / "README.md"));

TEST(Layering, TheTableNamesEveryFolderOfSrc) {
    std::set<std::string> folders;
    for (const auto& entry : fs::directory_iterator(source_dir / "src"))
        if (entry.is_directory()) folders.insert(entry.path().filename().string());
    EXPECT_EQ(std::set<std::string>(table.begin(), table.end()), folders);
}

TEST(Layering, EveryIncludeIsOfALayerBelowThatTheTargetDeclares) {
    std::vector<std::string> problems;
    std::size_t checked = 0;
    for (const auto& layer : table) {
        const auto includes = includes_of(layer);
        checked += includes.size();
        for (auto& problem : layering_problems(layer, includes, table, declared_layers(layer)))
            problems.push_back(std::move(problem));
    }
    EXPECT_THAT(problems, ::testing::IsEmpty()) << fmt::format("{}", fmt::join(problems, "\n"));
    EXPECT_GT(checked, 300u);
}

TEST(Layering, AForbiddenIncludeIsNamedWithItsFileAndLine) {
    const std::vector<std::string> layers{"cli", "store", "model"};
    const std::vector<Include> includes{
        {"src/store/sqlite_store.cpp", 12, "cli"},   // upward
        {"src/store/sqlite_store.cpp", 13, "model"},  // below, but not declared
        {"src/store/sqlite_store.cpp", 14, "web"},    // not a layer
        {"src/store/store.hpp", 3, "store"},          // its own
    };
    EXPECT_THAT(
        layering_problems("store", includes, layers, {}),
        ::testing::ElementsAre(
            "src/store/sqlite_store.cpp:12: includes cli/, which is not below store/ in "
            "src/README.md's table",
            "src/store/sqlite_store.cpp:13: includes model/, which src/store/CMakeLists.txt does "
            "not declare (DEPENDS benchwatch_model)",
            "src/store/sqlite_store.cpp:14: includes web/, which is not a layer of "
            "src/README.md's table"));
    EXPECT_THAT(layering_problems("store", includes, layers, {"model"}), ::testing::SizeIs(2));
}

}  // namespace
}  // namespace benchwatch::testing
