#pragma once
// The LibTorch side of the fused TimeXer forward: packs a loaded TimeXer's weights once
// (fused_timexer_weights.h) and runs fused_timexer_forward.h on [samples, variables,
// seq_len] tensors. Covers every config TimeXer's rules accept (Full attention, gelu or
// relu, "M"/"MS"/"S", with or without calendar tokens and use_norm). Attention maps come
// from forecast_samples_with_maps, in the forecast's own pass.

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "tsserve/model/fused_timexer_weights.h"
#include "tsserve/model/row_attention_maps.h"
#include "tsserve/model/timexer.h"

namespace tsserve::model {

// One sample's maps request: the encoder layers (in the order they come back; empty for
// none) and whether to average over heads (RowMapRequest's fields).
using TimeXerMapRequest = RowMapRequest;

// A forecast and, per sample, the maps it asked for (undefined for a sample that asked for
// none): self_maps[s] [layers, K, H, L, L] ([layers, K, L, L] averaged), cross_maps[s]
// [layers, H, K, V] ([layers, K, V] averaged): the self-attention over each endogenous
// variable's tokens, and the global tokens' cross-attention over the covariate tokens.
struct TimeXerForecastWithMaps {
  at::Tensor forecast;  // [S, K, pred_len]
  std::vector<at::Tensor> self_maps;
  std::vector<at::Tensor> cross_maps;
};

// Copies and packs the module's weights.
FusedTimeXerWeights pack_fused_timexer_weights(const TimeXerImpl& model);

class FusedTimeXer {
 public:
  explicit FusedTimeXer(const TimeXerImpl& model);

  // series [S, enc_in, seq_len] float32 on the CPU; calendar [S, C, seq_len] float32 when
  // the model has C > 0 calendar tokens, else undefined -> forecast [S, K, pred_len], each
  // sample's bitwise independent of the others. Throws ModelError naming the expected shapes.
  at::Tensor forecast_samples(const at::Tensor& series, const at::Tensor& calendar) const;

  // forecast_samples, plus the maps each sample asks for (one request per sample; layers
  // in [0, e_layers)), written in the same pass: the forecast is bitwise forecast_samples'.
  // The maps are the softmax weights TimeXerImpl::forecast_samples(..., true) holds (per
  // head), or their mean over heads. Throws ModelError for a wrong request count or an
  // out-of-range layer.
  TimeXerForecastWithMaps forecast_samples_with_maps(
      const at::Tensor& series, const at::Tensor& calendar,
      const std::vector<TimeXerMapRequest>& requests) const;

  const FusedTimeXerWeights& weights() const { return weights_; }

 private:
  // Checks the shapes; returns the contiguous series and calendar (undefined without C).
  std::pair<at::Tensor, at::Tensor> checked_inputs(const at::Tensor& series,
                                                   const at::Tensor& calendar) const;

  FusedTimeXerWeights weights_;
};

}  // namespace tsserve::model
