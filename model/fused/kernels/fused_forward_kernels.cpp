// The fused PatchTST forward, written once with GCC vector extensions and compiled once
// per instruction set (model/fused/CMakeLists.txt): TSSERVE_FUSED_LANES is the vector width in
// floats (16 AVX-512, 8 AVX2+FMA, 4 SSE2) and TSSERVE_FUSED_NAMESPACE names the copy.
// fused_isa.cpp picks the copy the CPU supports, once.
//
// A row's activations are kept transposed, x[feature][position], positions padded to a
// multiple of 16: vector lanes run over positions, so every projection, the attention,
// the norms and the activations are whole-vector operations, and every sum over features,
// keys or time is a scalar loop in a fixed order. All of a row's buffers (a few tens of
// KB for the bundled model) stay in L1/L2 while it goes through every layer.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "fused_attention.h"
#include "fused_attention_maps.h"
#include "fused_entry_points.h"
#include "fused_gemm.h"
#include "fused_vector.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// x[feature][position] (padded width `width`) = LayerNorm over features of (x + y), per
// position; y may be null. Mean and variance as PyTorch: biased, eps inside the root.
TSSERVE_STAGE void add_layer_norm(float* x, const float* y, int features, int width,
                                  const float* weight, const float* bias) {
  const vf inv_n = splat(1.0f / static_cast<float>(features));
  for (int j = 0; j < width; j += kLanes) {
    if (y) {
      for (int d = 0; d < features; ++d) {
        store(x + d * width + j, load(x + d * width + j) + load(y + d * width + j));
      }
    }
    vf sum{};
    for (int d = 0; d < features; ++d) sum += load(x + d * width + j);
    const vf mean = sum * inv_n;
    vf squares{};
    for (int d = 0; d < features; ++d) {
      const vf c = load(x + d * width + j) - mean;
      squares += c * c;
    }
    // Correctly rounded sqrt and division, as the scalar loop this replaced.
    const vf rstd = splat(1.0f) / vsqrt(squares * inv_n + splat(1e-5f));
    for (int d = 0; d < features; ++d) {
      const vf c = load(x + d * width + j) - mean;
      store(x + d * width + j, c * rstd * splat(weight[d]) + splat(bias[d]));
    }
  }
}

// Per-thread buffers, grown to the largest model seen and reused across calls.
struct Scratch {
  std::vector<float> series;   // normalised row + replication padding
  std::vector<float> patches;  // [patch_len][Pp]
  std::vector<float> x, y;     // [D][Pp]
  std::vector<float> qkv;      // [3D][Pp]
  std::vector<float> scores;   // [P][Pp]: scores[s][l], key s, query l
  std::vector<float> sums;     // [Pp]
  std::vector<float> head_sum;  // [P][Pp]: an averaged map's sum over heads (maps only)
  std::vector<float> context;  // [D][Pp]
  std::vector<float> hidden;   // [D_ff][Pp]
  std::vector<float> flat;     // [block rows][D*P]
  std::vector<float> head;     // [block rows][padded_pred]
  std::vector<double> stats;   // [block rows][2]: mean, std
  // ProbSparse only: measures and positions [P], selected queries and their context
  // [E][Pp], and the TSLib view of the context [D][Pp].
  std::vector<float> measure;
  std::vector<int> order;
  std::vector<float> selected_queries, selected_context;
  std::vector<float> context_view;

