// PatchTST's fused forecast (fused_forward.h) on the copy of the kernels this process runs
// (kernels/fused_kernel_table.h), each attention-map request checked before any row runs.

#include <string>

#include "kernels/fused_kernel_table.h"
#include "tsserve/model/fused_forward.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

namespace {

// Every request the kernels will read, checked before any row runs.
void check_map_requests(const FusedWeights& weights, const FusedRowMaps* maps, int64_t rows) {
  if (maps == nullptr) return;
  const auto layers = static_cast<int64_t>(weights.layers.size());
  for (int64_t row = 0; row < rows; ++row) {
    const FusedRowMaps& request = maps[row];
    if (request.layer_count < 0) {
      throw ModelError("attention maps of row " + std::to_string(row) + ": layer_count " +
                       std::to_string(request.layer_count) + " is negative");
    }
    if (!request.wanted()) continue;
    if (!request.has_destinations() || request.layers == nullptr) {
      throw ModelError("attention maps of row " + std::to_string(row) +
                       ": layers asked for without a destination or a layer list");
    }
    for (int32_t i = 0; i < request.layer_count; ++i) {
      if (request.layers[i] < 0 || request.layers[i] >= layers) {
        throw ModelError("attention maps of row " + std::to_string(row) + ": layer " +
                         std::to_string(request.layers[i]) + " is not in [0, " +
                         std::to_string(layers) + ")");
      }
    }
  }
}

}  // namespace

void fused_forecast_rows(const FusedWeights& weights, const float* series, int64_t rows,
                         float* forecast, const FusedRowMaps* maps) {
  check_map_requests(weights, maps, rows);
  fused_kernel_table().patchtst_forecast(weights, series, rows, forecast, maps);
}

bool fused_forecast_rows_with(const char* instruction_set, const FusedWeights& weights,
                              const float* series, int64_t rows, float* forecast,
                              const FusedRowMaps* maps) {
  const FusedKernelTable* copy = fused_kernel_table_named(instruction_set);
  if (copy == nullptr) return false;
  check_map_requests(weights, maps, rows);
  copy->patchtst_forecast(weights, series, rows, forecast, maps);
  return true;
}

}  // namespace tsserve::model
