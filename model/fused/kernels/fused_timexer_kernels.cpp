// The fused TimeXer forward (fused_timexer_forward.h), written once with GCC vector
// extensions and compiled once per instruction set like the other families' kernels
// (model/fused/CMakeLists.txt); fused_isa.cpp picks the copy (kernels/fused_kernel_table.h).
//
// Samples go through in chunks of a few (about kChunkRows endogenous tokens): each chunk's
// tokens are stacked as the rows of every GEMM, so a weight panel loaded into L1 serves
// every token of the chunk. Which samples share a chunk changes no bit of any of them
// (fused_panel_gemm.h; attention, norms and statistics run per sample or per row).
//
// The stream x holds each endogenous variable's L = P + 1 token rows together (its P
// patches, then its global token), so the self-attention reads a variable's rows in place
// and the head reads them as one row of L * padded_D floats (FusedTimeXerWeights::head).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "fused_entry_points.h"
#include "fused_panel_gemm.h"
#include "fused_row_norm.h"
#include "fused_token_attention.h"
#include "fused_vector.h"
#include "tsserve/model/fused_aligned.h"
#include "tsserve/model/fused_timexer_forward.h"
#include "tsserve/model/fused_timexer_weights.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// Endogenous token rows per chunk, about: as the iTransformer's kChunkRows (enough rows
// that the register tiles are full and a panel is reused, few enough that the chunk's
// activations stay in L2).
constexpr int kChunkRows = 64;

int padded(int64_t n) { return static_cast<int>(fused_round_up(n)); }

// A chunk's shape, fixed by the weights but for the sample count.
struct TimeXerShape {
  int samples, variables, endogenous, first_endogenous, tokens, covariates, calendar;
  int groups() const { return samples * endogenous; }  // endogenous variables in the chunk
  int rows() const { return groups() * tokens; }       // their token rows
  int covariate_rows() const { return samples * covariates; }
  int covariate_variables() const { return covariates - calendar; }
};

TimeXerShape shape_of(const FusedTimeXerWeights& w, int samples) {
  return {samples,
          static_cast<int>(w.variables),
          static_cast<int>(w.endogenous()),
          static_cast<int>(w.first_endogenous()),
          static_cast<int>(w.tokens()),
          static_cast<int>(w.covariates()),
          static_cast<int>(w.calendar_tokens)};
}

// Per-thread buffers, grown to the largest shape seen and reused across calls, each with a
// vector's worth of slack (the attention's last panel reads V's columns past the last head).
struct TimeXerScratch {
  FusedFloats normalised;       // [samples][N][T]
  FusedFloats stats;            // [samples][N][2]: mean, stdev
  FusedFloats patches;          // [rows][patch_len]: each variable's patches, then a zero row
  FusedFloats covariate_input;  // [covariate rows][T]
  FusedFloats x;                // [rows][Dp]: the encoder's stream
  FusedFloats covariates;       // [covariate rows][Dp]: the covariate tokens
  FusedFloats queries, keys, values, context;  // [max(rows, covariate rows)][Dp]
  FusedFloats hidden;                          // [rows][D_ff p]
  FusedFloats global;                          // [groups][Dp]: the global tokens
  FusedFloats keys_t, scores, head_context;    // one head of one attention
  FusedFloats head;                            // [groups][Fp]

