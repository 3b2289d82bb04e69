// What could break: the columns of the history, changes and backtest tables no longer lining up:
// a width counted in bytes instead of terminal columns (an en dash or a sparkline block is one
// column and three bytes), a minimum width ignored, right alignment lost, or a line keeping the
// padding of an empty last cell.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/columns.hpp"

namespace benchwatch::report::detail {
namespace {

TEST(TextColumns, EachColumnIsAsWideAsItsWidestCellTwoSpacesApart) {
    const std::vector<std::vector<std::string>> rows{{"a", "bbb", "c"}, {"dddd", "e", "ff"}};
    EXPECT_EQ(text_columns(rows), (std::vector<std::string>{"a     bbb  c", "dddd  e    ff"}));
}

TEST(TextColumns, WidthsCountTerminalColumnsNotBytes) {
    // "▁▂" is two columns and six bytes; "1–2" three columns and five bytes.
    const std::vector<std::vector<std::string>> rows{{"▁▂", "1–2", "x"}, {"abc", "1", "y"}};
    EXPECT_EQ(text_columns(rows), (std::vector<std::string>{"▁▂   1–2  x", "abc  1    y"}));
}

TEST(TextColumns, RightAlignedColumnsAndMinimumWidths) {
    const std::vector<std::vector<std::string>> rows{{"method", "flukes"}, {"seed", "7.1"}};
    const std::vector<TextColumn> columns{{false, 8}, {true, 8}};
    EXPECT_EQ(text_columns(rows, columns),
              (std::vector<std::string>{"method      flukes", "seed           7.1"}));
}

TEST(TextColumns, NoLineEndsInSpaces) {
    const std::vector<std::vector<std::string>> rows{{"long name", "x", ""}, {"a", "y", "env"}};
    EXPECT_EQ(text_columns(rows), (std::vector<std::string>{"long name  x", "a          y  env"}));
}

TEST(TextColumns, RowsMayHaveFewerCells) {
    const std::vector<std::vector<std::string>> rows{{"a", "b"}, {"ccc"}};
    EXPECT_EQ(text_columns(rows), (std::vector<std::string>{"a    b", "ccc"}));
}

}  // namespace
}  // namespace benchwatch::report::detail
