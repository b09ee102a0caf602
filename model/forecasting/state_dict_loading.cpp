#include "tsserve/model/state_dict_loading.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <map>

#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"

namespace tsserve::model {
namespace {

const char kParallelPrefix[] = "module.";

std::string shape_text(const at::Tensor& t) { return c10::str(t.sizes()); }

// "a PatchTST's", "an Informer's".
std::string owned_by(const std::string& family) {
  const bool vowel =
      !family.empty() && std::string("AEIOUaeiou").find(family[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + family + "'s";
}

// A checkpoint key some families' state_dicts hold and no other's.
struct Marker {
  std::string key;
  std::vector<std::string> families;
};

// Every registered marker with the families that name it, those fewer families share
// first (a distilling Informer's conv layers name the family more precisely than the
// embedding it shares with the Transformer).
std::vector<Marker> markers_by_precision() {
  std::vector<Marker> markers;
  for (const ModelFamilyRules* rules : model_family_rules()) {
    for (const std::string& key : rules->checkpoint_markers) {
      auto it = std::find_if(markers.begin(), markers.end(),
                             [&](const Marker& m) { return m.key == key; });
      if (it == markers.end()) it = markers.insert(markers.end(), Marker{key, {}});
      it->families.push_back(rules->name);
    }
  }
  std::stable_sort(markers.begin(), markers.end(), [](const Marker& a, const Marker& b) {
    return a.families.size() < b.families.size();
  });
  return markers;
}

}  // namespace

StateDict strip_parallel_prefix(StateDict state) {
  const size_t prefix_length = sizeof(kParallelPrefix) - 1;
  bool all_prefixed = !state.empty();
  for (const auto& entry : state) {
    all_prefixed = all_prefixed && entry.first.compare(0, prefix_length, kParallelPrefix) == 0;
  }
  if (all_prefixed) {
    for (auto& entry : state) entry.first.erase(0, prefix_length);
  }
  return state;
}

bool has_state_key(const StateDict& state, const std::string& key) {
  for (const auto& entry : state) {
    if (entry.first == key) return true;
  }
  return false;
}

void check_family_of_keys(const StateDict& state, const ModelConfig& config,
                          const std::string& origin, const std::string& context) {
  for (const Marker& marker : markers_by_precision()) {
    if (!has_state_key(state, marker.key)) continue;
    const auto& owners = marker.families;
    if (std::find(owners.begin(), owners.end(), config.family) != owners.end()) return;
    std::string owner;
    std::string model;
    for (size_t i = 0; i < owners.size(); ++i) {
      const bool single = owners.size() == 1;
      owner += (i == 0 ? "" : " or ") + (single ? owners[i] + "'s" : owned_by(owners[i]));
      model += (i == 0 ? "" : "\" or \"") + owners[i];
    }
    throw ModelError("checkpoint " + origin + ": its keys are " + owner + " (key '" + marker.key +
                     "') but the config's \"model\" is \"" + config.family + "\"" +
                     (context.empty() ? "" : " (" + context + ")") + "; set \"model\": \"" + model +
                     "\" or use the matching checkpoint");
  }
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
                       std::string(c10::toString(source.scalar_type())) +
                       " but the model expects " +
                       std::string(c10::toString(target.scalar_type())) +
                       " (save the model in float32, e.g. model.float())");
    }
  }

  at::NoGradGuard no_grad;
  for (const auto& name : order) expected.at(name).copy_(*provided.at(name));
}

ShapeCheck::ShapeCheck(const StateDict& state, std::string origin, const std::string& context)
    : origin_(std::move(origin)), suffix_(context.empty() ? "" : " (" + context + ")") {
  for (const auto& [name, tensor] : state) by_key_.emplace(name, &tensor);
}

void ShapeCheck::expect(const std::string& key, const std::vector<int64_t>& shape,
                        const std::string& fields) const {
  const auto it = by_key_.find(key);
  if (it == by_key_.end()) {
    throw ModelError("checkpoint " + origin_ + ": missing key '" + key + "' (expected shape " +
                     c10::str(at::IntArrayRef(shape)) + " from the config's " + fields + ")" +
                     suffix_);
  }
  if (it->second->sizes() != at::IntArrayRef(shape)) {
    throw ModelError("checkpoint " + origin_ + ": key '" + key + "' has shape " +
                     shape_text(*it->second) + " but the config's " + fields + " give " +
                     c10::str(at::IntArrayRef(shape)) + suffix_);
  }
}

void ShapeCheck::expect_encoder_layers(const ModelConfig& config) const {
  const std::string d = "d_model=" + std::to_string(config.d_model);
  for (int64_t i = 0; i < config.e_layers; ++i) {
    const std::string layer = "encoder.attn_layers." + std::to_string(i) + ".";
    const std::string fields = "e_layers=" + std::to_string(config.e_layers) + ", " + d;
    expect(layer + "attention.query_projection.weight", {config.d_model, config.d_model}, fields);
    expect(layer + "conv1.weight", {config.d_ff, config.d_model, 1},
           fields + ", d_ff=" + std::to_string(config.d_ff));
  }
}

void check_weights_are_finite(const StateDict& state, const std::string& origin) {
  for (const auto& [name, tensor] : state) {
    if (!tensor.is_floating_point()) continue;
    const at::Tensor flat = tensor.reshape(-1);
    const at::Tensor bad = at::logical_not(at::isfinite(flat)).nonzero();
    if (bad.numel() == 0) continue;
    const int64_t index = bad[0][0].item<int64_t>();
    throw ModelError("checkpoint " + origin + ": key '" + name + "' holds a non-finite value (" +
                     c10::str(flat[index].item<double>()) + ") at element " +
                     std::to_string(index) + " of " + std::to_string(flat.numel()) +
                     "; the weights of a served model must be finite (corrupt file, or a "
                     "diverged training run?)");
  }
}

std::string loading_context(const std::string& config_origin, const ModelConfig& config) {
  return (config_origin.empty() ? "config" : "model config " + config_origin) + ": " +
         config.summary();
}

}  // namespace tsserve::model
