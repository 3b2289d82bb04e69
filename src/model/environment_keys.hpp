#pragma once

#include <array>
#include <string_view>

namespace benchwatch::model {

// The environment keys that identify a machine rather than a toolchain, in the order a report
// describes the machine: shown once, not diffed every run.
inline constexpr std::array<std::string_view, 8> machine_keys = {
    "os", "kernel", "arch", "cpu", "cores", "memory", "gpu", "gpu.driver"};

// True when `key` is one of machine_keys.
bool is_machine_key(std::string_view key);

}  // namespace benchwatch::model
