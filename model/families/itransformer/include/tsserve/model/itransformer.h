#pragma once
// iTransformer (Liu et al., ICLR 2024) as TSLib's models/iTransformer.py has it, eval mode.
// The tokens are the variables: each variable's whole normalised input window is one token
// (DataEmbedding_inverted: a Linear seq_len -> d_model), followed, when the model was
// trained with calendar features (TSLib's x_mark, embed 'timeF'), by one token per feature
// embedded with the same Linear from its window of values. A post-norm encoder attends
// across the N' = N + C tokens, a final LayerNorm, the projection Linear d_model -> pred_len
// maps the first N tokens to their forecasts, which are de-normalised.
//
// Submodule names give TSLib's state_dict keys: enc_embedding.value_embedding.*,
// encoder.attn_layers.<i>.*, encoder.norm.*, projection.*.
//
// The batch unit is a sample (all N variables of one window): unlike PatchTST, variables of
// one request interact. The weights fix no N, so any N >= 1 runs; samples of equal N can
// share a batch, and with config.batch_invariant (the default) a sample's result is bitwise
// the same alone or batched: on the CPU each sample runs as a pass of its own
// (unit_passes.h); on a GPU the batch runs at once and the promise is not made.
//
// Thread safety: as PatchTST (forward calls may run concurrently; no mutable state).

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "tsserve/model/encoder.h"
#include "tsserve/model/inverted_embedding.h"
#include "tsserve/model/model_config.h"

namespace tsserve::model {

struct SampleForecast {
  at::Tensor forecast;                // [B, N, F] (one sample: [N, F]), in the input's units
  at::Tensor encoder_output;          // [B, N', D] (one sample: [N', D]), after the final norm
  std::vector<at::Tensor> attention;  // per layer [B, H, N', N'] (one sample: [H, N', N'])
};

class ITransformerImpl : public torch::nn::Module {
 public:
  // config.family must be kITransformer.
  explicit ITransformerImpl(const ModelConfig& config);

  // The entry point for serving one request: series [N, seq_len] (variables as rows) and,
  // when the config has calendar tokens, one Unix time (seconds, UTC) per input step, from
  // which TSLib's calendar features are computed. Throws ModelError naming 'timestamps'
  // when they are missing, of the wrong count or not strictly increasing.
  SampleForecast forecast_sample(const at::Tensor& series, const std::vector<int64_t>& timestamps,
                                 bool need_attention = false);

  // Batched: series [B, N, seq_len]; calendar [B, C, seq_len] (time_feature_rows of each
  // sample's timestamps) when the config has C > 0 calendar tokens, else undefined.
  SampleForecast forecast_samples(const at::Tensor& series, const at::Tensor& calendar,
                                  bool need_attention = false);

  // TSLib's layout: x [B, seq_len, N], x_mark [B, seq_len, C] -> forecast [B, pred_len, N].
  at::Tensor forward(const at::Tensor& x, const at::Tensor& x_mark = {});

  // [C, seq_len] calendar rows for one sample's timestamps (float32).
  at::Tensor calendar_rows(const std::vector<int64_t>& timestamps) const;

  // Names of the N' tokens the attention maps index: the variables' names, then the
  // calendar features' (TSLib's class names: "HourOfDay", ...).
  std::vector<std::string> token_names(const std::vector<std::string>& variable_names) const;

  const ModelConfig& config() const { return config_; }
  int64_t calendar_token_count() const { return static_cast<int64_t>(calendar_.size()); }

  DataEmbeddingInverted enc_embedding{nullptr};
  Encoder encoder{nullptr};
  torch::nn::Linear projection{nullptr};

 private:
  // The whole batch in one pass: what each unit-by-unit pass runs on its one sample.
  SampleForecast forecast_batch(const at::Tensor& series, const at::Tensor& calendar,
                                bool need_attention);

  ModelConfig config_;
  std::vector<TimeFeature> calendar_;
};
TORCH_MODULE(ITransformer);

}  // namespace tsserve::model
