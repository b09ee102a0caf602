#pragma once
// The Full attention of the fused iTransformer kernels, over one sample's tokens at a
// time (the variables and calendar features: tens, not thousands), head by head:
//   scores[l][s] = Q_h[l] . K_h[s]            (panel GEMM: K_h transposed, lanes over keys)
//   weights[l][s] = softmax_s(scores[l][s] / sqrt(E))
//   context[l][h*E + e] = sum_s weights[l][s] V_h[s][e]  (panel GEMM: V read in place)
// Every sum runs in a fixed order over this sample's own tokens, so nothing here depends
// on the other samples of a batch.
//
// Attention maps (fused_itransformer_forward.h): softmax_row leaves each query's weights
// normalised in the scores buffer, so a map is a copy of those rows ([query][key], as
// LibTorch returns it), made after the softmax and read by nothing else: the context, and
// so the forecast, is bitwise the same with or without maps.

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>

#include "fused_lane_folds.h"
#include "fused_panel_gemm.h"
#include "fused_vector.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

struct TokenAttention {
  int queries;  // L_q: the tokens whose context is wanted (all, or the variables only)
  int keys;     // L: every token
  int heads, e_width;
  const float* q;  // [queries][ldq], head h at columns h*E ..
  ptrdiff_t ldq;
  const float* k;  // [keys][ldkv]; v's columns past the last head are read, not used
  const float* v;
  ptrdiff_t ldkv;
  float* context;  // [queries][ldc]: columns h*E .. h*E + E - 1 written for every head
  ptrdiff_t ldc;
  // Scratch: keys_t [E][padded keys], scores [queries][padded keys],
  // head_context [queries][padded E].
  float* keys_t;
  float* scores;
  float* head_context;
  // The sample's map of this layer, or null: [heads][map_rows][keys] (query rows 0 ..
  // queries - 1 written here), or [map_rows][keys] summed over heads when average_heads
  // (the caller divides by the head count once every query row is in).
  float* map = nullptr;
  bool average_heads = false;
  // Query rows per head in the map: 0 for `keys` (a square map over the sample's tokens);
  // a cross-attention's map has its own query count.
  int map_rows = 0;
};

// Rows 0 .. rows - 1 of a head's softmax weights (scores, row stride padded_keys) into
// `to` (row stride keys): copied, or added to what it holds (head > 0 of an average).
inline void token_map_rows(const float* scores, int padded_keys, int rows, int keys, float* to,
                           bool accumulate) {
  for (int l = 0; l < rows; ++l) {
    const float* from = scores + static_cast<ptrdiff_t>(l) * padded_keys;
    float* out = to + static_cast<ptrdiff_t>(l) * keys;
    if (accumulate) {
      for (int s = 0; s < keys; ++s) out[s] += from[s];
    } else {
      std::memcpy(out, from, sizeof(float) * keys);
    }
  }
}

// Head `head`'s map rows, starting at query row `first_row` of the map.
inline float* token_map_head(const TokenAttention& t, int head, int first_row) {
  const int rows = t.map_rows > 0 ? t.map_rows : t.keys;
  const ptrdiff_t head_floats = static_cast<ptrdiff_t>(rows) * t.keys;
  return t.map + (t.average_heads ? 0 : head * head_floats) +
         static_cast<ptrdiff_t>(first_row) * t.keys;
}

// K_h (columns column .. column + E - 1 of k) transposed into keys_t [E][padded keys];
// the padding columns are zero (finite scores).
inline void transpose_head_keys(const float* k, ptrdiff_t ldkv, int keys, int padded_keys,
                                int column, int e_width, float* keys_t) {
  for (int e = 0; e < e_width; ++e) {
    float* out = keys_t + e * padded_keys;
    for (int s = 0; s < keys; ++s) out[s] = k[s * ldkv + column + e];
    for (int s = keys; s < padded_keys; ++s) out[s] = 0.0f;
  }
}

