#pragma once
// The weights of a TimeXer forward (timexer.h), packed once at load for the fused CPU
// kernels (fused_timexer_forward.h). Plain floats, no LibTorch.
//
// Layout as the iTransformer's (fused_itransformer_weights.h): activations row-major, one
// row per token with the feature axis padded to kFusedPad, every Linear packed as the
// panel GEMM's right-hand operand, so each output element is one sum over its inputs in
// ascending order whatever the row count.

#include <cstdint>
#include <vector>

#include "tsserve/model/fused_aligned.h"
#include "tsserve/model/fused_packed_linear.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

struct FusedTimeXerAttention {
  FusedPackedLinear query, key, value;  // d_model -> d_model each
  FusedPackedLinear out;                // d_model -> d_model
};

struct FusedTimeXerLayer {
  FusedTimeXerAttention self_attention;   // over an endogenous variable's tokens
  FusedTimeXerAttention cross_attention;  // its global token over the covariate tokens
  FusedPackedLinear ff1;                  // conv1: d_model -> d_ff
  FusedPackedLinear ff2;                  // conv2: d_ff -> d_model
  FusedFloats norm1_weight, norm1_bias;   // [d_model] each
  FusedFloats norm2_weight, norm2_bias;
  FusedFloats norm3_weight, norm3_bias;
};

struct FusedTimeXerWeights {
  int64_t seq_len = 0;
  int64_t pred_len = 0;
  int64_t d_model = 0;
  int64_t n_heads = 0;
  int64_t d_ff = 0;
  int64_t patch_len = 0;
  int64_t patches = 0;          // P = seq_len / patch_len (non-overlapping; the rest unread)
  int64_t variables = 0;        // N: a sample's variables (enc_in)
  bool every_variable = false;  // "M": every variable endogenous; else the last alone
  int64_t calendar_tokens = 0;  // C: the calendar features, covariate tokens after the variables
  bool use_norm = true;
  FusedActivation activation = FusedActivation::kGelu;

  // K: the endogenous variables of a sample (patched and forecast).
  int64_t endogenous() const { return every_variable ? variables : 1; }
  // The first of them: 0 for "M", else the last variable (the target).
  int64_t first_endogenous() const { return every_variable ? 0 : variables - 1; }
  // The variables that are also covariate tokens: every one for "M", else all but the last.
  int64_t covariate_variables() const { return every_variable ? variables : variables - 1; }
  // V: the covariate tokens of a sample (the covariate variables, then the calendar's).
  int64_t covariates() const { return covariate_variables() + calendar_tokens; }
  int64_t tokens() const { return patches + 1; }  // L: an endogenous variable's tokens

  FusedPackedLinear patch_embedding;      // en_embedding.value_embedding: patch_len -> d_model
  FusedFloats positions;                  // [P][d_model]: en_embedding.position_embedding.pe
  FusedFloats global_tokens;              // [K][d_model]: en_embedding.glb_token
  FusedPackedLinear covariate_embedding;  // ex_embedding.value_embedding: seq_len -> d_model
  std::vector<FusedTimeXerLayer> layers;
  FusedFloats final_weight, final_bias;  // encoder.norm (LayerNorm) [d_model]
  // head.linear over a variable's L token rows as they lie in memory ([L][padded d_model]):
  // TSLib's weight [F][D * L] (D-major) with its columns reordered to l * padded_D + d,
  // zeros at the padding.
  FusedPackedLinear head;
};

}  // namespace tsserve::model
