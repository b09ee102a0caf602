#pragma once
// A checkpoint's tensors by name, in the order the file lists them.

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

namespace tsserve::model {

using StateDict = std::vector<std::pair<std::string, at::Tensor>>;

}  // namespace tsserve::model
