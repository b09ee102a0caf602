// Runs the copy of the fused kernels' Encode (fused_encode.h) for the instruction set the
// forecasts run with (fused_isa.h: the CPU's widest, or TSSERVE_FUSED_ISA's), so
// one process runs one instruction set throughout.

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tsserve/model/fused_encode.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {

// One copy of each family's kernels per instruction set (model/kernels/*.cpp).
#define TSSERVE_DECLARE_ENCODE(isa)                                                         \
  namespace isa {                                                                           \
  void encode_tokens(const FusedWeights&, const float*, int64_t, int64_t, float*, float*);  \
  void itransformer_encode(const FusedITransformerWeights&, const float*, int64_t, int64_t, \
                           float*, const FusedRowMaps*);                                    \
  }
TSSERVE_DECLARE_ENCODE(fused_avx512)
TSSERVE_DECLARE_ENCODE(fused_avx2)
TSSERVE_DECLARE_ENCODE(fused_sse2)
#undef TSSERVE_DECLARE_ENCODE

namespace {

struct EncodeCopy {
  void (*patchtst)(const FusedWeights&, const float*, int64_t, int64_t, float*, float*);
  void (*itransformer)(const FusedITransformerWeights&, const float*, int64_t, int64_t, float*,
                       const FusedRowMaps*);
};

// The copy named (both pointers null when this CPU lacks its instruction set).
EncodeCopy encode_copy(const std::string& name) {
  EncodeCopy copy{};
  if (name == "avx512") {
    copy = {fused_avx512::encode_tokens, fused_avx512::itransformer_encode};
  } else if (name == "avx2") {
    copy = {fused_avx2::encode_tokens, fused_avx2::itransformer_encode};
  } else if (name == "sse2") {
    copy = {fused_sse2::encode_tokens, fused_sse2::itransformer_encode};
  } else {
    throw std::invalid_argument("instruction set must be avx512, avx2 or sse2, got " + name);
  }
  const std::vector<const char*> sets = fused_instruction_sets_on_this_cpu();
  const bool runs = std::any_of(sets.begin(), sets.end(), [&](const char* s) { return name == s; });
  return runs ? copy : EncodeCopy{};
}

const EncodeCopy& chosen_copy() {
  static const EncodeCopy chosen = encode_copy(fused_instruction_set());
  return chosen;
}

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
  chosen_copy().patchtst(weights, tokens, sequences, length, output, maps);
}

void fused_itransformer_encode(const FusedITransformerWeights& weights, const float* tokens,
                               int64_t sequences, int64_t length, float* output, float* maps) {
  check_length(length);
  const EveryLayerMaps requests(weights, sequences, length, maps);
  chosen_copy().itransformer(weights, tokens, sequences, length, output, requests.get());
}

bool fused_patchtst_encode_with(const char* instruction_set, const FusedWeights& weights,
                                const float* tokens, int64_t sequences, int64_t length,
                                float* output, float* maps) {
  const EncodeCopy copy = encode_copy(instruction_set);
  if (copy.patchtst == nullptr) return false;
  check_patchtst(weights, length);
  copy.patchtst(weights, tokens, sequences, length, output, maps);
  return true;
}

bool fused_itransformer_encode_with(const char* instruction_set,
                                    const FusedITransformerWeights& weights, const float* tokens,
                                    int64_t sequences, int64_t length, float* output, float* maps) {
  const EncodeCopy copy = encode_copy(instruction_set);
  if (copy.itransformer == nullptr) return false;
  check_length(length);
  const EveryLayerMaps requests(weights, sequences, length, maps);
  copy.itransformer(weights, tokens, sequences, length, output, requests.get());
  return true;
}

}  // namespace tsserve::model
