#pragma once
// The weights of an iTransformer forward (itransformer.h), packed once at load for the
// fused CPU kernels (fused_itransformer_forward.h). Plain floats, no LibTorch.
//
// Layout. The kernels keep activations row-major, one row per token, [token][feature]
// with the feature axis padded to a multiple of kFusedPad: the samples' tokens stack
// along the GEMMs' M dimension, vector lanes run over output features, and every output
// element is one sum over the input features in ascending order, whatever the row count.
// Every Linear is therefore packed as the GEMM's right-hand operand (fused_packed_linear.h).

#include <cstdint>
#include <vector>

#include "tsserve/model/fused_aligned.h"
#include "tsserve/model/fused_packed_linear.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

struct FusedITransformerLayer {
  FusedPackedLinear query, key, value;   // d_model -> d_model each
  FusedPackedLinear out;                 // d_model -> d_model
  FusedPackedLinear ff1;                 // conv1: d_model -> d_ff
  FusedPackedLinear ff2;                 // conv2: d_ff -> d_model
  FusedFloats norm1_weight, norm1_bias;  // [d_model]
  FusedFloats norm2_weight, norm2_bias;  // [d_model]
};

struct FusedITransformerWeights {
  int64_t seq_len = 0;
  int64_t pred_len = 0;
  int64_t d_model = 0;
  int64_t n_heads = 0;
  int64_t d_ff = 0;
  int64_t calendar_tokens = 0;  // C: the calendar features embedded as tokens after the N
  FusedActivation activation = FusedActivation::kGelu;

  FusedPackedLinear embedding;  // enc_embedding.value_embedding: seq_len -> d_model
  std::vector<FusedITransformerLayer> layers;
  FusedFloats final_weight, final_bias;  // encoder.norm (LayerNorm) [d_model]
  FusedPackedLinear projection;          // d_model -> pred_len
};

}  // namespace tsserve::model
