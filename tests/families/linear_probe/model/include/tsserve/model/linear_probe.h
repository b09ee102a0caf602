#pragma once
// LinearProbe, the test family (tests/families/linear_probe/): each variable's forecast is
// one Linear map of its window, forecast = linear(window) ([seq_len] -> [pred_len]), so a
// family that fits in a few files proves that a new one needs its two folders and its name
// in a build's family list, and no change anywhere else (docs/ARCHITECTURE.md, "Adding a
// family"). Not served by the product's build: only tests link it.
//
// Its config is the shared one (model_config.h) with "model": "LinearProbe"; d_model,
// n_heads, e_layers and d_ff are required there and unused here. Its state_dict:
// linear.weight [pred_len, seq_len], linear.bias [pred_len].

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>

#include "tsserve/model/forecaster.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/placed_forecaster.h"

namespace tsserve::model {

inline constexpr char kLinearProbeFamily[] = "LinearProbe";

class LinearProbeImpl : public torch::nn::Module {
 public:
  explicit LinearProbeImpl(const ModelConfig& config);

  // rows [R, seq_len] -> [R, pred_len].
  at::Tensor forward(const at::Tensor& rows);

  const ModelConfig& config() const { return config_; }

  torch::nn::Linear linear{nullptr};

 private:
  ModelConfig config_;
};
TORCH_MODULE(LinearProbe);

// Reads the checkpoint and builds the model from `config` (config.family "LinearProbe").
LinearProbe load_linear_probe(const std::string& checkpoint_path, const ModelConfig& config,
                              const std::string& config_origin = "");

// The family's forecaster: LibTorch on the device of its options.
class LinearProbeForecaster final : public PlacedForecaster<LinearProbe> {
 public:
  LinearProbeForecaster(LinearProbe model, const ForecasterOptions& options);

  // rows [R, seq_len] float32 CPU -> forecast [R, pred_len] CPU.
  at::Tensor forecast(const at::Tensor& rows) const;
};

}  // namespace tsserve::model
