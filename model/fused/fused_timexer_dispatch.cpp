// TimeXer's fused forecast (fused_timexer_forward.h) on the copy of the kernels this
// process runs (kernels/fused_kernel_table.h), so one process runs one instruction set
// throughout.

#include "kernels/fused_kernel_table.h"
#include "tsserve/model/fused_timexer_forward.h"

namespace tsserve::model {

void fused_timexer_forecast(const FusedTimeXerWeights& weights, const float* series,
                            const float* calendar, int64_t samples, float* forecast,
                            const FusedTimeXerMaps* maps) {
  fused_kernel_table().timexer_forecast(weights, series, calendar, samples, forecast, maps);
}

bool fused_timexer_forecast_with(const char* instruction_set, const FusedTimeXerWeights& weights,
                                 const float* series, const float* calendar, int64_t samples,
                                 float* forecast, const FusedTimeXerMaps* maps) {
  const FusedKernelTable* copy = fused_kernel_table_named(instruction_set);
  if (copy == nullptr) return false;
  copy->timexer_forecast(weights, series, calendar, samples, forecast, maps);
  return true;
}

}  // namespace tsserve::model
