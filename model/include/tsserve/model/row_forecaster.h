#pragma once
// "A forecaster" for the serving path: a loaded PatchTST run either by its LibTorch
// modules or by the fused CPU kernels (fused_patchtst.h), chosen once at start-up
// (the server's --cpu-kernels flag maps onto CpuKernels).
//
// With CpuKernels::kFused, forecasts come from the fused kernels whenever they can:
// - a config they do not cover (ProbSparse attention) or a model not on the CPU falls
//   back to the LibTorch modules for every call; fallback_reason() says why;
// - a series that is not float32 on the CPU goes to the LibTorch modules.
// Attention maps come from the LibTorch modules (the fused path computes none), but the
// forecast of a call that asks for them still comes from the fused kernels: a row's
// forecast does not depend on whether maps were asked for (the server batches calls that
// ask with calls that do not, and promises each row the answer it would get alone).
// The fused path leaves RowForecast::encoder_output undefined.
//
// Build it after the model is on its device and in eval mode: the fused path copies the
// weights once, here.

#include <optional>
#include <string>

#include "tsserve/model/cpu_kernels.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/patchtst.h"

namespace tsserve::model {

class RowForecaster {
 public:
  RowForecaster(PatchTST model, CpuKernels kernels);

  // series [R, seq_len] -> RowForecast, as PatchTSTImpl::forecast_rows.
  RowForecast forecast_rows(const at::Tensor& series, bool need_attention = false) const;

  // True when forecasts without attention maps run on the fused kernels.
  bool uses_fused_kernels() const { return fused_.has_value(); }
  // Why kFused was asked for and the LibTorch modules run instead ("" otherwise).
  const std::string& fallback_reason() const { return fallback_reason_; }
  const PatchTST& module() const { return model_; }

 private:
  PatchTST model_;
  std::optional<FusedPatchTST> fused_;
  std::string fallback_reason_;
};

}  // namespace tsserve::model
