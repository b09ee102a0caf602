// Both families' fused Encode (fused_encode.h) on the copy of the kernels the forecasts run
// (kernels/fused_kernel_table.h: the instruction set fused_isa.h chose), so one process
// runs one instruction set throughout.

#include <string>
#include <vector>

#include "kernels/fused_kernel_table.h"
#include "tsserve/model/fused_encode.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

namespace {

void check_length(int64_t length) {
  if (length < 1)
    throw ModelError("encode needs at least one token, got " + std::to_string(length));
}

void check_patchtst(const FusedWeights& weights, int64_t length) {
  check_length(length);
  const std::string reason = fused_patchtst_encode_unsupported_reason(weights, length);
  if (!reason.empty()) throw ModelError(reason);
}

// ITransformer maps: one request per sequence, every layer per head.
struct EveryLayerMaps {
  std::vector<int32_t> layers;
  std::vector<FusedRowMaps> requests;

  EveryLayerMaps(const FusedITransformerWeights& weights, int64_t sequences, int64_t length,
                 float* maps) {
    if (maps == nullptr) return;
    const auto count = static_cast<int32_t>(weights.layers.size());
    for (int32_t layer = 0; layer < count; ++layer) layers.push_back(layer);
    const int64_t floats = count * weights.n_heads * length * length;
    for (int64_t i = 0; i < sequences; ++i) {
      requests.push_back({maps + i * floats, layers.data(), count, false});
    }
  }
  const FusedRowMaps* get() const { return requests.empty() ? nullptr : requests.data(); }
};

}  // namespace

std::string fused_patchtst_encode_unsupported_reason(const FusedWeights& weights, int64_t length) {
  if (weights.attention == FusedAttention::kProbSparse && length != weights.patches) {
    return "the fused ProbSparse attention samples its keys for the model's " +
           std::to_string(weights.patches) + " patch tokens, not " + std::to_string(length);
  }
  return "";
}

void fused_patchtst_encode(const FusedWeights& weights, const float* tokens, int64_t sequences,
                           int64_t length, float* output, float* maps) {
  check_patchtst(weights, length);
  fused_kernel_table().patchtst_encode(weights, tokens, sequences, length, output, maps);
}

void fused_itransformer_encode(const FusedITransformerWeights& weights, const float* tokens,
                               int64_t sequences, int64_t length, float* output, float* maps) {
  check_length(length);
  const EveryLayerMaps requests(weights, sequences, length, maps);
  fused_kernel_table().itransformer_encode(weights, tokens, sequences, length, output,
                                           requests.get());
}

bool fused_patchtst_encode_with(const char* instruction_set, const FusedWeights& weights,
                                const float* tokens, int64_t sequences, int64_t length,
                                float* output, float* maps) {
  const FusedKernelTable* copy = fused_kernel_table_named(instruction_set);
  if (copy == nullptr) return false;
  check_patchtst(weights, length);
  copy->patchtst_encode(weights, tokens, sequences, length, output, maps);
  return true;
}

bool fused_itransformer_encode_with(const char* instruction_set,
                                    const FusedITransformerWeights& weights, const float* tokens,
                                    int64_t sequences, int64_t length, float* output, float* maps) {
  const FusedKernelTable* copy = fused_kernel_table_named(instruction_set);
  if (copy == nullptr) return false;
  check_length(length);
  const EveryLayerMaps requests(weights, sequences, length, maps);
  copy->itransformer_encode(weights, tokens, sequences, length, output, requests.get());
  return true;
}

}  // namespace tsserve::model
