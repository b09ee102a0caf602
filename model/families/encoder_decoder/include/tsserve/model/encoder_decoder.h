#pragma once
// TSLib's Informer and Transformer (models/Informer.py, models/Transformer.py) for long-term
// forecasting, eval mode: one class, as the two differ only in their attention and
// distilling.
//
//   enc = Encoder(enc_embedding(x_enc, x_mark_enc))       e_layers EncoderLayers, Informer's
//                                                         distilling ConvLayers between them
//                                                         (distil), a final LayerNorm
//   out = Decoder(dec_embedding(x_dec, x_mark_dec), enc)  d_layers DecoderLayers (causal
//                                                         self-attention, cross-attention),
//                                                         LayerNorm, Linear(D -> c_out)
//   forecast = out[:, -pred_len:, :]                      "MS": only the last column
//
// Informer's attention is ProbSparse (the server's deterministic sample, prob_attention.h)
// with TSLib's context layout by default (config.prob_layout "tslib": Informer checkpoints
// were trained with TSLib's head/position mix); the Transformer's is Full. Both pass
// config.factor and no scale (1/sqrt(E)), as TSLib does (its FullAttention ignores factor).
//
// Submodule names give TSLib's state_dict keys: enc_embedding.*, dec_embedding.*,
// encoder.attn_layers.<i>.*, encoder.conv_layers.<i>.{downConv,norm}.*, encoder.norm.*,
// decoder.layers.<i>.*, decoder.norm.*, decoder.projection.*.
//
// The batch unit is a sample (all variables of one window). With config.batch_invariant (the
// default) a sample's results are bitwise the same alone or batched: on the CPU each sample
// runs as a pass of its own (unit_passes.h); on a GPU the batch runs at once and the promise
// is not made. ProbSparse's key sample depends on the seed and the lengths only.
//
// Thread safety: forward calls on one instance may run concurrently (no mutable state).

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <vector>

#include "tsserve/model/data_embedding.h"
#include "tsserve/model/decoder.h"
#include "tsserve/model/encoder.h"
#include "tsserve/model/model_config.h"

namespace tsserve::model {

struct EncoderDecoderForecast {
  // [B, n_out, pred_len] in the model's (dataset-scaled) space; n_out = c_out for "M", 1 for
  // "S" and "MS" (the last output column).
  at::Tensor forecast;
  // Per encoder layer [B, H, L_i, L_i], L_i = encoder_lengths()[i] (shrinking with distil).
  std::vector<at::Tensor> encoder_attention;
  // Per decoder layer [B, H, L_dec, L_dec], L_dec = label_len + pred_len (causal).
  std::vector<at::Tensor> decoder_attention;
  // Per decoder layer [B, H, L_dec, encoder_output_length()].
  std::vector<at::Tensor> cross_attention;
};

class EncoderDecoderImpl : public torch::nn::Module {
 public:
  // config.family must be kInformer or kTransformer (else ModelError); the config is
  // validated (dec_in == enc_in among its rules).
  explicit EncoderDecoderImpl(const ModelConfig& config);

  // TSLib's forward (long_term_forecast): x_enc [B, seq_len, enc_in], x_mark_enc
  // [B, seq_len, C], x_dec [B, label_len + pred_len, dec_in], x_mark_dec
  // [B, label_len + pred_len, C] -> [B, pred_len, c_out] (every column, whatever features).
  at::Tensor forward(const at::Tensor& x_enc, const at::Tensor& x_mark_enc, const at::Tensor& x_dec,
                     const at::Tensor& x_mark_dec);

  // Serving: series [B, enc_in, seq_len] (variables as rows, dataset-scaled), marks
  // [B, seq_len + pred_len, C] (time_marks.h: every input step's marks, then every future
  // step's). Builds TSLib's decoder input: the last label_len input steps, then pred_len
  // zeros, with the last label_len + pred_len rows of marks. Attention maps only when
  // need_attention. Throws ModelError naming the expected shapes.
  EncoderDecoderForecast forecast_samples(const at::Tensor& series, const at::Tensor& marks,
                                          bool need_attention = false);

  // The encoder alone (the server's Encode call): tokens [B, L, d_model] -> output
  // [B, L', d_model] after the final LayerNorm, weights per layer. Key padding is refused
  // with distilling layers. With batch_invariant on the CPU each sequence is its own pass.
  EncoderOutput encode(const at::Tensor& tokens, const AttentionMask& mask = {},
                       bool need_attention = false);

  // Each encoder layer's input length (e_layers entries): seq_len, then, with distil, each
  // distilling conv's output (L -> (L + 1) / 2 + 1 with TSLib's circular padding 2:
  // 96 -> 49 -> 25); without, seq_len for every layer.
  std::vector<int64_t> encoder_lengths() const;
  // The length the cross-attention sees: the last layer's (encoder_lengths().back()).
  int64_t encoder_output_length() const { return encoder_lengths().back(); }

  const ModelConfig& config() const { return config_; }
  int64_t output_variables() const { return config_.output_variables(); }
  int64_t mark_width() const { return mark_width_; }

  DataEmbedding enc_embedding{nullptr};
  DataEmbedding dec_embedding{nullptr};
  Encoder encoder{nullptr};
  Decoder decoder{nullptr};

 private:
  // Every output column ([B, pred_len, c_out] in `forecast`), unit by unit where promised.
  EncoderDecoderForecast run(const at::Tensor& x_enc, const at::Tensor& x_mark_enc,
                             const at::Tensor& x_dec, const at::Tensor& x_mark_dec,
                             bool need_attention);
  // The whole batch in one pass: what each unit-by-unit pass runs on its one sample.
  EncoderDecoderForecast run_batch(const at::Tensor& x_enc, const at::Tensor& x_mark_enc,
                                   const at::Tensor& x_dec, const at::Tensor& x_mark_dec,
                                   bool need_attention);
  void check_inputs(const at::Tensor& x_enc, const at::Tensor& x_mark_enc, const at::Tensor& x_dec,
                    const at::Tensor& x_mark_dec) const;

  ModelConfig config_;
  int64_t mark_width_;
};
TORCH_MODULE(EncoderDecoder);

}  // namespace tsserve::model
