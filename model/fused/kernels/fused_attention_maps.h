#pragma once
// Attention maps from the fused kernels: the softmax weights a head has just computed,
// copied out of the attention's scratch for the rows and layers that asked.
//
// After attend() (fused_attention.h) the scores buffer holds e[key][column] =
// exp(scaled score - max) and sums[column] their sum over keys; the forward divides its
// context by the sum instead of normalising the weights, so the weights e / sum are
// computed here only, and only the maps read them: the forecast's arithmetic is the same
// with or without maps. The map is written [query][key] (a transpose of the scratch), as
// LibTorch returns it.

#include <xmmintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fused_attention.h"
#include "fused_vector.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// Where one layer's map of one row goes, or nowhere (map null).
struct LayerMapSink {
  float* map = nullptr;  // [H][P][P], or [P][P] when average_heads
  bool average_heads = false;
};

// The sink of encoder layer `layer` for a row's request: its first slot naming the layer.
LayerMapSink layer_map_sink(const FusedWeights& w, const FusedRowMaps* maps, int layer) {
  if (maps == nullptr) return {};
  const int64_t floats = fused_layer_map_floats(w, maps->average_heads);
  for (int32_t slot = 0; slot < maps->layer_count; ++slot) {
    if (maps->layers[slot] == layer) {
      return {maps->slot_destination(slot, floats), maps->average_heads};
    }
  }
  return {};
}

// A layer named more than once gets the same map in every slot naming it.
void copy_repeated_layer_map(const FusedWeights& w, const FusedRowMaps* maps, int layer,
                             const LayerMapSink& written) {
  if (maps == nullptr || written.map == nullptr) return;
  const int64_t floats = fused_layer_map_floats(w, maps->average_heads);
  for (int32_t slot = 0; slot < maps->layer_count; ++slot) {
    float* to = maps->slot_destination(slot, floats);
    if (maps->layers[slot] == layer && to != written.map) {
      std::memcpy(to, written.map, sizeof(float) * static_cast<size_t>(floats));
    }
  }
}

// Row rows[c] (c itself when rows is null) of `map` [keys][keys] gets the softmax
// weights of column c of the scores, for the first `columns` columns (row stride
// `stride`, a multiple of kLanes); added to what the row holds with Accumulate (the sum
// over heads of an averaged map). A block of kLanes columns at a time: one reciprocal of
// their sums, e * (1 / sum) per weight (a division per weight made this stage 1.6 times
// slower), then each key's weights go to kLanes map rows.
template <bool Accumulate>
TSSERVE_STAGE void write_softmax_rows(const float* scores, const float* sums, int stride,
                                      int columns, const int* rows, int keys, float* map) {
  for (int j = 0; j < columns; j += kLanes) {
    const vf inverse = splat(1.0f) / load(sums + j);
    const int lanes = std::min(kLanes, columns - j);
    float* out[kLanes];
    for (int t = 0; t < lanes; ++t) {
      out[t] = map + static_cast<ptrdiff_t>(rows ? rows[j + t] : j + t) * keys;
    }
    for (int key = 0; key < keys; ++key) {
      float weight[kLanes];
      store(weight, load(scores + key * stride + j) * inverse);
      for (int t = 0; t < lanes; ++t) {
        if constexpr (Accumulate) {
          out[t][key] += weight[t];
        } else {
          out[t][key] = weight[t];
        }
      }
    }
  }
}

// ProbSparse's lazy queries: their rows are uniform over the keys, 1 / keys rounded once
// from double as ProbAttention fills them.
TSSERVE_STAGE void write_uniform_rows(const int* rows, int count, int keys, float* map,
                                      bool accumulate) {
  const float uniform = static_cast<float>(1.0 / keys);
  for (int i = 0; i < count; ++i) {
    float* out = map + static_cast<ptrdiff_t>(rows[i]) * keys;
    for (int key = 0; key < keys; ++key) out[key] = accumulate ? out[key] + uniform : uniform;
  }
}

// The mean over heads: the heads' sum divided by their count (LibTorch's mean on the CPU
// sums, then divides).
TSSERVE_STAGE void divide_map(float* map, int64_t floats, int heads) {
  const float count = static_cast<float>(heads);
  for (int64_t i = 0; i < floats; ++i) map[i] /= count;
}

