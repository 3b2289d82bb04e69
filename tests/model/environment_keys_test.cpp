// What could break: a toolchain key taken for part of the machine (and so never diffed), or a
// machine key missed (and so diffed on every run); a banner line or a date taken for a
// toolchain's version.
#include "model/environment_keys.hpp"

#include <gtest/gtest.h>

namespace benchwatch::model {
namespace {

TEST(MachineKeys, AreTheKeysThatDescribeTheMachine) {
    for (const auto key : {"os", "kernel", "arch", "cpu", "cores", "memory", "gpu", "gpu.driver"})
        EXPECT_TRUE(is_machine_key(key)) << key;
}

TEST(MachineKeys, ToolchainRepositoryAndUserKeysAreNot) {
    for (const auto key : {"compiler.g++", "git.dirty", "gbench.library_build_type", "julia", "GPU",
                           "cpu.model", "", "gpu.drivers"})
        EXPECT_FALSE(is_machine_key(key)) << key;
}

TEST(VersionIn, TheLastDottedNumberOfTheFirstLineWithOne) {
    EXPECT_EQ(version_in("g++ (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022"), "12.2.0");
    EXPECT_EQ(version_in("Debian clang version 14.0.6"), "14.0.6");
    EXPECT_EQ(version_in("go version go1.19.8 linux/amd64"), "1.19.8");
    EXPECT_EQ(version_in("rustc 1.75.0-nightly (abc123 2023-10-01)"), "1.75.0");
    EXPECT_EQ(version_in("Python 3.11.2"), "3.11.2");
    EXPECT_EQ(version_in("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2023 NVIDIA\n"
                         "Built on Tue_Aug_15_22:02:13_PDT_2023\n"
                         "Cuda compilation tools, release 12.2, V12.2.140"),
              "12.2.140");
    EXPECT_EQ(version_in("tool 7"), std::nullopt);  // no dotted number anywhere
    EXPECT_EQ(version_in("version 1."), std::nullopt);
    EXPECT_EQ(version_in(""), std::nullopt);
}

}  // namespace
}  // namespace benchwatch::model
