#pragma once
// Runs a loaded Informer or Transformer (EncoderDecoder) on its device, with the other
// forecasters' contract: CPU tensors in and out, inference mode, concurrent calls from
// several batcher workers, LibTorch's exceptions let through. LibTorch serves it (the
// fused CPU kernels do not cover the encoder-decoders yet); kernels() says so.
//
// Its unit is a sample (the N variables of one window, read together); forecast() takes
// samples of equal N with their time marks.

#include <ATen/core/Tensor.h>

#include <string>

#include "tsserve/model/encoder_decoder.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/placed_forecaster.h"

namespace tsserve::model {

// What serving asks of an Informer's or a Transformer's config beyond loading it: with
// features "M", a forecast of every input variable (c_out = enc_in), since it would leave
// unsaid which variables c_out columns are. Throws ModelError naming `config_origin`
// otherwise.
void check_encoder_decoder_servable(const ModelConfig& config, const std::string& config_origin);

class EncoderDecoderForecaster final : public PlacedForecaster<EncoderDecoder> {
 public:
  // Moves `model` to the device, sets the threads and warms up (a sample of enc_in
  // variables, alone and warm_up_rows / enc_in of them, with attention; encode at seq_len
  // tokens). Throws ModelError.
  EncoderDecoderForecaster(EncoderDecoder model, const ForecasterOptions& options);

  // series [S, N, seq_len], marks [S, seq_len + pred_len, C], float32 CPU -> forecast
  // [S, n_out, pred_len] CPU in the model's (scaled) space; when asked, the attention maps
  // on the CPU: the encoder's per layer [S, H, L_i, L_i], the decoder's self- and
  // cross-attention per layer.
  EncoderDecoderForecast forecast(const at::Tensor& series, const at::Tensor& marks,
                                  bool need_attention) const;

  // tokens [B, L, d_model] float32 CPU -> the encoder alone, as PatchTSTForecaster::encode.
  EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;
};

}  // namespace tsserve::model
