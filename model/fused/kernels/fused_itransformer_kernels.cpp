// The fused iTransformer forward (fused_itransformer_forward.h), written once with GCC
// vector extensions and compiled once per instruction set like fused_forward_kernels.cpp
// (model/fused/CMakeLists.txt): TSSERVE_FUSED_LANES floats per vector, TSSERVE_FUSED_NAMESPACE
// naming the copy; fused_isa.cpp picks the copy (kernels/fused_kernel_table.h).
//
// Samples go through in chunks of a few (about kChunkRows tokens): each chunk's tokens
// are stacked as the rows of every GEMM, so a weight panel loaded into L1 serves every
// token of the chunk, and the chunk's activations (a few hundred KB) stay in L2 from the
// embedding to the forecast. Which samples share a chunk changes no bit of any of them
// (fused_panel_gemm.h; attention and norms run per sample or per row).
//
// Only the N variable tokens are forecast, so the last layer computes the calendar
// tokens' keys and values (every query attends to them) but not their queries, context,
// feed-forward or norms: the LibTorch path computes those and then drops them. A sample
// asking for the last layer's attention map gets its calendar queries' softmax rows
// computed on the side (token_attention_weights), outside the forecast's arithmetic.

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
#include "tsserve/model/fused_itransformer_forward.h"
#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/fused_row_maps.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

// Tokens per chunk, about: enough rows that the register tiles are full and a panel is
// reused many times, few enough that the chunk's activations stay in L2. (The bundled
// model at 64 samples, AVX2: 66 and 132 rows equally fast, 33 and 264 10-25 % slower.)
constexpr int kChunkRows = 66;

int padded(int64_t n) { return static_cast<int>(fused_round_up(n)); }

// The samples of a chunk: about kChunkRows tokens, preferring a count whose rows fill
// the register tiles (the nearest such count to the target wins ties).
int chunk_samples(int tokens) {
  const int around = std::max(1, (kChunkRows + tokens / 2) / tokens);
  int best = around;
  double best_fill = 0.0;
  for (int step : {0, -1, 1, -2, 2}) {
    const int s = around + step;
    if (s < 1) continue;
    const int rows = s * tokens;
    const int tiled = (rows + kPanelTileRows - 1) / kPanelTileRows * kPanelTileRows;
    const double fill = static_cast<double>(rows) / tiled;
    if (fill > best_fill + 1e-9) {
      best_fill = fill;
      best = s;
    }
  }
  return best;
}

// Per-thread buffers, grown to the largest shape seen and reused across calls. Every
// buffer has a vector's worth of slack past its end: the attention's last panel reads
// V's columns past the last head (fused_token_attention.h).
struct ITransformerScratch {
  FusedFloats input;       // [rows][seq_len]: normalised series, then calendar rows
  FusedFloats stats;       // [variable rows][2]: mean, stdev
  FusedFloats x;           // [rows][Dp]: the encoder's stream
  FusedFloats queries;     // [rows][Dp]
  FusedFloats keys;        // [rows][Dp]
  FusedFloats values;      // [rows][Dp]
  FusedFloats context;     // [rows][Dp]
  FusedFloats hidden;      // [rows][D_ff p]
  FusedFloats variable_x;  // [variable rows][Dp]: the last layer's stream, variables only
  FusedFloats keys_t, scores, head_context;  // one head of one sample
  FusedFloats head;                          // [variable rows][Fp]

  // `tokens` per sample, the first `variables` of them forecast.
  void fit(const FusedITransformerWeights& w, int samples, int variables, int tokens) {
    const size_t rows = static_cast<size_t>(samples) * tokens;
    const size_t variable_rows = static_cast<size_t>(samples) * variables;
    const size_t dp = padded(w.d_model);
    const size_t e = static_cast<size_t>(w.d_model / w.n_heads);
    grow(input, rows * w.seq_len);
    grow(stats, 2 * variable_rows);
    for (FusedFloats* b : {&x, &queries, &keys, &values, &context}) grow(*b, rows * dp);
    grow(hidden, rows * padded(w.d_ff));
    grow(variable_x, variable_rows * dp);
    grow(keys_t, e * padded(tokens));
    grow(scores, static_cast<size_t>(tokens) * padded(tokens));
    grow(head_context, static_cast<size_t>(tokens) * padded(static_cast<int64_t>(e)));
    grow(head, variable_rows * padded(w.pred_len));
  }
  static void grow(FusedFloats& v, size_t n) {
    n += kFusedPad;
    if (v.size() < n) v.resize(n, 0.0f);
  }
};