// An averaged Full-attention map summed over the heads in the scores' own layout, `sum`
// [keys][stride] (key, query): each head's weights e * (1 / sum) added with whole vectors,
// where writing them transposed into the map cost a scalar store per weight and head. The
// weights and the order of the additions are those write_softmax_rows makes, so the map
// that transpose_mean then writes is the same to the bit. `first`: head 0 writes.
TSSERVE_STAGE void accumulate_softmax(const float* scores, const float* sums, int stride,
                                      int columns, int keys, float* sum, bool first) {
  for (int j = 0; j < columns; j += kLanes) {
    const vf inverse = splat(1.0f) / load(sums + j);
    for (int key = 0; key < keys; ++key) {
      const vf weight = load(scores + key * stride + j) * inverse;
      float* to = sum + key * stride + j;
      store(to, first ? weight : load(to) + weight);
    }
  }
}

// The map [queries][keys] from the heads' sum [keys][stride]: transposed, each value
// divided by the head count (as divide_map divides the map summed in place). Blocks of 4
// keys x 4 queries are transposed in SSE registers (every ISA copy has SSE) and stored 4
// keys at a time, where one scalar store per value was the most expensive part of the
// maps; _mm_div_ps is IEEE division, so each quotient is the scalar one.
TSSERVE_STAGE void transpose_mean(const float* sum, int stride, int queries, int keys, int heads,
                                  float* map) {
  const float count = static_cast<float>(heads);
  const __m128 counts = _mm_set1_ps(count);
  const int key_blocks = keys / 4 * 4;
  const int query_blocks = queries / 4 * 4;
  for (int key = 0; key < key_blocks; key += 4) {
    for (int query = 0; query < query_blocks; query += 4) {
      __m128 r0 = _mm_loadu_ps(sum + (key + 0) * stride + query);
      __m128 r1 = _mm_loadu_ps(sum + (key + 1) * stride + query);
      __m128 r2 = _mm_loadu_ps(sum + (key + 2) * stride + query);
      __m128 r3 = _mm_loadu_ps(sum + (key + 3) * stride + query);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      float* out = map + static_cast<ptrdiff_t>(query) * keys + key;
      _mm_storeu_ps(out, _mm_div_ps(r0, counts));
      _mm_storeu_ps(out + keys, _mm_div_ps(r1, counts));
      _mm_storeu_ps(out + 2 * keys, _mm_div_ps(r2, counts));
      _mm_storeu_ps(out + 3 * keys, _mm_div_ps(r3, counts));
    }
    for (int query = query_blocks; query < queries; ++query) {
      for (int k = key; k < key + 4; ++k) {
        map[static_cast<ptrdiff_t>(query) * keys + k] = sum[k * stride + query] / count;
      }
    }
  }
  for (int key = key_blocks; key < keys; ++key) {
    for (int query = 0; query < queries; ++query) {
      map[static_cast<ptrdiff_t>(query) * keys + key] = sum[key * stride + query] / count;
    }
  }
}

// Whether a layer's averaged map is summed in `head_sum` (accumulate_softmax) rather than
// in the map itself: Full attention's, whose queries are the scores' columns in order.
bool sums_heads_aside(const FusedWeights& w, const LayerMapSink& sink) {
  return sink.average_heads && w.attention != FusedAttention::kProbSparse;
}

// Head `head`'s map into the layer's sink, right after its attention ran on `h`
// (ProbSparse: attend_prob, whose ranking of the queries `order` holds). An averaged map
// sums the heads (head 0 writes): Full attention's in `head_sum` ([P][Pp]), which
// transpose_mean turns into the map after the last head; ProbSparse's in the map itself,
// which divide_map finishes.
void write_head_map(const FusedWeights& w, const Positions& at, const HeadAttention& h,
                    const int* order, int head, const LayerMapSink& sink, float* head_sum) {
  const int patches = at.count;
  if (sums_heads_aside(w, sink)) {
    accumulate_softmax(h.scores, h.sums, at.width, patches, patches, head_sum, head == 0);
    return;
  }
  float* map = sink.average_heads ? sink.map : sink.map + head * patches * patches;
  const bool accumulate = sink.average_heads && head > 0;
  const auto softmax_rows = [&](int stride, int columns, const int* rows) {
    if (accumulate) {
      write_softmax_rows<true>(h.scores, h.sums, stride, columns, rows, patches, map);
    } else {
      write_softmax_rows<false>(h.scores, h.sums, stride, columns, rows, patches, map);
    }
  };
  if (w.attention == FusedAttention::kProbSparse) {
    // The u selected queries' softmax is in columns 0..u-1 of the scores; the lazy queries
    // follow the selected ones in `order`.
    const int active = static_cast<int>(w.prob_active);
    softmax_rows(static_cast<int>(fused_round_up(active)), active, order);
    write_uniform_rows(order + active, patches - active, patches, map, accumulate);
  } else {
    softmax_rows(at.width, patches, nullptr);
  }
}

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