  // For a forecast's patches, and a block of rows of the head.
  void fit(const FusedWeights& w, int block_rows) {
    fit_encoder(w, positions_of(w.patches));
    const size_t d = static_cast<size_t>(w.d_model);
    grow(head_sum, static_cast<size_t>(w.patches) * w.padded_patches);
    grow(series, static_cast<size_t>(w.seq_len + w.stride));
    grow(patches, static_cast<size_t>(w.patch_len) * w.padded_patches);
    grow(flat, block_rows * d * static_cast<size_t>(w.patches));
    grow(head, block_rows * static_cast<size_t>(w.padded_pred));
    if (stats.size() < 2u * block_rows) stats.resize(2u * block_rows);
  }
  // For the encoder layers over `at` positions (a forecast's patches, or Encode's tokens).
  void fit_encoder(const FusedWeights& w, const Positions& at) {
    const size_t pp = static_cast<size_t>(at.width);
    const size_t d = static_cast<size_t>(w.d_model);
    grow(x, d * pp);
    grow(y, d * pp);
    grow(qkv, 3 * d * pp);
    grow(scores, static_cast<size_t>(at.count) * pp);
    grow(sums, pp);
    grow(context, d * pp);
    grow(hidden, static_cast<size_t>(w.d_ff) * pp);
    if (w.attention == FusedAttention::kProbSparse) {
      const size_t e = static_cast<size_t>(w.d_model / w.n_heads);
      grow(measure, static_cast<size_t>(at.count));
      if (order.size() < static_cast<size_t>(at.count)) order.resize(at.count);
      grow(selected_queries, e * pp);
      grow(selected_context, e * pp);
      grow(context_view, d * pp);
    }
  }
  static void grow(std::vector<float>& v, size_t n) {
    if (v.size() < n) v.resize(n, 0.0f);
  }
};

// Every head's attention into s.context, and its softmax weights into `sink`'s map when
// the row asked for this layer's; returns the context the output projection reads
// (s.context, or its TSLib view).
const float* attention(const FusedWeights& w, const Positions& at, Scratch& s,
                       const LayerMapSink& sink) {
  const int width = at.width;
  const int patches = at.count;
  const int d_model = static_cast<int>(w.d_model);
  const int e_width = static_cast<int>(w.d_model / w.n_heads);
  const ProbScratch prob{s.measure.data(), s.order.data(), s.selected_queries.data(),
                         s.selected_context.data()};
  for (int head = 0; head < w.n_heads; ++head) {
    const HeadAttention h{s.qkv.data() + head * e_width * width,
                          width,
                          width,
                          s.qkv.data() + (d_model + head * e_width) * width,
                          s.qkv.data() + (2 * d_model + head * e_width) * width,
                          width,
                          patches,
                          e_width,
                          s.scores.data(),
                          s.sums.data()};
    float* context = s.context.data() + head * e_width * width;
    if (w.attention == FusedAttention::kProbSparse) {
      attend_prob(w, h, prob, context, width);
    } else {
      attend(h, context, width);
    }
    if (sink.map != nullptr) write_head_map(w, at, h, prob.order, head, sink, s.head_sum.data());
  }
  if (sink.map != nullptr && sums_heads_aside(w, sink)) {
    transpose_mean(s.head_sum.data(), width, patches, patches, static_cast<int>(w.n_heads),
                   sink.map);
  } else if (sink.map != nullptr && sink.average_heads) {
    divide_map(sink.map, static_cast<int64_t>(patches) * patches, static_cast<int>(w.n_heads));
  }
  if (w.attention == FusedAttention::kProbSparse && w.prob_tslib_layout) {
    tslib_context_view(s.context.data(), d_model, e_width, patches, width, s.context_view.data());
    return s.context_view.data();
  }
  return s.context.data();
}

void encoder_layer(const FusedWeights& w, const FusedLayerWeights& layer, const Positions& at,
                   Scratch& s, const LayerMapSink& sink) {
  const int width = at.width;
  const int d_model = static_cast<int>(w.d_model);
  const int d_ff = static_cast<int>(w.d_ff);

  gemm({3 * d_model, width, d_model, layer.qkv_weight.data(), d_model, 1, s.x.data(), width,
        layer.qkv_bias.data(), nullptr, s.qkv.data(), width});
  const float* context = attention(w, at, s, sink);
  gemm({d_model, width, d_model, layer.out_weight.data(), d_model, 1, context, width,
        layer.out_bias.data(), nullptr, s.y.data(), width});
  add_layer_norm(s.x.data(), s.y.data(), d_model, width, layer.norm1_weight.data(),
                 layer.norm1_bias.data());

  gemm({d_ff, width, d_model, layer.ff1_weight.data(), d_model, 1, s.x.data(), width,
        layer.ff1_bias.data(), nullptr, s.hidden.data(), width, &w.activation});
  gemm({d_model, width, d_ff, layer.ff2_weight.data(), d_ff, 1, s.hidden.data(), width,
        layer.ff2_bias.data(), nullptr, s.y.data(), width});
  add_layer_norm(s.x.data(), s.y.data(), d_model, width, layer.norm2_weight.data(),
                 layer.norm2_bias.data());
}