  void fit(const FusedTimeXerWeights& w, const TimeXerShape& c) {
    const size_t rows = static_cast<size_t>(c.rows());
    const size_t covariate_rows = static_cast<size_t>(c.covariate_rows());
    const size_t dp = padded(w.d_model);
    const size_t widest = std::max<size_t>(rows, covariate_rows);
    const size_t e = static_cast<size_t>(w.d_model / w.n_heads);
    const size_t most_keys = static_cast<size_t>(std::max(c.tokens, c.covariates));
    grow(normalised, static_cast<size_t>(c.samples) * c.variables * w.seq_len);
    grow(stats, static_cast<size_t>(c.samples) * c.variables * 2);
    grow(patches, rows * w.patch_len);
    grow(covariate_input, covariate_rows * w.seq_len);
    grow(x, rows * dp);
    grow(covariates, covariate_rows * dp);
    for (FusedFloats* b : {&queries, &keys, &values, &context}) grow(*b, widest * dp);
    grow(hidden, rows * padded(w.d_ff));
    grow(global, static_cast<size_t>(c.groups()) * dp);
    grow(keys_t, e * padded(static_cast<int64_t>(most_keys)));
    grow(scores, most_keys * padded(static_cast<int64_t>(most_keys)));
    grow(head_context, most_keys * padded(static_cast<int64_t>(e)));
    grow(head, static_cast<size_t>(c.groups()) * padded(w.pred_len));
  }
  static void grow(FusedFloats& v, size_t n) {
    n += kFusedPad;
    if (v.size() < n) v.resize(n, 0.0f);
  }
};

// Each variable's window normalised over time (statistics in double, then float as the
// LibTorch path's values), or copied as it is without use_norm.
TSSERVE_STAGE void normalise_series(const FusedTimeXerWeights& w, const TimeXerShape& c,
                                    const float* series, TimeXerScratch& s) {
  const int T = static_cast<int>(w.seq_len);
  const int rows = c.samples * c.variables;
  if (!w.use_norm) {
    std::memcpy(s.normalised.data(), series, sizeof(float) * static_cast<size_t>(rows) * T);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const float* row = series + static_cast<size_t>(r) * T;
    double sum = 0.0;
    for (int t = 0; t < T; ++t) sum += row[t];
    const double mean = sum / T;
    double squares = 0.0;
    for (int t = 0; t < T; ++t) squares += (row[t] - mean) * (row[t] - mean);
    const float mean_f = static_cast<float>(mean);
    const float stdev_f = static_cast<float>(std::sqrt(squares / T + 1e-5));
    float* out = s.normalised.data() + static_cast<size_t>(r) * T;
    for (int t = 0; t < T; ++t) out[t] = (row[t] - mean_f) / stdev_f;
    s.stats[2 * r] = mean_f;
    s.stats[2 * r + 1] = stdev_f;
  }
}

// The endogenous tokens: patches embedded (no bias) plus positions, then the global token.
TSSERVE_STAGE void embed_endogenous(const FusedTimeXerWeights& w, const TimeXerShape& c,
                                    TimeXerScratch& s) {
  const int T = static_cast<int>(w.seq_len);
  const int len = static_cast<int>(w.patch_len);
  const int P = static_cast<int>(w.patches);
  const int d = static_cast<int>(w.d_model);
  const ptrdiff_t dp = padded(w.d_model);
  for (int i = 0; i < c.samples; ++i) {
    for (int k = 0; k < c.endogenous; ++k) {
      const float* from =
          s.normalised.data() + (static_cast<size_t>(i) * c.variables + c.first_endogenous + k) * T;
      float* to = s.patches.data() + static_cast<size_t>(i * c.endogenous + k) * c.tokens * len;
      std::memcpy(to, from, sizeof(float) * static_cast<size_t>(P) * len);
      std::fill(to + static_cast<size_t>(P) * len, to + static_cast<size_t>(c.tokens) * len, 0.0f);
    }
  }
  linear(w.patch_embedding, s.patches.data(), len, c.rows(), s.x.data(), dp);
  for (int g = 0; g < c.groups(); ++g) {
    float* rows = s.x.data() + static_cast<size_t>(g) * c.tokens * dp;
    for (int p = 0; p < P; ++p) {
      const float* position = w.positions.data() + static_cast<size_t>(p) * d;
      for (int j = 0; j < d; ++j) rows[p * dp + j] += position[j];
    }
    const float* global = w.global_tokens.data() + static_cast<size_t>(g % c.endogenous) * d;
    std::memcpy(rows + static_cast<size_t>(P) * dp, global, sizeof(float) * d);
  }
}

