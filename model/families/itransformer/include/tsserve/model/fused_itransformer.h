#pragma once
// The LibTorch side of the fused iTransformer forward: packs a loaded ITransformer's
// weights once (fused_itransformer_weights.h) and runs fused_itransformer_forward.h on
// [samples, variables, seq_len] tensors.
//
// Covered: Full attention, gelu or relu, with or without calendar tokens, any
// d_model/n_heads/d_ff/seq_len/pred_len the config validates and any N >= 1 (the module
// always normalises its input, TSLib's use_norm = 1, and so does this forward).
// fused_itransformer_unsupported_reason() names anything else (ProbSparse attention).
// Attention maps come from forecast_samples_with_maps, in the forecast's own pass; Encode
// runs the same encoder layers on given tokens.

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/row_attention_maps.h"

namespace tsserve::model {

// "" when the fused kernels cover this config, otherwise why not (one sentence).
std::string fused_itransformer_unsupported_reason(const ModelConfig& config);

// Copies and packs the module's weights. Throws ModelError when
// fused_itransformer_unsupported_reason(model.config()) is not empty.
FusedITransformerWeights pack_fused_itransformer_weights(const ITransformerImpl& model);

// forecast [S, N, pred_len]; maps: one entry per sample, [layers, H, N', N'] or
// [layers, N', N'] averaged over heads (N' = N + C: the variables' tokens, then the
// calendar tokens), undefined for a sample that asked for none.
using SampleForecastWithMaps = ForecastWithRowMaps;

class FusedITransformer {
 public:
  explicit FusedITransformer(const ITransformerImpl& model);

  // series [S, N, seq_len] float32 on the CPU (N >= 1); calendar [S, C, seq_len] float32
  // when the model has C > 0 calendar tokens (ITransformerImpl::calendar_rows of each
  // sample's timestamps), else undefined -> forecast [S, N, pred_len], each sample's
  // bitwise independent of the others. Throws ModelError naming the expected shapes.
  at::Tensor forecast_samples(const at::Tensor& series, const at::Tensor& calendar) const;

  // forecast_samples, plus the attention maps each sample asks for (one request per
  // sample; layers in [0, e_layers), in the order they come back), written in the same
  // pass: the forecast is bitwise forecast_samples'. The maps are the softmax weights
  // ITransformerImpl::forecast_samples(series, calendar, true).attention holds (per
  // head), or their mean over heads. Throws ModelError for a wrong request count or an
  // out-of-range layer, and as forecast_samples for wrong shapes.
  SampleForecastWithMaps forecast_samples_with_maps(
      const at::Tensor& series, const at::Tensor& calendar,
      const std::vector<RowMapRequest>& requests) const;

  // Encode (the encoder and its final norm on given tokens, as ITransformerForecaster's
  // LibTorch path runs them) on the fused kernels (fused_encode.h): tokens [B, L, d_model]
  // float32 on the CPU -> output [B, L, D], and per layer [B, H, L, L] softmax weights
  // when need_attention. Each sequence's output is bitwise independent of the others.
  // Throws ModelError for other shapes.
  EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;

  const FusedITransformerWeights& weights() const { return weights_; }

 private:
  // Checks the shapes; returns the contiguous series and calendar (undefined without C).
  std::pair<at::Tensor, at::Tensor> checked_inputs(const at::Tensor& series,
                                                   const at::Tensor& calendar) const;

  FusedITransformerWeights weights_;
};

}  // namespace tsserve::model
