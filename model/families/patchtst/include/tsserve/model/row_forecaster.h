#pragma once
// "A forecaster" for the serving path: a loaded PatchTST run either by its LibTorch
// modules or by the fused CPU kernels (fused_patchtst.h), chosen once at start-up
// (the server's --cpu-kernels flag maps onto CpuKernels).
//
// With CpuKernels::kFused, forecasts come from the fused kernels whenever they can:
// - a config they do not cover (fused_unsupported_reason) or a model not on the CPU falls
//   back to the LibTorch modules for every call; fallback_reason() says why;
// - a series that is not float32 on the CPU goes to the LibTorch modules.
// Attention maps come from the path that forecasts. On the fused kernels they are the
// softmax weights of the forecast's own pass, copied out for the rows that asked: no
// second forward through the LibTorch modules (which made a batch with maps cost several
// times one without), and within 1e-6 of the modules' maps. A row's forecast does not depend on
// whether maps were asked for, on either path (the server batches calls that ask with
// calls that do not, and promises each row the answer it would get alone): the fused
// kernels never read the maps they write, and the LibTorch path (CpuKernels::kTorch, the
// reference, or a fallback) forecasts every row without maps and computes the maps in a
// second pass over the rows that asked.
// The fused path leaves RowForecast::encoder_output undefined.
//
// Build it after the model is on its device and in eval mode: the fused path copies the
// weights once, here.

#include <optional>
#include <string>

#include "tsserve/model/cpu_kernels.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/row_attention_maps.h"

namespace tsserve::model {

class RowForecaster {
 public:
  RowForecaster(PatchTST model, CpuKernels kernels);

  // series [R, seq_len] -> RowForecast, as PatchTSTImpl::forecast_rows (with
  // need_attention, every layer's per-head map of every row).
  RowForecast forecast_rows(const at::Tensor& series, bool need_attention = false) const;

  // series [R, seq_len] and one request per row -> the forecast of every row and each
  // row's maps as its request asks (row_attention_maps.h): the call for a batch that
  // mixes rows asking for maps with rows that do not, so no row pays for maps it did not
  // ask for and a row's forecast is the same whatever the others asked. Outputs are on
  // the CPU for the fused path, on the model's device otherwise. Throws ModelError for a
  // count of requests other than R or a layer outside [0, e_layers).
  ForecastWithRowMaps forecast_rows_with_maps(const at::Tensor& series,
                                              const std::vector<RowMapRequest>& requests) const;

  // True when forecasts (and their attention maps) run on the fused kernels.
  bool uses_fused_kernels() const { return fused_.has_value(); }
  // The fused kernels' model (its Encode too), or null on the LibTorch path.
  const FusedPatchTST* fused_model() const { return fused_ ? &*fused_ : nullptr; }
  // Why kFused was asked for and the LibTorch modules run instead ("" otherwise).
  const std::string& fallback_reason() const { return fallback_reason_; }
  const PatchTST& module() const { return model_; }

 private:
  bool runs_fused(const at::Tensor& series) const;
  // The LibTorch path of forecast_rows_with_maps.
  ForecastWithRowMaps module_forecast_with_maps(const at::Tensor& series,
                                                const std::vector<RowMapRequest>& requests) const;

  PatchTST model_;
  std::optional<FusedPatchTST> fused_;
  std::string fallback_reason_;
};

}  // namespace tsserve::model