// The covariate tokens: each covariate variable's normalised window, then each calendar
// row, embedded by one Linear.
TSSERVE_STAGE void embed_covariates(const FusedTimeXerWeights& w, const TimeXerShape& c,
                                    const float* calendar, TimeXerScratch& s) {
  const size_t T = static_cast<size_t>(w.seq_len);
  for (int i = 0; i < c.samples; ++i) {
    float* to = s.covariate_input.data() + static_cast<size_t>(i) * c.covariates * T;
    std::memcpy(to, s.normalised.data() + static_cast<size_t>(i) * c.variables * T,
                sizeof(float) * c.covariate_variables() * T);
    if (c.calendar > 0) {
      std::memcpy(to + c.covariate_variables() * T,
                  calendar + static_cast<size_t>(i) * c.calendar * T,
                  sizeof(float) * c.calendar * T);
    }
  }
  linear(w.covariate_embedding, s.covariate_input.data(), w.seq_len, c.covariate_rows(),
         s.covariates.data(), padded(w.d_model));
}

// Where one layer's maps of one sample go: the first slot naming the layer, or nowhere.
struct TimeXerMapSink {
  float* self_map = nullptr;   // [K][H'][L][L]
  float* cross_map = nullptr;  // [H'][K][V]
  int slot = -1;
};

TimeXerMapSink map_sink(const FusedTimeXerWeights& w, const FusedTimeXerMaps* maps, int layer) {
  if (maps == nullptr || !maps->wanted()) return {};
  for (int32_t slot = 0; slot < maps->layer_count; ++slot) {
    if (maps->layers[slot] != layer) continue;
    return {maps->self_maps + slot * fused_timexer_self_map_floats(w, maps->average_heads),
            maps->cross_maps + slot * fused_timexer_cross_map_floats(w, maps->average_heads), slot};
  }
  return {};
}

// The mean over heads (sum, then one division), then the copies for a layer named in more
// than one slot.
void finish_maps(const FusedTimeXerWeights& w, const FusedTimeXerMaps* maps, int layer,
                 const TimeXerMapSink& sink) {
  if (sink.slot < 0) return;
  const int64_t self_floats = fused_timexer_self_map_floats(w, maps->average_heads);
  const int64_t cross_floats = fused_timexer_cross_map_floats(w, maps->average_heads);
  if (maps->average_heads) {
    const float heads = static_cast<float>(w.n_heads);
    for (int64_t i = 0; i < self_floats; ++i) sink.self_map[i] /= heads;
    for (int64_t i = 0; i < cross_floats; ++i) sink.cross_map[i] /= heads;
  }
  for (int32_t slot = sink.slot + 1; slot < maps->layer_count; ++slot) {
    if (maps->layers[slot] != layer) continue;
    std::memcpy(maps->self_maps + slot * self_floats, sink.self_map, sizeof(float) * self_floats);
    std::memcpy(maps->cross_maps + slot * cross_floats, sink.cross_map,
                sizeof(float) * cross_floats);
  }
}

// The attention of `queries` query rows over `keys` key rows, head by head.
TokenAttention token_attention(const FusedTimeXerWeights& w, int queries, int keys, const float* q,
                               const float* k, const float* v, float* context, TimeXerScratch& s) {
  const ptrdiff_t dp = padded(w.d_model);
  return TokenAttention{queries,
                        keys,
                        static_cast<int>(w.n_heads),
                        static_cast<int>(w.d_model / w.n_heads),
                        q,
                        dp,
                        k,
                        v,
                        dp,
                        context,
                        dp,
                        s.keys_t.data(),
                        s.scores.data(),
                        s.head_context.data()};
}

