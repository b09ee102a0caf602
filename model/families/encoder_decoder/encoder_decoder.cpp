#include "tsserve/model/encoder_decoder.h"

#include <ATen/ATen.h>

#include <memory>
#include <string>

#include "tsserve/model/encoder_decoder_family.h"
#include "tsserve/model/encoder_lengths.h"
#include "tsserve/model/full_attention.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/prob_attention.h"
#include "tsserve/model/unit_passes.h"

namespace tsserve::model {
namespace {

std::shared_ptr<const InnerAttention> encdec_inner_attention(const ModelConfig& config) {
  if (config.attention == AttentionKind::kFull) return std::make_shared<FullAttention>();
  ProbAttentionOptions options;
  options.factor = config.factor;
  options.layout = config.prob_layout;
  options.seed = config.prob_seed;
  return std::make_shared<ProbAttention>(options);
}

std::string shape_of(const at::Tensor& t) {
  return t.defined() ? c10::str(t.sizes()) : std::string("none");
}

bool has_shape(const at::Tensor& t, int64_t batch, int64_t length, int64_t width) {
  return t.defined() && t.dim() == 3 && t.size(0) == batch && t.size(1) == length &&
         t.size(2) == width;
}

}  // namespace

EncoderDecoderImpl::EncoderDecoderImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  if (!is_encoder_decoder(config_)) {
    throw ModelError("Informer/Transformer built from a config whose \"model\" is \"" +
                     config_.family + "\"");
  }
  mark_width_ = config_.mark_width();
  const bool invariant = config_.batch_invariant;
  const int64_t D = config_.d_model;
  const auto inner = encdec_inner_attention(config_);
  auto attention = [&] { return AttentionLayer(inner, D, config_.n_heads, invariant); };

  enc_embedding = register_module(
      "enc_embedding",
      DataEmbedding(config_.enc_in, D, config_.embed, config_.freq, mark_width_, invariant));
  dec_embedding = register_module(
      "dec_embedding",
      DataEmbedding(config_.dec_in, D, config_.embed, config_.freq, mark_width_, invariant));

  std::vector<EncoderLayer> encoder_layers;
  std::vector<DistillingConv> convs;
  for (int64_t i = 0; i < config_.e_layers; ++i) {
    encoder_layers.emplace_back(attention(), D, config_.d_ff, config_.activation, invariant);
    if (config_.distil && i + 1 < config_.e_layers) convs.emplace_back(D, kDistilPadding);
  }
  encoder = register_module(
      "encoder", Encoder(std::move(encoder_layers), std::move(convs), FinalNorm::kLayer, D));

  std::vector<DecoderLayer> decoder_layers;
  for (int64_t i = 0; i < config_.d_layers; ++i) {
    decoder_layers.emplace_back(attention(), attention(), D, config_.d_ff, config_.activation,
                                invariant);
  }
  decoder =
      register_module("decoder", Decoder(std::move(decoder_layers), D, config_.c_out, invariant));
  eval();
}

std::vector<int64_t> EncoderDecoderImpl::encoder_lengths() const {
  return model::encoder_lengths(config_);
}

void EncoderDecoderImpl::check_inputs(const at::Tensor& x_enc, const at::Tensor& x_mark_enc,
                                      const at::Tensor& x_dec, const at::Tensor& x_mark_dec) const {
  const int64_t B = x_enc.defined() && x_enc.dim() == 3 ? x_enc.size(0) : -1;
  const int64_t T = config_.seq_len;
  const int64_t L = config_.label_len + config_.pred_len;
  const int64_t C = mark_width_;
  auto expect = [&](const at::Tensor& t, const char* name, int64_t length, int64_t width) {
    if (has_shape(t, B, length, width)) return;
    throw ModelError(std::string(name) + " must be [" + (B < 0 ? "B" : std::to_string(B)) + ", " +
                     std::to_string(length) + ", " + std::to_string(width) + "], got " +
                     shape_of(t) + " (" + config_.family + ": seq_len=" + std::to_string(T) +
                     ", label_len + pred_len=" + std::to_string(L) + ", " + std::to_string(C) +
                     " mark columns)");
  };
  expect(x_enc, "x_enc", T, config_.enc_in);
  expect(x_mark_enc, "x_mark_enc", T, C);
  expect(x_dec, "x_dec", L, config_.dec_in);
  expect(x_mark_dec, "x_mark_dec", L, C);
}

at::Tensor EncoderDecoderImpl::forward(const at::Tensor& x_enc, const at::Tensor& x_mark_enc,
                                       const at::Tensor& x_dec, const at::Tensor& x_mark_dec) {
  check_inputs(x_enc, x_mark_enc, x_dec, x_mark_dec);
  return run(x_enc, x_mark_enc, x_dec, x_mark_dec, false).forecast;
}

