#pragma once
// NumPy .npy files (format 1.0/2.0, C order) of float32, the interchange format for
// tokens, encoder outputs and attention maps. Reading also accepts float64 ("<f8"),
// converted to float32, since that is NumPy's default dtype.

#include <string>

#include "tsserve/client/tensor_data.h"

namespace tsserve::client {

// Throws std::invalid_argument naming the file and what is wrong with it.
TensorData read_npy(const std::string& path);
void write_npy(const std::string& path, const TensorData& data);

}  // namespace tsserve::client