// x = norm1(x + SelfAttention(x)) over each endogenous variable's L tokens.
void self_attention(const FusedTimeXerWeights& w, const FusedTimeXerLayer& layer,
                    const TimeXerShape& c, const FusedTimeXerMaps* maps,
                    const TimeXerMapSink* sinks, TimeXerScratch& s) {
  const ptrdiff_t dp = padded(w.d_model);
  const FusedTimeXerAttention& a = layer.self_attention;
  linear(a.query, s.x.data(), dp, c.rows(), s.queries.data(), dp);
  linear(a.key, s.x.data(), dp, c.rows(), s.keys.data(), dp);
  linear(a.value, s.x.data(), dp, c.rows(), s.values.data(), dp);
  for (int g = 0; g < c.groups(); ++g) {
    const size_t first = static_cast<size_t>(g) * c.tokens * dp;
    TokenAttention t =
        token_attention(w, c.tokens, c.tokens, s.queries.data() + first, s.keys.data() + first,
                        s.values.data() + first, s.context.data() + first, s);
    const int sample = g / c.endogenous;
    if (sinks[sample].self_map != nullptr) {
      const bool average = maps[sample].average_heads;
      t.map = sinks[sample].self_map + static_cast<size_t>(g % c.endogenous) *
                                           (average ? 1 : w.n_heads) * c.tokens * c.tokens;
      t.average_heads = average;
    }
    attend_tokens(t);
  }
  linear(a.out, s.context.data(), dp, c.rows(), s.x.data(), dp, s.x.data());
  layer_norm_rows(s.x.data(), c.rows(), dp, static_cast<int>(w.d_model), layer.norm1_weight.data(),
                  layer.norm1_bias.data());
}

// Each global token g = norm2(g + CrossAttention(g, the sample's covariate tokens)).
void cross_attention(const FusedTimeXerWeights& w, const FusedTimeXerLayer& layer,
                     const TimeXerShape& c, const FusedTimeXerMaps* maps,
                     const TimeXerMapSink* sinks, TimeXerScratch& s) {
  const ptrdiff_t dp = padded(w.d_model);
  const size_t last = static_cast<size_t>(c.tokens - 1) * dp;
  for (int g = 0; g < c.groups(); ++g) {
    std::memcpy(s.global.data() + g * dp, s.x.data() + g * c.tokens * dp + last,
                sizeof(float) * dp);
  }
  const FusedTimeXerAttention& a = layer.cross_attention;
  linear(a.query, s.global.data(), dp, c.groups(), s.queries.data(), dp);
  linear(a.key, s.covariates.data(), dp, c.covariate_rows(), s.keys.data(), dp);
  linear(a.value, s.covariates.data(), dp, c.covariate_rows(), s.values.data(), dp);
  for (int i = 0; i < c.samples; ++i) {
    const size_t q0 = static_cast<size_t>(i) * c.endogenous * dp;
    const size_t kv0 = static_cast<size_t>(i) * c.covariates * dp;
    TokenAttention t =
        token_attention(w, c.endogenous, c.covariates, s.queries.data() + q0, s.keys.data() + kv0,
                        s.values.data() + kv0, s.context.data() + q0, s);
    if (sinks[i].cross_map != nullptr) {
      t.map = sinks[i].cross_map;
      t.average_heads = maps[i].average_heads;
      t.map_rows = c.endogenous;
    }
    attend_tokens(t);
  }
  linear(a.out, s.context.data(), dp, c.groups(), s.global.data(), dp, s.global.data());
  layer_norm_rows(s.global.data(), c.groups(), dp, static_cast<int>(w.d_model),
                  layer.norm2_weight.data(), layer.norm2_bias.data());
  for (int g = 0; g < c.groups(); ++g) {
    std::memcpy(s.x.data() + g * c.tokens * dp + last, s.global.data() + g * dp,
                sizeof(float) * dp);
  }
}

