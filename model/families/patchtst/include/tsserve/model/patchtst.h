#pragma once
// PatchTST (TSLib/TFB) for long-term forecasting, eval mode. Submodule names equal the
// PyTorch attribute names, so named_parameters()/named_buffers() are the state_dict keys:
// patch_embedding.*, encoder.*, head.linear.*.
//
// The batch unit is a series row: every variable of every sample runs through the
// network on its own (channel independence), so rows of different requests can share a
// batch. With config.batch_invariant (the default) a row's result is bitwise the same
// whatever else is in the batch: on the CPU each row runs as a pass of its own
// (unit_passes.h); on a GPU the batch runs at once and the promise is not made.
//
// Thread safety: forward calls on one instance may run concurrently (no mutable state),
// but LibTorch's intra-op thread pool is process-wide.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <vector>

#include "tsserve/model/encoder.h"
#include "tsserve/model/flatten_head.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/patch_embedding.h"

namespace tsserve::model {

struct RowForecast {
  at::Tensor forecast;                 // [R, F], in the units of the input series
  at::Tensor encoder_output;           // [R, P, D], after the final norm
  std::vector<at::Tensor> attention;   // per layer [R, H, P, P], when asked for
};

class PatchTSTImpl : public torch::nn::Module {
 public:
  // config.norm must be set (normalise_patchtst_keys fills it from the keys).
  explicit PatchTSTImpl(const ModelConfig& config);

  // series [R, seq_len]: one row per (sample, variable). Instance normalisation, patching,
  // encoder, head, de-normalisation.
  RowForecast forecast_rows(const at::Tensor& series, bool need_attention = false);

  // TSLib's layout: x [B, seq_len, N] -> forecast [B, pred_len, N].
  at::Tensor forward(const at::Tensor& x);

  // The raw patch-token entry point: tokens [B, L, d_model] -> encoder output [B, L, D].
  // With batch_invariant on the CPU, each sequence runs as a pass of its own.
  EncoderOutput encode(const at::Tensor& tokens, const AttentionMask& mask = {},
                       bool need_attention = false);

  const ModelConfig& config() const { return config_; }

  PatchEmbedding patch_embedding{nullptr};
  Encoder encoder{nullptr};
  FlattenHead head{nullptr};

 private:
  // The whole batch in one pass: what each unit-by-unit pass runs on its one row.
  RowForecast forecast_batch(const at::Tensor& series, bool need_attention);
  EncoderOutput encode_batch(const at::Tensor& tokens, const AttentionMask& mask,
                             bool need_attention);

  ModelConfig config_;
};
TORCH_MODULE(PatchTST);

}  // namespace tsserve::model
