#pragma once
// The weights of a PatchTST forward, packed once for the fused CPU kernels
// (fused_forward.h). Plain floats, no LibTorch: the kernels see only this.
//
// Layout. The kernels keep a row's activations transposed, [feature][position], with the
// position axis padded to `padded_patches` (a multiple of 16 floats) so that every
// vector lane is a patch position and every reduction runs over one scalar index in a
// fixed order. Projection weights therefore stay as PyTorch stores them, [out][in]
// row-major: each weight is the broadcast (scalar) operand of a small GEMM.

#include <cstdint>
#include <vector>

namespace tsserve::model {

enum class FusedActivation { kRelu, kGelu };
enum class FusedFinalNorm { kNone, kLayer, kBatch };
enum class FusedAttention { kFull, kProbSparse };

struct FusedLayerWeights {
  std::vector<float> qkv_weight;                // [3D][D]: query, key, value projections stacked
  std::vector<float> qkv_bias;                  // [3D]
  std::vector<float> out_weight;                // [D][D]
  std::vector<float> out_bias;                  // [D]
  std::vector<float> ff1_weight;                // [D_ff][D] (conv1, kernel 1)
  std::vector<float> ff1_bias;                  // [D_ff]
  std::vector<float> ff2_weight;                // [D][D_ff] (conv2, kernel 1)
  std::vector<float> ff2_bias;                  // [D]
  std::vector<float> norm1_weight, norm1_bias;  // [D]
  std::vector<float> norm2_weight, norm2_bias;  // [D]
};

struct FusedWeights {
  int64_t seq_len = 0;
  int64_t pred_len = 0;
  int64_t d_model = 0;
  int64_t n_heads = 0;
  int64_t d_ff = 0;
  int64_t patch_len = 0;
  int64_t stride = 0;
  int64_t patches = 0;         // P = (seq_len - patch_len) / stride + 2
  int64_t padded_patches = 0;  // P rounded up to a multiple of kFusedPad
  int64_t padded_pred = 0;     // pred_len rounded up to a multiple of kFusedPad
  FusedActivation activation = FusedActivation::kGelu;
  FusedFinalNorm final_norm = FusedFinalNorm::kNone;

  FusedAttention attention = FusedAttention::kFull;
  // ProbSparse only (prob_attention.h): u queries per head get full attention, chosen by
  // a measure over U_part sampled keys each; the sample is prob_sample_index() of the
  // model's seed, the same for every row and head.
  int64_t prob_active = 0;                 // u
  int64_t prob_samples = 0;                // U_part
  std::vector<int32_t> prob_sample_index;  // [patches][prob_samples], key positions
  bool prob_tslib_layout = false;          // the context read back as TSLib's view

  std::vector<float> embed_weight;         // [D][patch_len], no bias
  std::vector<float> position_transposed;  // [D][padded_patches], zero padded
  std::vector<FusedLayerWeights> layers;
  // Final norm: LayerNorm weight/bias, or BatchNorm folded to y = x * scale + shift.
  std::vector<float> final_weight;            // [D]
  std::vector<float> final_bias;              // [D]
  std::vector<float> head_weight_transposed;  // [D*P][padded_pred], input index d*P + p
  std::vector<float> head_bias;               // [padded_pred], zero padded
};

// Every padded axis is a multiple of this many floats (one AVX-512 vector, two AVX2).
constexpr int64_t kFusedPad = 16;

inline int64_t fused_round_up(int64_t n) { return (n + kFusedPad - 1) / kFusedPad * kFusedPad; }

}  // namespace tsserve::model