// One chunk's shape.
struct Chunk {
  int samples, variables, tokens;
  int rows() const { return samples * tokens; }
  int variable_rows() const { return samples * variables; }
};

// Instance normalisation of each variable's window (statistics in double, then float as
// the LibTorch path's values), and the calendar rows as they are: the embedding's input.
TSSERVE_STAGE void normalise_inputs(const FusedITransformerWeights& w, const Chunk& c,
                                    const float* series, const float* calendar,
                                    ITransformerScratch& s) {
  const int T = static_cast<int>(w.seq_len);
  for (int i = 0; i < c.samples; ++i) {
    for (int v = 0; v < c.variables; ++v) {
      const float* row = series + (static_cast<size_t>(i) * c.variables + v) * T;
      double sum = 0.0;
      for (int t = 0; t < T; ++t) sum += row[t];
      const double mean = sum / T;
      double squares = 0.0;
      for (int t = 0; t < T; ++t) squares += (row[t] - mean) * (row[t] - mean);
      const float mean_f = static_cast<float>(mean);
      const float stdev_f = static_cast<float>(std::sqrt(squares / T + 1e-5));
      float* out = s.input.data() + (static_cast<size_t>(i) * c.tokens + v) * T;
      for (int t = 0; t < T; ++t) out[t] = (row[t] - mean_f) / stdev_f;
      s.stats[2 * (i * c.variables + v)] = mean_f;
      s.stats[2 * (i * c.variables + v) + 1] = stdev_f;
    }
    const int calendar_tokens = c.tokens - c.variables;
    if (calendar_tokens > 0) {
      std::memcpy(s.input.data() + (static_cast<size_t>(i) * c.tokens + c.variables) * T,
                  calendar + static_cast<size_t>(i) * calendar_tokens * T,
                  sizeof(float) * calendar_tokens * T);
    }
  }
}

// The variable tokens' rows of `from` ([rows][ld], tokens per sample) into `to`.
void gather_variable_rows(const Chunk& c, const float* from, float* to, ptrdiff_t ld) {
  for (int i = 0; i < c.samples; ++i) {
    std::memcpy(to + static_cast<size_t>(i) * c.variables * ld,
                from + static_cast<size_t>(i) * c.tokens * ld, sizeof(float) * c.variables * ld);
  }
}

// Where one layer's map of one sample goes, or nowhere (map null).
struct ITransformerMapSink {
  float* map = nullptr;  // [H][N'][N'], or [N'][N'] when average_heads
  bool average_heads = false;
};

// Floats one layer's map of one sample takes, over `tokens` tokens.
int64_t layer_map_floats(const FusedITransformerWeights& w, int tokens, bool average_heads) {
  return (average_heads ? 1 : w.n_heads) * static_cast<int64_t>(tokens) * tokens;
}

// The sink of encoder layer `layer` for a sample's request: its first slot naming it.
ITransformerMapSink itransformer_map_sink(const FusedITransformerWeights& w, int tokens,
                                          const FusedRowMaps* maps, int layer) {
  if (maps == nullptr || !maps->wanted()) return {};
  const int64_t floats = layer_map_floats(w, tokens, maps->average_heads);
  for (int32_t slot = 0; slot < maps->layer_count; ++slot) {
    if (maps->layers[slot] == layer) {
      return {maps->slot_destination(slot, floats), maps->average_heads};
    }
  }
  return {};
}

// The mean over heads (sum, then one division), then the copies for a layer named in
// more than one slot.
void finish_itransformer_map(const FusedITransformerWeights& w, int tokens,
                             const FusedRowMaps* maps, int layer,
                             const ITransformerMapSink& written) {
  if (written.map == nullptr) return;
  const int64_t floats = layer_map_floats(w, tokens, maps->average_heads);
  if (written.average_heads) {
    const float heads = static_cast<float>(w.n_heads);
    for (int64_t i = 0; i < floats; ++i) written.map[i] /= heads;
  }
  for (int32_t slot = 0; slot < maps->layer_count; ++slot) {
    float* to = maps->slot_destination(slot, floats);
    if (maps->layers[slot] == layer && to != written.map) {
      std::memcpy(to, written.map, sizeof(float) * static_cast<size_t>(floats));
    }
  }
}

