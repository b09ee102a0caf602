#pragma once
// Writes a state dict as a safetensors file (the format tsserve's read_safetensors reads),
// so a test can serve weights of its own making: a model version that answers differently
// from another for real, not by float rounding.

#include <string>

#include "tsserve/model/state_dict.h"

namespace tsserve::server::testing {

// F32, F64 and I64 tensors, in the state dict's order; throws std::runtime_error on any
// other dtype or when the file cannot be written.
void write_safetensors(const std::string& path, const model::StateDict& tensors);

}  // namespace tsserve::server::testing