// One row of scores [padded keys] -> softmax weights over the first `keys` lanes, with
// exp(scale * (z - max)) = 2^(z c - max c), c = scale * log2(e) (one FMA per lane).
inline void softmax_row(float* row, int keys, int padded_keys, vf c) {
  const int full = keys / kLanes * kLanes;
  float top = -std::numeric_limits<float>::infinity();
  if (full > 0) {
    vf t = load(row);
    for (int j = kLanes; j < full; j += kLanes) t = vmax(load(row + j), t);
    top = lane_max(t);
  }
  for (int j = full; j < keys; ++j) top = row[j] > top ? row[j] : top;
  const vf top_c = splat(top) * c;
  vf sum{};
  for (int j = 0; j < padded_keys; j += kLanes) {
    vf e = vexp2_nonpositive(load(row + j) * c - top_c);
    // The padding lanes are zeroed: they add nothing to the sum (x + 0 is x), and the
    // context's GEMM reads only the first `keys` columns anyway.
    for (int l = keys - j > 0 ? keys - j : 0; l < kLanes; ++l) e[l] = 0.0f;
    store(row + j, e);
    sum += e;
  }
  const vf inverse = splat(1.0f / lane_sum(sum));
  for (int j = 0; j < padded_keys; j += kLanes) store(row + j, load(row + j) * inverse);
}

TSSERVE_STAGE void attend_tokens(const TokenAttention& t) {
  const int e_width = t.e_width;
  const int padded_keys = static_cast<int>(fused_round_up(t.keys));
  const int padded_e = static_cast<int>(fused_round_up(e_width));
  // Written in place when a head's columns are whole panels; otherwise through
  // head_context, as the panels' last columns would overwrite the next head's.
  const bool in_place = e_width % kFusedPad == 0;
  const vf c =
      splat(static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(e_width))));
  for (int head = 0; head < t.heads; ++head) {
    const int column = head * e_width;
    transpose_head_keys(t.k, t.ldkv, t.keys, padded_keys, column, e_width, t.keys_t);
    panel_gemm({t.queries, padded_keys / static_cast<int>(kFusedPad), e_width, t.q + column, t.ldq,
                t.keys_t, kFusedPad, padded_keys, nullptr, nullptr, 0, nullptr, t.scores,
                padded_keys});
    for (int l = 0; l < t.queries; ++l)
      softmax_row(t.scores + l * padded_keys, t.keys, padded_keys, c);
    if (t.map != nullptr) {
      token_map_rows(t.scores, padded_keys, t.queries, t.keys, token_map_head(t, head, 0),
                     t.average_heads && head > 0);
    }
    float* context = in_place ? t.context + column : t.head_context;
    const ptrdiff_t ldc = in_place ? t.ldc : padded_e;
    panel_gemm({t.queries, padded_e / static_cast<int>(kFusedPad), t.keys, t.scores, padded_keys,
                t.v + column, kFusedPad, t.ldkv, nullptr, nullptr, 0, nullptr, context, ldc});
    if (!in_place) {
      for (int l = 0; l < t.queries; ++l) {
        std::memcpy(t.context + l * t.ldc + column, t.head_context + l * padded_e,
                    sizeof(float) * e_width);
      }
    }
  }
}

// The softmax weights alone (no context) of `t.queries` query rows, every head, into map
// rows first_row .. first_row + t.queries - 1 of t.map: the same scores and softmax as
// attend_tokens. For the iTransformer's last-layer calendar queries, whose output the
// forecast drops (unused by the other kernels that include this header).
[[maybe_unused]] TSSERVE_STAGE void token_attention_weights(const TokenAttention& t,
                                                            int first_row) {
  const int padded_keys = static_cast<int>(fused_round_up(t.keys));
  const vf c =
      splat(static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(t.e_width))));
  for (int head = 0; head < t.heads; ++head) {
    const int column = head * t.e_width;
    transpose_head_keys(t.k, t.ldkv, t.keys, padded_keys, column, t.e_width, t.keys_t);
    panel_gemm({t.queries, padded_keys / static_cast<int>(kFusedPad), t.e_width, t.q + column,
                t.ldq, t.keys_t, kFusedPad, padded_keys, nullptr, nullptr, 0, nullptr, t.scores,
                padded_keys});
    for (int l = 0; l < t.queries; ++l)
      softmax_row(t.scores + l * padded_keys, t.keys, padded_keys, c);
    token_map_rows(t.scores, padded_keys, t.queries, t.keys, token_map_head(t, head, first_row),
                   t.average_heads && head > 0);
  }
}

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
