// What could break: the pad that keeps a counted program's starting strings at a multiple of a
// page miscounting a string, so that a working directory or an argument of another length moves
// the heap and the stack again and a pull request's counts differ from its history's.
#include "run/instrument.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchwatch::run {
namespace {

TEST(StackPadding, BringsTheStringsAProgramStartsWithToAPage) {
    // /tmp/w and its zero: 7; /bin/prog twice (argv[0] and the kernel's copy): 20; -x: 3;
    // PATH=/usr/bin: 14; LC_ALL=C: 9; BENCHWATCH_STACK_PAD=: 22 with its zero. 75 in all.
    const auto pad = stack_padding({"/bin/prog", "-x"}, {"PATH=/usr/bin", "LC_ALL=C"}, "/tmp/w");
    EXPECT_EQ(pad.size(), 4096u - 75u);
    EXPECT_EQ(pad.find_first_not_of('x'), std::string::npos);
}

TEST(StackPadding, ALongerDirectoryOrArgumentIsMadeUpFor) {
    const std::vector<std::string> environment = {"PATH=/usr/bin"};
    const auto base = stack_padding({"/bin/prog"}, environment, "/tmp/w").size();
    // Ten bytes more of directory: ten fewer of pad; a program path ten longer counts twice.
    EXPECT_EQ(stack_padding({"/bin/prog"}, environment, "/tmp/w0123456789").size(), base - 10);
    EXPECT_EQ(stack_padding({"/bin/prog0123456789"}, environment, "/tmp/w").size(), base - 20);
    // Past a page, the next one.
    const std::string long_argument(5000, 'a');
    const auto past = stack_padding({"/bin/prog", long_argument}, environment, "/tmp/w").size();
    EXPECT_EQ((past + 5001 - base) % 4096, 0u) << past;
}

}  // namespace
}  // namespace benchwatch::run
