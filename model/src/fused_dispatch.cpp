#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tsserve/model/fused_forward.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

// One copy of model/kernels/fused_forward_kernels.cpp per instruction set.
namespace fused_avx512 {
void forecast_rows(const FusedWeights&, const float*, int64_t, float*, const FusedRowMaps*);
}
namespace fused_avx2 {
void forecast_rows(const FusedWeights&, const float*, int64_t, float*, const FusedRowMaps*);
}
namespace fused_sse2 {
void forecast_rows(const FusedWeights&, const float*, int64_t, float*, const FusedRowMaps*);
}

namespace {

using ForecastRows = void (*)(const FusedWeights&, const float*, int64_t, float*,
                              const FusedRowMaps*);

// The copy named (nullptr when this CPU lacks its instruction set).
ForecastRows forecast_copy(const std::string& name) {
  ForecastRows copy = nullptr;
  if (name == "avx512") {
    copy = fused_avx512::forecast_rows;
  } else if (name == "avx2") {
    copy = fused_avx2::forecast_rows;
  } else if (name == "sse2") {
    copy = fused_sse2::forecast_rows;
  } else {
    throw std::invalid_argument("instruction set must be avx512, avx2 or sse2, got " + name);
  }
  const std::vector<const char*> sets = fused_instruction_sets_on_this_cpu();
  const bool runs = std::any_of(sets.begin(), sets.end(), [&](const char* s) { return name == s; });
  return runs ? copy : nullptr;
}

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
  // Chosen once per process (the bitwise batch invariance relies on one copy).
  static const ForecastRows chosen = forecast_copy(fused_instruction_set());
  check_map_requests(weights, maps, rows);
  chosen(weights, series, rows, forecast, maps);
}

bool fused_forecast_rows_with(const char* instruction_set, const FusedWeights& weights,
                              const float* series, int64_t rows, float* forecast,
                              const FusedRowMaps* maps) {
  const ForecastRows copy = forecast_copy(instruction_set);
  if (copy == nullptr) return false;
  check_map_requests(weights, maps, rows);
  copy(weights, series, rows, forecast, maps);
  return true;
}

}  // namespace tsserve::model
