#include "tsserve/model/checkpoint_loader.h"

#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <map>

#include "tsserve/model/checkpoint_file.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

const char kParallelPrefix[] = "module.";

bool has_key(const StateDict& state, const std::string& key) {
  for (const auto& entry : state) {
    if (entry.first == key) return true;
  }
  return false;
}

std::string shape_text(const at::Tensor& t) { return c10::str(t.sizes()); }

}  // namespace

std::string config_path_for(const std::string& checkpoint_path) {
  const auto slash = checkpoint_path.find_last_of('/');
  const auto dot = checkpoint_path.find_last_of('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_extension ? checkpoint_path.substr(0, dot) : checkpoint_path) + ".json";
}

StateDict normalise_patchtst_keys(StateDict state, ModelConfig& config, const std::string& origin) {
  const size_t prefix_length = sizeof(kParallelPrefix) - 1;
  bool all_prefixed = !state.empty();
  for (const auto& entry : state) {
    all_prefixed = all_prefixed && entry.first.compare(0, prefix_length, kParallelPrefix) == 0;
  }
  if (all_prefixed) {
    for (auto& entry : state) entry.first.erase(0, prefix_length);
  }

  if (has_key(state, "patch_embedding.value_embedding.tokenConv.weight")) {
    throw ModelError("checkpoint " + origin +
                     ": has a Conv1d token embedding (TSLib before 2023-03); tsserve serves "
                     "the Linear patch embedding (patch_embedding.value_embedding.weight)");
  }
  std::optional<FinalNorm> detected;
  if (has_key(state, "encoder.norm.1.weight")) detected = FinalNorm::kBatch;
  if (has_key(state, "encoder.norm.weight")) detected = FinalNorm::kLayer;
  if (!detected) {
    throw ModelError("checkpoint " + origin +
                     ": no final norm found (expected encoder.norm.1.weight for TSLib's "
                     "BatchNorm or encoder.norm.weight for the LayerNorm variant)");
  }
  if (config.norm && *config.norm != *detected) {
    throw ModelError("checkpoint " + origin + ": the config says norm \"" + to_string(*config.norm) +
                     "\" but the checkpoint holds the \"" + to_string(*detected) +
                     "\" variant's keys");
  }
  config.norm = detected;
  return state;
}

void load_state_dict_into(torch::nn::Module& module, const StateDict& state,
                          const std::string& origin, const std::string& context) {
  std::map<std::string, at::Tensor> expected;
  std::vector<std::string> order;
  for (const auto& item : module.named_parameters(true)) {
    expected.emplace(item.key(), item.value());
    order.push_back(item.key());
  }
  for (const auto& item : module.named_buffers(true)) {
    expected.emplace(item.key(), item.value());
    order.push_back(item.key());
  }

  std::map<std::string, const at::Tensor*> provided;
  for (const auto& [name, tensor] : state) {
    if (!expected.count(name)) {
      throw ModelError("checkpoint " + origin + ": unexpected key '" + name + "' with shape " +
                       shape_text(tensor) + (context.empty() ? "" : " (" + context + ")"));
    }
    provided.emplace(name, &tensor);
  }
  for (const auto& name : order) {
    const at::Tensor& target = expected.at(name);
    auto it = provided.find(name);
    if (it == provided.end()) {
      throw ModelError("checkpoint " + origin + ": missing key '" + name + "' (expected shape " +
                       shape_text(target) + ")");
    }
    const at::Tensor& source = *it->second;
    if (source.sizes() != target.sizes()) {
      throw ModelError("checkpoint " + origin + ": key '" + name + "' has shape " +
                       shape_text(source) + " but the model expects " + shape_text(target) +
                       (context.empty() ? "" : " (" + context + ")"));
    }
    if (source.scalar_type() != target.scalar_type()) {
      throw ModelError("checkpoint " + origin + ": key '" + name + "' has dtype " +
                       std::string(c10::toString(source.scalar_type())) + " but the model expects " +
                       std::string(c10::toString(target.scalar_type())) +
                       " (save the model in float32, e.g. model.float())");
    }
  }

  at::NoGradGuard no_grad;
  for (const auto& name : order) expected.at(name).copy_(*provided.at(name));
}

PatchTST load_patchtst(const std::string& checkpoint_path, ModelConfig config) {
  StateDict state = normalise_patchtst_keys(read_checkpoint_file(checkpoint_path), config,
                                            checkpoint_path);
  PatchTST model(config);
  load_state_dict_into(*model, state, checkpoint_path, "config: " + config.summary());
  model->eval();
  return model;
}

PatchTST load_patchtst(const std::string& checkpoint_path) {
  return load_patchtst(checkpoint_path, load_model_config(config_path_for(checkpoint_path)));
}

}  // namespace tsserve::model
