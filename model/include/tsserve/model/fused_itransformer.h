#pragma once
// The LibTorch side of the fused iTransformer forward: packs a loaded ITransformer's
// weights once (fused_itransformer_weights.h) and runs fused_itransformer_forward.h on
// [samples, variables, seq_len] tensors.
//
// Covered: Full attention, gelu or relu, with or without calendar tokens, any
// d_model/n_heads/d_ff/seq_len/pred_len the config validates and any N >= 1 (the module
// always normalises its input, TSLib's use_norm = 1, and so does this forward).
// fused_itransformer_unsupported_reason() names anything else (ProbSparse attention).
// Attention maps and the encoder output are not produced here: a call that needs them
// runs the LibTorch module.

#include <ATen/core/Tensor.h>

#include <string>

#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/itransformer.h"

namespace tsserve::model {

// "" when the fused kernels cover this config, otherwise why not (one sentence).
std::string fused_itransformer_unsupported_reason(const ModelConfig& config);

// Copies and packs the module's weights. Throws ModelError when
// fused_itransformer_unsupported_reason(model.config()) is not empty.
FusedITransformerWeights pack_fused_itransformer_weights(const ITransformerImpl& model);

class FusedITransformer {
 public:
  explicit FusedITransformer(const ITransformerImpl& model);

  // series [S, N, seq_len] float32 on the CPU (N >= 1); calendar [S, C, seq_len] float32
  // when the model has C > 0 calendar tokens (ITransformerImpl::calendar_rows of each
  // sample's timestamps), else undefined -> forecast [S, N, pred_len], each sample's
  // bitwise independent of the others. Throws ModelError naming the expected shapes.
  at::Tensor forecast_samples(const at::Tensor& series, const at::Tensor& calendar) const;

  const FusedITransformerWeights& weights() const { return weights_; }

 private:
  FusedITransformerWeights weights_;
};

}  // namespace tsserve::model
