#pragma once
// Runs a loaded iTransformer on its device: PatchTSTForecaster's counterpart for the second
// family, with the same contract (CPU tensors in and out, inference mode, concurrent
// calls from several batcher workers, LibTorch's exceptions let through).
//
// Its unit is a sample (N variables that attend to each other), not a row: forecast()
// takes samples of equal N, which the server's batch processor groups.
//
// Forecasts run on the fused CPU forward (fused_itransformer.h) when
// ForecasterOptions::cpu_kernels asks for it and it covers the model (Full attention, on the
// CPU), else on the LibTorch module; kernels() says which and why. Attention maps come
// from the same path, in the forecast's own pass on the fused kernels; so does Encode. A sample's
// forecast is the same whether or not maps were asked for, and whatever else shares its batch.

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/placed_forecaster.h"
#include "tsserve/model/row_attention_maps.h"

namespace tsserve::model {

// What serving asks of an iTransformer's config beyond loading it: the variables it was
// trained on (enc_in >= 1), which every request must carry, unless any_variable_count.
// Throws ModelError naming `config_origin` otherwise.
void check_itransformer_servable(const ModelConfig& config, const std::string& config_origin);

class ITransformerForecaster final : public PlacedForecaster<ITransformer> {
 public:
  // Moves `model` to the device, sets the threads and warms up (a sample of enc_in
  // variables, or 7 with any_variable_count, alone and warm_up_rows / N of them, with
  // attention; encode at that many tokens). Throws ModelError.
  ITransformerForecaster(ITransformer model, const ForecasterOptions& options);

  // series [S, N, seq_len], calendar [S, C, seq_len] (undefined when C = 0), float32 CPU
  // -> forecast [S, N, pred_len] CPU in the series' units.
  at::Tensor forecast(const at::Tensor& series, const at::Tensor& calendar) const;

  // As forecast(), with one map request per sample (row_attention_maps.h): the
  // forecast of every sample and each sample's maps where it asked ([layers, H, N', N'],
  // or [layers, N', N'] averaged over heads), on the CPU. On the fused kernels the maps are
  // the forecast's own softmax weights, written in the same pass.
  ForecastWithRowMaps forecast_with_maps(const at::Tensor& series, const at::Tensor& calendar,
                                         const std::vector<RowMapRequest>& requests) const;

  // tokens [B, L, d_model] float32 CPU -> the encoder alone, as PatchTSTForecaster::encode.
  EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;

 private:
  // Built after the model is on its device; empty when the LibTorch module forecasts.
  std::optional<FusedITransformer> fused_;
};

}  // namespace tsserve::model