void encoder_layer(const FusedTimeXerWeights& w, int index, const TimeXerShape& c,
                   const FusedTimeXerMaps* maps, TimeXerScratch& s) {
  const FusedTimeXerLayer& layer = w.layers[index];
  TimeXerMapSink sinks[kChunkRows];
  for (int i = 0; i < c.samples; ++i) sinks[i] = map_sink(w, maps ? maps + i : nullptr, index);
  self_attention(w, layer, c, maps, sinks, s);
  cross_attention(w, layer, c, maps, sinks, s);
  // x = norm3(x + conv2(act(conv1(x)))), in place.
  const ptrdiff_t dp = padded(w.d_model);
  const ptrdiff_t fp = padded(w.d_ff);
  linear(layer.ff1, s.x.data(), dp, c.rows(), s.hidden.data(), fp, nullptr, &w.activation);
  linear(layer.ff2, s.hidden.data(), fp, c.rows(), s.x.data(), dp, s.x.data());
  layer_norm_rows(s.x.data(), c.rows(), dp, static_cast<int>(w.d_model), layer.norm3_weight.data(),
                  layer.norm3_bias.data());
  for (int i = 0; i < c.samples; ++i) finish_maps(w, maps ? maps + i : nullptr, index, sinks[i]);
}

void forecast_chunk(const FusedTimeXerWeights& w, const TimeXerShape& c, const float* series,
                    const float* calendar, float* forecast, const FusedTimeXerMaps* maps,
                    TimeXerScratch& s) {
  const ptrdiff_t dp = padded(w.d_model);
  normalise_series(w, c, series, s);
  embed_endogenous(w, c, s);
  embed_covariates(w, c, calendar, s);
  for (size_t l = 0; l < w.layers.size(); ++l) encoder_layer(w, static_cast<int>(l), c, maps, s);
  layer_norm_rows(s.x.data(), c.rows(), dp, static_cast<int>(w.d_model), w.final_weight.data(),
                  w.final_bias.data());
  const ptrdiff_t fp = padded(w.pred_len);
  linear(w.head, s.x.data(), c.tokens * dp, c.groups(), s.head.data(), fp);
  for (int g = 0; g < c.groups(); ++g) {
    const float* scaled = s.head.data() + g * fp;
    float* out = forecast + static_cast<size_t>(g) * w.pred_len;
    if (!w.use_norm) {
      std::memcpy(out, scaled, sizeof(float) * w.pred_len);
      continue;
    }
    const int variable = (g / c.endogenous) * c.variables + c.first_endogenous + g % c.endogenous;
    const float mean = s.stats[2 * variable];
    const float stdev = s.stats[2 * variable + 1];
    for (int f = 0; f < w.pred_len; ++f) out[f] = scaled[f] * stdev + mean;
  }
}

}  // namespace

void timexer_forecast(const FusedTimeXerWeights& w, const float* series, const float* calendar,
                      int64_t samples, float* forecast, const FusedTimeXerMaps* maps) {
  thread_local TimeXerScratch scratch;
  const int per_sample = static_cast<int>(w.endogenous() * w.tokens());
  const int chunk = std::clamp((kChunkRows + per_sample / 2) / per_sample, 1, kChunkRows);
  scratch.fit(w, shape_of(w, chunk));
  const size_t series_stride = static_cast<size_t>(w.variables) * w.seq_len;
  const size_t calendar_stride = static_cast<size_t>(w.calendar_tokens) * w.seq_len;
  const size_t forecast_stride = static_cast<size_t>(w.endogenous()) * w.pred_len;
  for (int64_t s0 = 0; s0 < samples; s0 += chunk) {
    const TimeXerShape c = shape_of(w, static_cast<int>(std::min<int64_t>(chunk, samples - s0)));
    forecast_chunk(w, c, series + s0 * series_stride,
                   calendar ? calendar + s0 * calendar_stride : nullptr,
                   forecast + s0 * forecast_stride, maps ? maps + s0 : nullptr, scratch);
  }
}

}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
