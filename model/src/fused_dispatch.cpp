#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tsserve/model/fused_forward.h"
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

struct Kernels {
  ForecastRows forecast_rows;
  const char* name;
};

bool has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}

bool has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// TSSERVE_FUSED_ISA forces one copy: tests run each copy the CPU has through the whole
// forward, and a fleet of mixed CPUs can run one instruction set (and so the same bits)
// everywhere. A copy the CPU cannot run is refused, never replaced by another.
Kernels forced_kernels(const std::string& name) {
  if (name == "avx512") {
    if (!has_avx512()) {
      throw ModelError("TSSERVE_FUSED_ISA=avx512, but this CPU lacks AVX-512 F/VL/BW/DQ");
    }
    return {fused_avx512::forecast_rows, "avx512"};
  }
  if (name == "avx2") {
    if (!has_avx2()) throw ModelError("TSSERVE_FUSED_ISA=avx2, but this CPU lacks AVX2 and FMA");
    return {fused_avx2::forecast_rows, "avx2"};
  }
  if (name == "sse2") return {fused_sse2::forecast_rows, "sse2"};
  throw ModelError(
      "TSSERVE_FUSED_ISA must be avx512, avx2 or sse2 (or unset: the CPU's best), "
      "got \"" +
      name + "\"");
}

// Chosen once per process, so every call on this machine runs the same instructions
// (which the bitwise batch invariance relies on).
Kernels select_kernels() {
  const char* forced = std::getenv(kFusedIsaVariable);
  if (forced != nullptr && *forced != '\0') return forced_kernels(forced);
  if (has_avx512()) return {fused_avx512::forecast_rows, "avx512"};
  if (has_avx2()) return {fused_avx2::forecast_rows, "avx2"};
  return {fused_sse2::forecast_rows, "sse2"};
}

const Kernels& kernels() {
  static const Kernels selected = select_kernels();
  return selected;
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
  check_map_requests(weights, maps, rows);
  kernels().forecast_rows(weights, series, rows, forecast, maps);
}

const char* fused_instruction_set() { return kernels().name; }

std::vector<const char*> fused_instruction_sets_on_this_cpu() {
  std::vector<const char*> sets;
  if (has_avx512()) sets.push_back("avx512");
  if (has_avx2()) sets.push_back("avx2");
  sets.push_back("sse2");
  return sets;
}

bool fused_forecast_rows_with(const char* instruction_set, const FusedWeights& weights,
                              const float* series, int64_t rows, float* forecast,
                              const FusedRowMaps* maps) {
  const std::string name = instruction_set;
  ForecastRows run = nullptr;
  if (name == "avx512") {
    if (!has_avx512()) return false;
    run = fused_avx512::forecast_rows;
  } else if (name == "avx2") {
    if (!has_avx2()) return false;
    run = fused_avx2::forecast_rows;
  } else if (name == "sse2") {
    run = fused_sse2::forecast_rows;
  } else {
    throw std::invalid_argument("instruction set must be avx512, avx2 or sse2, got " + name);
  }
  check_map_requests(weights, maps, rows);
  run(weights, series, rows, forecast, maps);
  return true;
}

}  // namespace tsserve::model
