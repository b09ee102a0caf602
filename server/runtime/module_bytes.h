#pragma once
// What a loaded module's weights hold, for FamilyRuntime::resident_bytes.

#include <torch/nn/module.h>

#include <cstdint>

namespace tsserve::server {

// Bytes of the module's parameters and buffers, its submodules' included.
int64_t module_bytes(const torch::nn::Module& module);

}  // namespace tsserve::server
