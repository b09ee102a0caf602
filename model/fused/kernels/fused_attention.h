#pragma once
// The attention of the fused kernels, one head of one row at a time, transposed like the
// rest of the forward: q, k and v are [E][width] (lanes over positions), the context is
// written [E][width] for the head's rows of the layer's [D][width] context.
//
// Full attention: scores[s][l] = K[s] . Q[l] for every key s and query l, a softmax over
// s per query column, context[e][l] = sum_s V[e][s] * weight[s][l].
//
// ProbSparse attention (prob_attention.h, Informer's method with a seeded key sample):
// each query's sparsity measure M = max_j(q . k_idx[j]) - sum_j(q . k_idx[j]) / L_K over
// its sampled keys, the u queries of largest M (ties to the lower position) get full
// attention, every other query the mean of V. The selected queries are gathered into
// contiguous columns so their attention is the Full routine on u columns.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "fused_gemm.h"
#include "fused_vector.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// scores[s][l] <- exp(scale * scores[s][l] - max_s), sums[l] <- sum over s: softmax over
// keys per query column, left unnormalised (the context is divided by the sum instead).
// exp(scale * (z - top)) = 2^(z * c - top * c) with c = scale * log2(e), one FMA.
TSSERVE_STAGE void softmax_columns(float* scores, float* sums, int keys, int width, int e_width) {
  const vf c =
      splat(static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(e_width))));
  for (int j = 0; j < width; j += kLanes) {
    vf top = load(scores + j);
    for (int key = 1; key < keys; ++key) {
      const vf z = load(scores + key * width + j);
      top = vmax(z, top);
    }
    const vf top_c = top * c;
    vf sum{};
    for (int key = 0; key < keys; ++key) {
      const vf e = vexp2_nonpositive(load(scores + key * width + j) * c - top_c);
      store(scores + key * width + j, e);
      sum += e;
    }
    store(sums + j, sum);
  }
}

// The positions a row's encoder runs over: `count` tokens (the patches of a forecast, or
// an Encode call's L), held in `width` columns (count rounded up to kFusedPad).
struct Positions {
  int count, width;
};

inline Positions positions_of(int64_t count) {
  return {static_cast<int>(count), static_cast<int>(fused_round_up(count))};
}

// One head's operands and the row's scratch the attention writes.
struct HeadAttention {
  const float* q;  // [E][q_stride]: the queries, `queries` columns (a multiple of kLanes)
  int q_stride, queries;
  const float* k;  // [E][kv_stride]: keys and values, `keys` columns
  const float* v;
  int kv_stride, keys;
  int e_width;
  float* scores;  // [keys][queries]
  float* sums;    // [queries]
};

// Full attention of every query column into context[e][l] (row stride context_stride).
TSSERVE_STAGE void attend(const HeadAttention& h, float* context, int context_stride) {
  gemm({h.keys, h.queries, h.e_width, h.k, 1, h.kv_stride, h.q, h.q_stride, nullptr, nullptr,
        h.scores, h.queries});
  softmax_columns(h.scores, h.sums, h.keys, h.queries, h.e_width);
  gemm({h.e_width, h.queries, h.keys, h.v, h.kv_stride, 1, h.scores, h.queries, nullptr, nullptr,
        context, context_stride});
  for (int e = 0; e < h.e_width; ++e) {
    for (int j = 0; j < h.queries; j += kLanes) {
      float* out = context + e * context_stride + j;
      store(out, load(out) / load(h.sums + j));
    }
  }
}

// ProbSparse's scratch, per row: [patches] measures and positions, the selected queries
// and their context as [E][padded u] columns.
struct ProbScratch {
  float* measure;
  int* order;
  float* selected_queries;
  float* selected_context;
};

// ProbSparse attention of one head: `full` describes the head with every query column
// (queries = the padded width, keys = the patches); the context rows of the head are
// written for every column.
TSSERVE_STAGE void attend_prob(const FusedWeights& w, const HeadAttention& full,
                               const ProbScratch& p, float* context, int context_stride) {
  const int patches = full.keys;
  const int samples = static_cast<int>(w.prob_samples);
  const int active = static_cast<int>(w.prob_active);
  const int e_width = full.e_width;
  const int width = full.q_stride;

  // The measure from the sampled keys, a query at a time (strided reads, E * U_part
  // products each: a few percent of the head's work).
  for (int l = 0; l < patches; ++l) {
    const int32_t* picked = w.prob_sample_index.data() + static_cast<size_t>(l) * samples;
    float top = -std::numeric_limits<float>::infinity();
    float sum = 0.0f;
    for (int j = 0; j < samples; ++j) {
      float dot = 0.0f;
      for (int e = 0; e < e_width; ++e) {
        dot += full.q[e * width + l] * full.k[e * width + picked[j]];
      }
      top = std::max(top, dot);
      sum += dot;
    }
    p.measure[l] = top - sum / static_cast<float>(patches);
  }
  for (int l = 0; l < patches; ++l) p.order[l] = l;
  std::partial_sort(p.order, p.order + active, p.order + patches, [&](int a, int b) {
    return p.measure[a] > p.measure[b] || (p.measure[a] == p.measure[b] && a < b);
  });

  // The lazy queries' context: the mean of the values over the keys.
  for (int e = 0; e < e_width; ++e) {
    float sum = 0.0f;
    for (int s = 0; s < patches; ++s) sum += full.v[e * width + s];
    const vf mean = splat(sum / static_cast<float>(patches));
    for (int j = 0; j < width; j += kLanes) store(context + e * context_stride + j, mean);
  }

  // The active queries, gathered into columns 0..u-1 (the padding columns stay zero).
  const int selected_width = static_cast<int>(fused_round_up(active));
  std::fill(p.selected_queries, p.selected_queries + e_width * selected_width, 0.0f);
  for (int i = 0; i < active; ++i) {
    for (int e = 0; e < e_width; ++e) {
      p.selected_queries[e * selected_width + i] = full.q[e * width + p.order[i]];
    }
  }
  HeadAttention selected = full;
  selected.q = p.selected_queries;
  selected.q_stride = selected.queries = selected_width;
  attend(selected, p.selected_context, selected_width);
  for (int i = 0; i < active; ++i) {
    for (int e = 0; e < e_width; ++e) {
      context[e * context_stride + p.order[i]] = p.selected_context[e * selected_width + i];
    }
  }
}

// TSLib's ProbAttention returns its [B, H, L, E] context viewed as [B, L, H, E] without
// transposing (prob_attention.h, ProbLayout::kTslib): position l, feature f of the
// output is element l * D + f of the [H][L][E] array. From the canonical transposed
// context [D][width] (feature h * E + e) into `out` [D][width], padding columns zero.
TSSERVE_STAGE void tslib_context_view(const float* context, int d_model, int e_width, int patches,
                                      int width, float* out) {
  for (int f = 0; f < d_model; ++f) {
    for (int l = 0; l < patches; ++l) {
      const int flat = l * d_model + f;
      const int head = flat / (patches * e_width);
      const int position = flat / e_width % patches;
      const int e = flat % e_width;
      out[f * width + l] = context[(head * e_width + e) * width + position];
    }
    for (int l = patches; l < width; ++l) out[f * width + l] = 0.0f;
  }
}

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