// One post-norm encoder layer. `stream` holds the rows whose output is wanted: every
// token's (query_tokens = tokens), or in the last layer the variables' alone
// (query_tokens = variables, stream = the gathered variable rows); keys and values come
// from every token's rows of `all`. maps: the chunk's samples' requests (null: none);
// `index` is the layer's.
void encoder_layer(const FusedITransformerWeights& w, int index, const Chunk& c, const float* all,
                   float* stream, int query_tokens, const FusedRowMaps* maps,
                   ITransformerScratch& s) {
  const FusedITransformerLayer& layer = w.layers[index];
  const ptrdiff_t dp = padded(w.d_model);
  const int d = static_cast<int>(w.d_model);
  const int stream_rows = c.samples * query_tokens;
  linear(layer.key, all, dp, c.rows(), s.keys.data(), dp);
  linear(layer.value, all, dp, c.rows(), s.values.data(), dp);
  linear(layer.query, stream, dp, stream_rows, s.queries.data(), dp);
  for (int i = 0; i < c.samples; ++i) {
    const size_t q0 = static_cast<size_t>(i) * query_tokens * dp;
    const size_t kv0 = static_cast<size_t>(i) * c.tokens * dp;
    const FusedRowMaps* sample_maps = maps ? maps + i : nullptr;
    const ITransformerMapSink sink = itransformer_map_sink(w, c.tokens, sample_maps, index);
    TokenAttention t{query_tokens,
                     c.tokens,
                     static_cast<int>(w.n_heads),
                     static_cast<int>(w.d_model / w.n_heads),
                     s.queries.data() + q0,
                     dp,
                     s.keys.data() + kv0,
                     s.values.data() + kv0,
                     dp,
                     s.context.data() + q0,
                     dp,
                     s.keys_t.data(),
                     s.scores.data(),
                     s.head_context.data(),
                     sink.map,
                     sink.average_heads};
    attend_tokens(t);
    if (sink.map != nullptr && query_tokens < c.tokens) {
      // The skipped (calendar) queries of this sample, for its map only: projected into
      // the queries' rows past the stream's, which nothing reads in this layer.
      const int skipped = c.tokens - query_tokens;
      float* extra = s.queries.data() + static_cast<size_t>(stream_rows) * dp;
      linear(layer.query, all + kv0 + static_cast<size_t>(query_tokens) * dp, dp, skipped, extra,
             dp);
      t.queries = skipped;
      t.q = extra;
      token_attention_weights(t, query_tokens);
    }
    finish_itransformer_map(w, c.tokens, sample_maps, index, sink);
  }
  // x = norm1(x + out(context)); x = norm2(x + conv2(act(conv1(x)))), in place.
  linear(layer.out, s.context.data(), dp, stream_rows, stream, dp, stream);
  layer_norm_rows(stream, stream_rows, dp, d, layer.norm1_weight.data(), layer.norm1_bias.data());
  const ptrdiff_t fp = padded(w.d_ff);
  linear(layer.ff1, stream, dp, stream_rows, s.hidden.data(), fp, nullptr, &w.activation);
  linear(layer.ff2, s.hidden.data(), fp, stream_rows, stream, dp, stream);
  layer_norm_rows(stream, stream_rows, dp, d, layer.norm2_weight.data(), layer.norm2_bias.data());
}

void forecast_chunk(const FusedITransformerWeights& w, const Chunk& c, const float* series,
                    const float* calendar, float* forecast, const FusedRowMaps* maps,
                    ITransformerScratch& s) {
  const ptrdiff_t dp = padded(w.d_model);
  normalise_inputs(w, c, series, calendar, s);
  linear(w.embedding, s.input.data(), w.seq_len, c.rows(), s.x.data(), dp);

  const bool has_calendar = c.tokens > c.variables;
  float* stream = s.x.data();
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const bool last = l + 1 == w.layers.size();
    if (last && has_calendar) {
      gather_variable_rows(c, s.x.data(), s.variable_x.data(), dp);
      stream = s.variable_x.data();
    }
    encoder_layer(w, static_cast<int>(l), c, s.x.data(), stream, last ? c.variables : c.tokens,
                  maps, s);
  }
  if (w.layers.empty() && has_calendar) {
    gather_variable_rows(c, s.x.data(), s.variable_x.data(), dp);
    stream = s.variable_x.data();
  }

  layer_norm_rows(stream, c.variable_rows(), dp, static_cast<int>(w.d_model), w.final_weight.data(),
                  w.final_bias.data());
  const ptrdiff_t fp = padded(w.pred_len);
  linear(w.projection, stream, dp, c.variable_rows(), s.head.data(), fp);
  for (int r = 0; r < c.variable_rows(); ++r) {
    const float mean = s.stats[2 * r];
    const float stdev = s.stats[2 * r + 1];
    const float* scaled = s.head.data() + r * fp;
    float* out = forecast + static_cast<size_t>(r) * w.pred_len;
    for (int f = 0; f < w.pred_len; ++f) out[f] = scaled[f] * stdev + mean;
  }
}

