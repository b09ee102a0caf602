#pragma once
// Encode's tensors around the fused kernels (fused_encode.h), shared by FusedPatchTST and
// FusedITransformer: the input checked, the output and the per-layer weights laid out as
// the LibTorch encoder returns them (encoder.h's EncoderOutput).

#include <ATen/ATen.h>

#include <string>

#include "tsserve/model/encoder.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

// run(tokens, sequences, length, output, maps or null) fills [B, L, D] and, when asked,
// [B][layers][H][L][L].
template <typename Run>
EncoderOutput fused_encoder_output(const at::Tensor& tokens, int64_t d_model, int64_t layers,
                                   int64_t heads, bool need_attention, Run run) {
  if (!tokens.defined() || tokens.dim() != 3 || tokens.size(1) < 1 || tokens.size(2) != d_model ||
      tokens.scalar_type() != at::kFloat || !tokens.device().is_cpu()) {
    throw ModelError("the fused encoder expects float32 CPU tokens [batch, length >= 1, " +
                     std::to_string(d_model) + "], got " +
                     (tokens.defined() ? c10::str(tokens.sizes()) : std::string("none")));
  }
  const at::Tensor input = tokens.contiguous();
  const int64_t batch = input.size(0);
  const int64_t length = input.size(1);
  EncoderOutput out;
  out.output = at::empty({batch, length, d_model}, input.options());
  at::Tensor maps;
  if (need_attention) maps = at::empty({batch, layers, heads, length, length}, input.options());
  run(input.data_ptr<float>(), batch, length, out.output.data_ptr<float>(),
      need_attention ? maps.data_ptr<float>() : nullptr);
  for (int64_t layer = 0; need_attention && layer < layers; ++layer) {
    out.weights.push_back(maps.select(1, layer).contiguous());
  }
  return out;
}

}  // namespace tsserve::model
