#include "tsserve/model/fused_packed_linear.h"

namespace tsserve::model {

FusedPackedLinear pack_linear(const float* weight, const float* bias, int64_t out, int64_t in) {
  FusedPackedLinear packed;
  packed.in = in;
  packed.out = out;
  packed.padded_out = fused_round_up(out);
  packed.panels.assign(static_cast<size_t>(packed.padded_out * in), 0.0f);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t panel = o / kFusedPad;
    const int64_t column = o % kFusedPad;
    float* to = packed.panels.data() + panel * in * kFusedPad + column;
    for (int64_t k = 0; k < in; ++k) to[k * kFusedPad] = weight[o * in + k];
  }
  packed.bias.assign(static_cast<size_t>(packed.padded_out), 0.0f);
  if (bias) {
    for (int64_t o = 0; o < out; ++o) packed.bias[o] = bias[o];
  }
  return packed;
}

}  // namespace tsserve::model
