#pragma once
// The LibTorch side of the fused CPU forward: packs a loaded PatchTST's weights once
// (fused_weights.h) and runs fused_forward.h on [rows, seq_len] tensors.
//
// Covered: Full and ProbSparse attention (both context layouts), gelu or relu, final
// LayerNorm, BatchNorm or none, any d_model/n_heads/d_ff/patching the config validates.
// fused_unsupported_reason() names anything else (row_forecaster.h then falls back to
// the LibTorch path on its own). Attention maps come from the same pass, for the rows
// that ask (fused_row_maps.h). Encode runs the same encoder layers on given tokens.

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/fused_weights.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/row_attention_maps.h"

namespace tsserve::model {

// "" when the fused kernels cover this config, otherwise why not (one sentence).
std::string fused_unsupported_reason(const ModelConfig& config);

// Copies (and transposes/folds where the kernels want it) the module's weights.
// Throws ModelError when fused_unsupported_reason(model.config()) is not empty.
FusedWeights pack_fused_weights(const PatchTSTImpl& model);

class FusedPatchTST {
 public:
  explicit FusedPatchTST(const PatchTSTImpl& model);

  // series [R, seq_len] float32 on the CPU -> forecast [R, pred_len], bitwise independent
  // of the other rows. Throws ModelError naming the expected shape otherwise.
  // maps: null, or R requests whose destinations the caller owns (fused_forward.h).
  at::Tensor forecast_rows(const at::Tensor& series, const FusedRowMaps* maps = nullptr) const;

  // The same forecast, and each row's maps as `requests` (one per row) asks: the
  // softmax weights of the same pass, so the forecast is bitwise the one without maps.
  // Throws ModelError for a count of requests other than R or a layer the model lacks.
  ForecastWithRowMaps forecast_rows_with_maps(const at::Tensor& series,
                                              const std::vector<RowMapRequest>& requests) const;

  // Encode (PatchTSTImpl::encode without a mask) on the fused kernels (fused_encode.h):
  // tokens [B, L, d_model] float32 on the CPU -> output [B, L, D] after the final norm, and
  // per layer [B, H, L, L] softmax weights when need_attention. Each sequence's output is
  // bitwise independent of the others. Throws ModelError for other shapes, or a length
  // encode_unsupported_reason refuses.
  EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;
  // "" when encode covers `length` tokens (ProbSparse: only the model's patch count).
  std::string encode_unsupported_reason(int64_t length) const;

  const FusedWeights& weights() const { return weights_; }

 private:
  FusedWeights weights_;
};

}  // namespace tsserve::model
