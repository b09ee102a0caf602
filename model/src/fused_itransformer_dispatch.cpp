// Runs the copy of model/kernels/fused_itransformer_kernels.cpp for the instruction set
// the PatchTST kernels run with (fused_isa.h: the CPU's widest, or
// TSSERVE_FUSED_ISA's), so one process runs one instruction set throughout.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer_forward.h"

namespace tsserve::model {

// One copy of model/kernels/fused_itransformer_kernels.cpp per instruction set.
namespace fused_avx512 {
void itransformer_forecast(const FusedITransformerWeights&, const float*, const float*, int64_t,
                           int64_t, float*, const FusedRowMaps*);
}
namespace fused_avx2 {
void itransformer_forecast(const FusedITransformerWeights&, const float*, const float*, int64_t,
                           int64_t, float*, const FusedRowMaps*);
}
namespace fused_sse2 {
void itransformer_forecast(const FusedITransformerWeights&, const float*, const float*, int64_t,
                           int64_t, float*, const FusedRowMaps*);
}

namespace {

using ITransformerForecast = void (*)(const FusedITransformerWeights&, const float*, const float*,
                                      int64_t, int64_t, float*, const FusedRowMaps*);

// The copy named (nullptr when this CPU lacks its instruction set).
ITransformerForecast itransformer_copy(const std::string& name) {
  ITransformerForecast copy = nullptr;
  if (name == "avx512") {
    copy = fused_avx512::itransformer_forecast;
  } else if (name == "avx2") {
    copy = fused_avx2::itransformer_forecast;
  } else if (name == "sse2") {
    copy = fused_sse2::itransformer_forecast;
  } else {
    throw std::invalid_argument("instruction set must be avx512, avx2 or sse2, got " + name);
  }
  const std::vector<const char*> sets = fused_instruction_sets_on_this_cpu();
  const bool runs = std::any_of(sets.begin(), sets.end(), [&](const char* s) { return name == s; });
  return runs ? copy : nullptr;
}

}  // namespace

void fused_itransformer_forecast(const FusedITransformerWeights& weights, const float* series,
                                 const float* calendar, int64_t samples, int64_t variables,
                                 float* forecast, const FusedRowMaps* maps) {
  // Chosen once per process (the bitwise batch invariance relies on one copy).
  static const ITransformerForecast chosen = itransformer_copy(fused_instruction_set());
  chosen(weights, series, calendar, samples, variables, forecast, maps);
}

bool fused_itransformer_forecast_with(const char* instruction_set,
                                      const FusedITransformerWeights& weights, const float* series,
                                      const float* calendar, int64_t samples, int64_t variables,
                                      float* forecast, const FusedRowMaps* maps) {
  const ITransformerForecast copy = itransformer_copy(instruction_set);
  if (!copy) return false;
  copy(weights, series, calendar, samples, variables, forecast, maps);
  return true;
}

}  // namespace tsserve::model