EncoderDecoderForecast EncoderDecoderImpl::forecast_samples(const at::Tensor& series,
                                                            const at::Tensor& marks,
                                                            bool need_attention) {
  const int64_t T = config_.seq_len;
  const int64_t N = config_.enc_in;
  if (series.dim() != 3 || series.size(1) != N || series.size(2) != T) {
    throw ModelError(config_.family + " expects series [samples, " + std::to_string(N) +
                     " variables (enc_in), " + std::to_string(T) + " steps (seq_len)], got " +
                     shape_of(series));
  }
  const int64_t B = series.size(0);
  if (!has_shape(marks, B, T + config_.pred_len, mark_width_)) {
    throw ModelError(config_.family + " expects marks [" + std::to_string(B) + ", " +
                     std::to_string(T + config_.pred_len) + " steps (seq_len + pred_len), " +
                     std::to_string(mark_width_) + " columns (embed \"" + config_.embed +
                     "\", freq \"" + config_.freq + "\")], got " + shape_of(marks));
  }
  const at::Tensor x_enc = series.transpose(1, 2);  // [B, T, N]
  const int64_t label = config_.label_len;
  // TSLib's dec_inp: the last label_len known steps, then zeros where the forecast goes.
  const at::Tensor x_dec = at::cat(
      {x_enc.narrow(1, T - label, label), at::zeros({B, config_.pred_len, N}, x_enc.options())}, 1);
  EncoderDecoderForecast out =
      run(x_enc, marks.narrow(1, 0, T), x_dec, marks.narrow(1, T - label, label + config_.pred_len),
          need_attention);
  at::Tensor columns = out.forecast;  // [B, F, c_out]
  if (config_.features == ForecastFeatures::kMS) {
    columns = columns.narrow(2, config_.c_out - 1, 1);  // TSLib's f_dim = -1
  }
  out.forecast = columns.transpose(1, 2).contiguous();
  return out;
}

EncoderDecoderForecast EncoderDecoderImpl::run(const at::Tensor& x_enc,
                                               const at::Tensor& x_mark_enc,
                                               const at::Tensor& x_dec,
                                               const at::Tensor& x_mark_dec, bool need_attention) {
  if (!runs_unit_by_unit(config_.batch_invariant, x_enc)) {
    return run_batch(x_enc, x_mark_enc, x_dec, x_mark_dec, need_attention);
  }
  // Each pass gives [forecast, encoder maps..., decoder maps..., cross maps...].
  std::vector<at::Tensor> joined = run_unit_by_unit(x_enc.size(0), [&](int64_t sample) {
    EncoderDecoderForecast one =
        run_batch(unit_input(x_enc, sample), unit_input(x_mark_enc, sample),
                  unit_input(x_dec, sample), unit_input(x_mark_dec, sample), need_attention);
    std::vector<at::Tensor> parts{std::move(one.forecast)};
    for (auto* maps : {&one.encoder_attention, &one.decoder_attention, &one.cross_attention}) {
      for (at::Tensor& map : *maps) parts.push_back(std::move(map));
    }
    return parts;
  });
  EncoderDecoderForecast out;
  out.forecast = std::move(joined[0]);
  if (need_attention) {
    auto next = joined.begin() + 1;
    auto take = [&](std::vector<at::Tensor>& maps, int64_t count) {
      maps.assign(std::make_move_iterator(next), std::make_move_iterator(next + count));
      next += count;
    };
    take(out.encoder_attention, config_.e_layers);
    take(out.decoder_attention, config_.d_layers);
    take(out.cross_attention, config_.d_layers);
  }
  return out;
}

EncoderDecoderForecast EncoderDecoderImpl::run_batch(const at::Tensor& x_enc,
                                                     const at::Tensor& x_mark_enc,
                                                     const at::Tensor& x_dec,
                                                     const at::Tensor& x_mark_dec,
                                                     bool need_attention) {
  EncoderOutput encoded =
      encoder->forward(enc_embedding->forward(x_enc, x_mark_enc), {}, need_attention);
  DecoderOutput decoded =
      decoder->forward(dec_embedding->forward(x_dec, x_mark_dec), encoded.output, need_attention);
  EncoderDecoderForecast out;
  out.forecast = decoded.output.narrow(1, config_.label_len, config_.pred_len);
  out.encoder_attention = std::move(encoded.weights);
  out.decoder_attention = std::move(decoded.self_weights);
  out.cross_attention = std::move(decoded.cross_weights);
  return out;
}

EncoderOutput EncoderDecoderImpl::encode(const at::Tensor& tokens, const AttentionMask& mask,
                                         bool need_attention) {
  if (tokens.dim() != 3 || tokens.size(2) != config_.d_model) {
    throw ModelError("encode expects tokens [batch, length, " + std::to_string(config_.d_model) +
                     "], got " + shape_of(tokens));
  }
  if (!runs_unit_by_unit(config_.batch_invariant, tokens)) {
    return encoder->forward(tokens, mask, need_attention);
  }
  std::vector<at::Tensor> joined = run_unit_by_unit(tokens.size(0), [&](int64_t sequence) {
    AttentionMask own{mask.causal, unit_input(mask.key_padding, sequence)};
    EncoderOutput one = encoder->forward(unit_input(tokens, sequence), own, need_attention);
    std::vector<at::Tensor> parts{std::move(one.output)};
    for (at::Tensor& layer : one.weights) parts.push_back(std::move(layer));
    return parts;
  });
  EncoderOutput out{std::move(joined[0]), {}};
  out.weights.assign(std::make_move_iterator(joined.begin() + 1),
                     std::make_move_iterator(joined.end()));
  return out;
}

}  // namespace tsserve::model
