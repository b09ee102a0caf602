#pragma once
// Copies the tensors of a torch.save state_dict out of their storages, after checking
// each view's geometry (sizes, strides, offset) against the storage it reads.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "pickle_value.h"

namespace tsserve::model::detail {

class TensorViewCopier {
 public:
  // Views may overlap (tied weights, expanded tensors), so their copies can outgrow the
  // storages. The copies may take at most 4x the storages' bytes plus 256 MiB: enough
  // for any real state_dict, not enough for a few bytes of pickle to exhaust memory.
  explicit TensorViewCopier(uint64_t total_storage_bytes);

  // A contiguous copy of `view`. Throws CheckpointFormatError naming `name` when the view
  // reaches outside its storage, has negative sizes/strides/offset, too many
  // dimensions, or would exceed the copy budget.
  at::Tensor copy(const std::string& name, const TensorView& view);

 private:
  uint64_t budget_bytes_;
};

}  // namespace tsserve::model::detail
