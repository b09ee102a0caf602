#include "tsserve/model/row_forecaster.h"

#include <ATen/ATen.h>

#include "tsserve/model/model_error.h"

namespace tsserve::model {

RowForecaster::RowForecaster(PatchTST model, CpuKernels kernels) : model_(std::move(model)) {
  if (kernels != CpuKernels::kFused) return;
  fallback_reason_ = fused_unsupported_reason(model_->config());
  if (fallback_reason_.empty() && !model_->head->linear->weight.device().is_cpu()) {
    fallback_reason_ = "the fused kernels run on the CPU and the model is on " +
                       model_->head->linear->weight.device().str();
  }
  if (fallback_reason_.empty()) fused_.emplace(*model_);
}

RowForecast RowForecaster::forecast_rows(const at::Tensor& series, bool need_attention) const {
  const bool fused_input = series.device().is_cpu() && series.scalar_type() == at::kFloat;
  if (!fused_ || !fused_input) {
    // The module has no mutable state in eval mode (patchtst.h), so const callers may share it.
    return model_.ptr()->forecast_rows(series, need_attention);
  }
  RowForecast out;
  if (need_attention) out = model_.ptr()->forecast_rows(series, true);
  out.forecast = fused_->forecast_rows(series);
  out.encoder_output = at::Tensor();
  return out;
}

}  // namespace tsserve::model
