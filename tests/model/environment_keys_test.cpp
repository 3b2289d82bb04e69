// What could break: a toolchain key taken for part of the machine (and so never diffed), or a
// machine key missed (and so diffed on every run).
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

}  // namespace
}  // namespace benchwatch::model
