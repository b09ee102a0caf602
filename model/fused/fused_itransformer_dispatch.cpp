// The iTransformer's fused forecast (fused_itransformer_forward.h) on the copy of the kernels
// this process runs (kernels/fused_kernel_table.h: the instruction set fused_isa.h chose,
// the CPU's widest or TSSERVE_FUSED_ISA's), so one process runs one instruction set
// throughout.

#include "kernels/fused_kernel_table.h"
#include "tsserve/model/fused_itransformer_forward.h"

namespace tsserve::model {

void fused_itransformer_forecast(const FusedITransformerWeights& weights, const float* series,
                                 const float* calendar, int64_t samples, int64_t variables,
                                 float* forecast, const FusedRowMaps* maps) {
  fused_kernel_table().itransformer_forecast(weights, series, calendar, samples, variables,
                                             forecast, maps);
}

bool fused_itransformer_forecast_with(const char* instruction_set,
                                      const FusedITransformerWeights& weights, const float* series,
                                      const float* calendar, int64_t samples, int64_t variables,
                                      float* forecast, const FusedRowMaps* maps) {
  const FusedKernelTable* copy = fused_kernel_table_named(instruction_set);
  if (copy == nullptr) return false;
  copy->itransformer_forecast(weights, series, calendar, samples, variables, forecast, maps);
  return true;
}

}  // namespace tsserve::model
