#include "tsserve/model/linear_probe.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include "tsserve/model/checkpoint_file.h"
#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/placement.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::model {

LinearProbeImpl::LinearProbeImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  if (config_.family != kLinearProbeFamily) {
    throw ModelError("LinearProbe built from a config whose \"model\" is \"" + config_.family +
                     "\"");
  }
  linear = register_module("linear", torch::nn::Linear(config_.seq_len, config_.pred_len));
}

at::Tensor LinearProbeImpl::forward(const at::Tensor& rows) { return linear->forward(rows); }

LinearProbe load_linear_probe(const std::string& checkpoint_path, const ModelConfig& config,
                              const std::string& config_origin) {
  const std::string context = loading_context(config_origin, config);
  StateDict state = strip_parallel_prefix(read_checkpoint_file(checkpoint_path));
  check_family_of_keys(state, config, checkpoint_path, context);
  return build_from_state<LinearProbe>(state, config, checkpoint_path, context);
}

LinearProbeForecaster::LinearProbeForecaster(LinearProbe model, const ForecasterOptions& options)
    : PlacedForecaster(std::move(model), options) {
  kernels_ = libtorch_kernels(options, kLinearProbeFamily);
  c10::InferenceMode guard;
  forecast(at::zeros({1, config().seq_len}));
}

at::Tensor LinearProbeForecaster::forecast(const at::Tensor& rows) const {
  c10::InferenceMode guard;
  return to_cpu(model_->forward(rows.to(device())));
}

}  // namespace tsserve::model
