#include "tsserve/model/unit_passes.h"

#include <ATen/ATen.h>

#include "tsserve/model/model_error.h"

namespace tsserve::model {

bool runs_unit_by_unit(bool batch_invariant, const at::Tensor& input) {
  return batch_invariant && input.device().is_cpu() && input.dim() > 0 && input.size(0) > 0;
}

at::Tensor unit_input(const at::Tensor& batch, int64_t unit) {
  if (!batch.defined()) return {};
  // clone() allocates anew (64-byte aligned), so no pass reads its input at an offset
  // that depends on the unit's place in the batch.
  return batch.narrow(0, unit, 1).clone(at::MemoryFormat::Contiguous);
}

std::vector<at::Tensor> run_unit_by_unit(
    int64_t units, const std::function<std::vector<at::Tensor>(int64_t unit)>& pass) {
  std::vector<std::vector<at::Tensor>> columns;
  for (int64_t unit = 0; unit < units; ++unit) {
    std::vector<at::Tensor> parts = pass(unit);
    if (columns.empty()) columns.resize(parts.size());
    if (parts.size() != columns.size()) {
      throw ModelError("a unit's pass gave " + std::to_string(parts.size()) +
                       " tensors where the first gave " + std::to_string(columns.size()));
    }
    for (size_t i = 0; i < parts.size(); ++i) columns[i].push_back(std::move(parts[i]));
  }
  std::vector<at::Tensor> joined;
  joined.reserve(columns.size());
  for (const auto& column : columns) {
    joined.push_back(column.size() == 1 ? column.front() : at::cat(column, 0));
  }
  return joined;
}

}  // namespace tsserve::model