// Instance norm, patch embedding, encoder and final norm of one row; writes the
// d-major flattened encoder output (index d*P + p) to `flat` and the row's mean and std,
// and the attention maps `maps` asks for (null: none).
void encode_row(const FusedWeights& w, const float* row, Scratch& s, float* flat, double* stats,
                const FusedRowMaps* maps) {
  const int seq_len = static_cast<int>(w.seq_len);
  const int width = static_cast<int>(w.padded_patches);
  const int patches = static_cast<int>(w.patches);
  const int d_model = static_cast<int>(w.d_model);
  const int patch_len = static_cast<int>(w.patch_len);
  const int stride = static_cast<int>(w.stride);

  // Float statistics in PyTorch's order of operations would differ in the last bits
  // anyway; double sums keep them within float rounding of the exact values.
  double sum = 0.0;
  for (int t = 0; t < seq_len; ++t) sum += row[t];
  const double mean = sum / seq_len;
  double squares = 0.0;
  for (int t = 0; t < seq_len; ++t) squares += (row[t] - mean) * (row[t] - mean);
  const float mean_f = static_cast<float>(mean);
  const float stdev_f = static_cast<float>(std::sqrt(squares / seq_len + 1e-5));
  stats[0] = mean_f;
  stats[1] = stdev_f;

  float* series = s.series.data();
  for (int t = 0; t < seq_len; ++t) series[t] = (row[t] - mean_f) / stdev_f;
  for (int t = 0; t < stride; ++t) series[seq_len + t] = series[seq_len - 1];
  float* patches_t = s.patches.data();  // [patch_len][Pp], columns past P stay zero
  for (int p = 0; p < patches; ++p) {
    for (int k = 0; k < patch_len; ++k) patches_t[k * width + p] = series[p * stride + k];
  }

  gemm({d_model, width, patch_len, w.embed_weight.data(), patch_len, 1, patches_t, width, nullptr,
        nullptr, s.x.data(), width});
  for (int i = 0; i < d_model * width; i += kLanes) {
    store(s.x.data() + i, load(s.x.data() + i) + load(w.position_transposed.data() + i));
  }

  for (size_t i = 0; i < w.layers.size(); ++i) {
    const int index = static_cast<int>(i);
    const LayerMapSink sink = layer_map_sink(w, maps, index);
    encoder_layer(w, w.layers[i], positions_of(w.patches), s, sink);
    copy_repeated_layer_map(w, maps, index, sink);
  }

  if (w.final_norm == FusedFinalNorm::kLayer) {
    add_layer_norm(s.x.data(), nullptr, d_model, width, w.final_weight.data(), w.final_bias.data());
  }
  for (int d = 0; d < d_model; ++d) {
    const float* x = s.x.data() + d * width;
    float* out = flat + d * patches;
    if (w.final_norm == FusedFinalNorm::kBatch) {
      for (int p = 0; p < patches; ++p) out[p] = x[p] * w.final_weight[d] + w.final_bias[d];
    } else {
      std::memcpy(out, x, sizeof(float) * patches);
    }
  }
}

