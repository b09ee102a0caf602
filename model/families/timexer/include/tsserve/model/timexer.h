#pragma once
// TimeXer (Wang et al., NeurIPS 2024) as TSLib's models/TimeXer.py has it, eval mode
// (MODEL_SPEC.md, "TimeXer"). The endogenous variables (timexer_family.h: the target for
// "MS", every variable for "M") are cut into non-overlapping patches, embedded (a Linear
// patch_len -> d_model without bias, plus the sinusoidal positions) and followed by a
// learned global token each: L = seq_len / patch_len + 1 tokens per endogenous variable.
// The covariates are tokens of their own: each covariate variable's whole window, then each
// calendar feature's (TSLib's x_mark), embedded by one Linear seq_len -> d_model
// (inverted_embedding.h). Each encoder layer runs self-attention over a variable's L
// tokens (norm1), then its global token attends over the covariate tokens (cross-attention,
// norm2), then the feed-forward over every token (norm3); a final LayerNorm; the head
// flattens each variable's [D, L] (D-major) and maps it to pred_len. With use_norm, every
// input series is normalised over time first and the forecast de-normalised with its
// variable's statistics.
//
// Submodule names give TSLib's state_dict keys: en_embedding.{glb_token,
// value_embedding.weight, position_embedding.pe}, ex_embedding.value_embedding.*,
// encoder.layers.<i>.{self_attention,cross_attention,conv1,conv2,norm1,norm2,norm3}.*,
// encoder.norm.*, head.linear.*.
//
// The batch unit is a sample (a window of all N variables). With config.batch_invariant
// (the default) a sample's result is bitwise the same alone or batched on the CPU
// (unit_passes.h). Thread safety: forward calls may run concurrently (no mutable state).

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "tsserve/model/attention_layer.h"
#include "tsserve/model/flatten_head.h"
#include "tsserve/model/inverted_embedding.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/positional_embedding.h"

namespace tsserve::model {

// The endogenous variables' patches and global tokens.
class EnEmbeddingImpl : public torch::nn::Module {
 public:
  EnEmbeddingImpl(int64_t variables, int64_t d_model, int64_t patch_len, bool batch_invariant);

  // endogenous [S, n, T] (n = the glb_token's variables) -> tokens [S * n, P + 1, D].
  at::Tensor forward(const at::Tensor& endogenous);

  torch::nn::Linear value_embedding{nullptr};
  at::Tensor glb_token;  // [1, n, 1, D]
  PositionalEmbedding position_embedding{nullptr};

 private:
  int64_t patch_len_;
  bool batch_invariant_;
};
TORCH_MODULE(EnEmbedding);

struct TimeXerLayerOutput {
  at::Tensor output;         // [S * n, L, D]
  at::Tensor self_weights;   // [S * n, H, L, L] when asked for
  at::Tensor cross_weights;  // [S, H, n, V] when asked for
};

// TimeXer's EncoderLayer: self-attention, the global token's cross-attention, feed-forward.
class TimeXerLayerImpl : public torch::nn::Module {
 public:
  TimeXerLayerImpl(const ModelConfig& config);

  // x [S * n, L, D], covariates [S, V, D].
  TimeXerLayerOutput forward(const at::Tensor& x, const at::Tensor& covariates, bool need_weights);

  AttentionLayer self_attention{nullptr}, cross_attention{nullptr};
  torch::nn::Conv1d conv1{nullptr}, conv2{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};

 private:
  Activation activation_;
  bool batch_invariant_;
};
TORCH_MODULE(TimeXerLayer);

// The layers and the final LayerNorm (TSLib's Encoder: encoder.layers.<i>, encoder.norm).
class TimeXerEncoderImpl : public torch::nn::Module {
 public:
  explicit TimeXerEncoderImpl(const ModelConfig& config);

  torch::nn::ModuleList layers{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(TimeXerEncoder);

struct TimeXerForecast {
  at::Tensor forecast;        // [S, K, F] in the input's units (K: timexer_endogenous_count)
  at::Tensor encoder_output;  // [S, K, L, D] after the final norm
  // Per layer, when asked for: the self-attention over each endogenous variable's tokens
  // [S, K, H, L, L], and the global tokens' cross-attention over the covariate tokens
  // [S, H, K, V] (TSLib's layout).
  std::vector<at::Tensor> self_attention;
  std::vector<at::Tensor> cross_attention;
};

class TimeXerImpl : public torch::nn::Module {
 public:
  // config.family must be TimeXer.
  explicit TimeXerImpl(const ModelConfig& config);

  // series [S, N, seq_len] (N = enc_in); calendar [S, C, seq_len] (calendar_rows of each
  // sample's timestamps) when the config has C > 0 calendar tokens, else undefined.
  // Throws ModelError naming the expected shapes.
  TimeXerForecast forecast_samples(const at::Tensor& series, const at::Tensor& calendar,
                                   bool need_attention = false);

  // TSLib's layout: x [B, seq_len, N], x_mark [B, seq_len, C] -> forecast [B, pred_len, K].
  at::Tensor forward(const at::Tensor& x, const at::Tensor& x_mark = {});

  // [C, seq_len] calendar rows for one sample's input timestamps (float32).
  at::Tensor calendar_rows(const std::vector<int64_t>& timestamps) const;

  // Names of the covariate tokens the cross-attention maps index, given the sample's
  // variables' names: the covariate variables' (every one for "M", all but the last for
  // "MS"), then the calendar features' (TSLib's class names: "HourOfDay", ...).
  std::vector<std::string> covariate_names(const std::vector<std::string>& variable_names) const;

  const ModelConfig& config() const { return config_; }
  int64_t calendar_token_count() const { return static_cast<int64_t>(calendar_.size()); }

  EnEmbedding en_embedding{nullptr};
  DataEmbeddingInverted ex_embedding{nullptr};
  TimeXerEncoder encoder{nullptr};
  FlattenHead head{nullptr};

 private:
  // The whole batch in one pass: what each unit-by-unit pass runs on its one sample.
  TimeXerForecast forecast_batch(const at::Tensor& series, const at::Tensor& calendar,
                                 bool need_attention);

  ModelConfig config_;
  std::vector<TimeFeature> calendar_;
};
TORCH_MODULE(TimeXer);

}  // namespace tsserve::model