// Encode's longest sequence whose buffers a thread keeps between calls: the iTransformer's
// tokens are its variables and calendar tokens, tens for TSLib's datasets.
constexpr int64_t kCachedEncodeTokens = 128;

// Encode of a chunk of sequences of c.tokens tokens each ([rows][D], already embedded):
// every layer over every token, then the final LayerNorm, out as [rows][D].
void encode_chunk(const FusedITransformerWeights& w, const Chunk& c, const float* tokens,
                  float* output, const FusedRowMaps* maps, ITransformerScratch& s) {
  const ptrdiff_t dp = padded(w.d_model);
  const int d = static_cast<int>(w.d_model);
  for (int r = 0; r < c.rows(); ++r) {
    float* row = s.x.data() + r * dp;
    std::memcpy(row, tokens + static_cast<size_t>(r) * d, sizeof(float) * d);
    std::fill(row + d, row + dp, 0.0f);
  }
  for (size_t l = 0; l < w.layers.size(); ++l) {
    encoder_layer(w, static_cast<int>(l), c, s.x.data(), s.x.data(), c.tokens, maps, s);
  }
  layer_norm_rows(s.x.data(), c.rows(), dp, d, w.final_weight.data(), w.final_bias.data());
  for (int r = 0; r < c.rows(); ++r) {
    std::memcpy(output + static_cast<size_t>(r) * d, s.x.data() + r * dp, sizeof(float) * d);
  }
}

}  // namespace

void itransformer_encode(const FusedITransformerWeights& w, const float* tokens, int64_t sequences,
                         int64_t length, float* output, const FusedRowMaps* maps) {
  // As PatchTST's Encode: a sequence longer than kCachedEncodeTokens gets buffers of its
  // own, freed on return, rather than keeping its L x L scores for the thread's lifetime.
  thread_local ITransformerScratch cached;
  ITransformerScratch own;
  ITransformerScratch& scratch = length <= kCachedEncodeTokens ? cached : own;
  const int L = static_cast<int>(length);
  const int chunk = chunk_samples(L);
  scratch.fit(w, chunk, L, L);
  const size_t stride = static_cast<size_t>(L) * w.d_model;
  for (int64_t s0 = 0; s0 < sequences; s0 += chunk) {
    const Chunk c{static_cast<int>(std::min<int64_t>(chunk, sequences - s0)), L, L};
    encode_chunk(w, c, tokens + s0 * stride, output + s0 * stride, maps ? maps + s0 : nullptr,
                 scratch);
  }
}

void itransformer_forecast(const FusedITransformerWeights& w, const float* series,
                           const float* calendar, int64_t samples, int64_t variables,
                           float* forecast, const FusedRowMaps* maps) {
  thread_local ITransformerScratch scratch;
  const int n = static_cast<int>(variables);
  const int tokens = n + static_cast<int>(w.calendar_tokens);
  const int chunk = chunk_samples(tokens);
  scratch.fit(w, chunk, n, tokens);
  const size_t series_stride = static_cast<size_t>(n) * w.seq_len;
  const size_t calendar_stride = static_cast<size_t>(w.calendar_tokens) * w.seq_len;
  const size_t forecast_stride = static_cast<size_t>(n) * w.pred_len;
  for (int64_t s0 = 0; s0 < samples; s0 += chunk) {
    const Chunk c{static_cast<int>(std::min<int64_t>(chunk, samples - s0)), n, tokens};
    forecast_chunk(w, c, series + s0 * series_stride,
                   calendar ? calendar + s0 * calendar_stride : nullptr,
                   forecast + s0 * forecast_stride, maps ? maps + s0 : nullptr, scratch);
  }
}

}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