// Encode of one sequence: its tokens [L][D] (already embedded) through the encoder layers
// and the final norm, out as [L][D]; every layer's per-head weights [H][L][L] into `maps`
// ([layers][H][L][L]) when it is not null.
void encode_sequence(const FusedWeights& w, const Positions& at, const float* tokens, Scratch& s,
                     float* output, float* maps) {
  const int width = at.width;
  const int d_model = static_cast<int>(w.d_model);
  // Transposed into x[feature][position]; the padding columns zero, as a forecast's.
  for (int d = 0; d < d_model; ++d) {
    float* x = s.x.data() + d * width;
    for (int l = 0; l < at.count; ++l) x[l] = tokens[l * d_model + d];
    std::fill(x + at.count, x + width, 0.0f);
  }
  const int64_t layer_floats = w.n_heads * static_cast<int64_t>(at.count) * at.count;
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const LayerMapSink sink{maps ? maps + i * layer_floats : nullptr, false};
    encoder_layer(w, w.layers[i], at, s, sink);
  }
  if (w.final_norm == FusedFinalNorm::kLayer) {
    add_layer_norm(s.x.data(), nullptr, d_model, width, w.final_weight.data(), w.final_bias.data());
  }
  for (int d = 0; d < d_model; ++d) {
    const float* x = s.x.data() + d * width;
    const bool batch_norm = w.final_norm == FusedFinalNorm::kBatch;
    for (int l = 0; l < at.count; ++l) {
      output[l * d_model + d] = batch_norm ? x[l] * w.final_weight[d] + w.final_bias[d] : x[l];
    }
  }
}

// Encode's longest sequence whose buffers a thread keeps between calls (128 x 128 scores:
// 64 KB), beside the model's own patch count.
constexpr int64_t kCachedEncodeTokens = 128;

// The head reads a block of rows at once so its weight ([D*P][F], 258 KB for the bundled
// model) is streamed once per block, not once per row.
constexpr int kBlockRows = 8;

}  // namespace

void forecast_rows(const FusedWeights& w, const float* series, int64_t rows, float* forecast,
                   const FusedRowMaps* maps) {
  thread_local Scratch scratch;
  scratch.fit(w, kBlockRows);
  const int flat_width = static_cast<int>(w.d_model * w.patches);
  const int padded_pred = static_cast<int>(w.padded_pred);
  for (int64_t r0 = 0; r0 < rows; r0 += kBlockRows) {
    const int block = static_cast<int>(std::min<int64_t>(kBlockRows, rows - r0));
    for (int r = 0; r < block; ++r) {
      const FusedRowMaps* row_maps = maps && maps[r0 + r].wanted() ? maps + r0 + r : nullptr;
      encode_row(w, series + (r0 + r) * w.seq_len, scratch, scratch.flat.data() + r * flat_width,
                 scratch.stats.data() + 2 * r, row_maps);
    }
    gemm({block, padded_pred, flat_width, scratch.flat.data(), flat_width, 1,
          w.head_weight_transposed.data(), padded_pred, nullptr, w.head_bias.data(),
          scratch.head.data(), padded_pred});
    for (int r = 0; r < block; ++r) {
      const float mean = static_cast<float>(scratch.stats[2 * r]);
      const float stdev = static_cast<float>(scratch.stats[2 * r + 1]);
      float* out = forecast + (r0 + r) * w.pred_len;
      const float* scaled = scratch.head.data() + r * padded_pred;
      for (int f = 0; f < w.pred_len; ++f) out[f] = scaled[f] * stdev + mean;
    }
  }
}

void encode_tokens(const FusedWeights& w, const float* tokens, int64_t sequences, int64_t length,
                   float* output, float* maps) {
  // Up to the model's own patch count (or kCachedEncodeTokens) the thread keeps its
  // buffers; a longer sequence gets buffers of its own, freed on return, so that one long
  // Encode does not hold its L x L scores for the thread's lifetime.
  thread_local Scratch cached;
  Scratch own;
  Scratch& scratch = length <= std::max<int64_t>(w.patches, kCachedEncodeTokens) ? cached : own;
  const Positions at = positions_of(length);
  scratch.fit_encoder(w, at);
  const int64_t sequence_floats = length * w.d_model;
  const int64_t map_floats = static_cast<int64_t>(w.layers.size()) * w.n_heads * length * length;
  for (int64_t i = 0; i < sequences; ++i) {
    encode_sequence(w, at, tokens + i * sequence_floats, scratch, output + i * sequence_floats,
                    maps ? maps + i * map_floats : nullptr);
  }
}

}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
