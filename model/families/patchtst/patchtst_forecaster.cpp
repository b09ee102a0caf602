#include "tsserve/model/patchtst_forecaster.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "tsserve/model/fused_isa.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/placement.h"

namespace tsserve::model {
PatchTSTForecaster::PatchTSTForecaster(PatchTST model, const ForecasterOptions& options)
    : PlacedForecaster(std::move(model), options),
      RowForecaster(PlacedForecaster::model_, options.cpu_kernels) {
  kernels_.fallback_reason = fallback_reason();
  kernels_.name = uses_fused_kernels() ? std::string("fused-") + fused_instruction_set() : "torch";

  const auto& config = model_->config();
  c10::InferenceMode guard;
  std::vector<int32_t> every_layer;
  for (int32_t layer = 0; layer < config.e_layers; ++layer) every_layer.push_back(layer);
  for (int64_t rows : {int64_t{1}, std::max<int64_t>(1, options.warm_up_rows)}) {
    forecast(at::zeros({rows, config.seq_len}));
    forecast_with_maps(at::zeros({rows, config.seq_len}),
                       std::vector<RowMapRequest>(static_cast<size_t>(rows), {every_layer, false}));
  }
  encode(at::zeros({1, config.patch_count(), config.d_model}), true);
}

at::Tensor PatchTSTForecaster::forecast(const at::Tensor& rows) const {
  c10::InferenceMode guard;
  // The fused kernels read the CPU rows in place; the LibTorch path moves them over.
  const at::Tensor input = uses_fused_kernels() ? rows : rows.to(device());
  return to_cpu(forecast_rows(input).forecast);
}

ForecastWithRowMaps PatchTSTForecaster::forecast_with_maps(
    const at::Tensor& rows, const std::vector<RowMapRequest>& requests) const {
  c10::InferenceMode guard;
  const at::Tensor input = uses_fused_kernels() ? rows : rows.to(device());
  ForecastWithRowMaps out = forecast_rows_with_maps(input, requests);
  out.forecast = to_cpu(out.forecast);
  for (at::Tensor& maps : out.maps) {
    if (maps.defined()) maps = to_cpu(maps);
  }
  return out;
}

at::Tensor PatchTSTForecaster::forecast_with_maps_into(
    const at::Tensor& rows, const std::vector<FusedRowMaps>& maps) const {
  c10::InferenceMode guard;
  const FusedPatchTST* fused = fused_model();
  if (fused == nullptr) throw ModelError("maps in place need the fused kernels");
  if (static_cast<int64_t>(maps.size()) != rows.size(0)) {
    throw ModelError("attention maps: " + std::to_string(maps.size()) + " row requests for " +
                     std::to_string(rows.size(0)) + " rows");
  }
  return fused->forecast_rows(rows, maps.data());
}

EncoderOutput PatchTSTForecaster::encode(const at::Tensor& tokens, bool need_attention) const {
  c10::InferenceMode guard;
  const FusedPatchTST* fused = fused_model();
  if (fused != nullptr && tokens.dim() == 3 &&
      fused->encode_unsupported_reason(tokens.size(1)).empty()) {
    return fused->encode(tokens, need_attention);
  }
  return encoder_output_on_cpu(model_->encode(tokens.to(device()), {}, need_attention));
}

}  // namespace tsserve::model
