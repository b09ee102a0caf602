#pragma once
// Runs a loaded Informer or Transformer (model::EncoderDecoder) on its device, with the
// other runners' contract: CPU tensors in and out, inference mode, concurrent calls from
// several batcher workers, LibTorch's exceptions let through.
//
// Its unit is a sample (the N variables of one window, read together); forecast() takes
// samples of equal N with their time marks.

#include <ATen/core/Tensor.h>

#include <string>

#include "server/runtime/placed_model.h"
#include "server/runtime/runner_options.h"
#include "tsserve/model/encoder_decoder.h"

namespace tsserve::server {

class EncoderDecoderRunner : public PlacedModel<model::EncoderDecoder> {
 public:
  // Moves `model` to the device, sets the threads and warms up (a sample of enc_in
  // variables, alone and warm_up_rows / enc_in of them, with attention; encode at seq_len
  // tokens). Throws model::ModelError.
  EncoderDecoderRunner(model::EncoderDecoder model, const RunnerOptions& options);

  // series [S, N, seq_len], marks [S, seq_len + pred_len, C], float32 CPU -> forecast
  // [S, n_out, pred_len] CPU in the model's (scaled) space; when asked, the attention maps
  // on the CPU: the encoder's per layer [S, H, L_i, L_i], the decoder's self- and
  // cross-attention per layer.
  model::EncoderDecoderForecast forecast(const at::Tensor& series, const at::Tensor& marks,
                                         bool need_attention) const;

  // tokens [B, L, d_model] float32 CPU -> the encoder alone, as PatchTSTRunner::encode.
  model::EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;

  // LibTorch: the fused CPU kernels cover PatchTST and the iTransformer.
  const ServingKernels& kernels() const { return kernels_; }

 private:
  ServingKernels kernels_;
};

}  // namespace tsserve::server
