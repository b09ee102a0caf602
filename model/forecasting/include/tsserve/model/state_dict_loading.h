#pragma once
// What every family's checkpoint loader does alike (each family's own is in its folder:
// patchtst_checkpoint.h, ...). The state_dict is read as PyTorch wrote it (no conversion
// step): a `module.` prefix (nn.DataParallel) is stripped, the keys must be the config's
// family's, the sizes the config claims are checked against the weights before anything
// is allocated, and every key, shape and dtype must fit the model the config describes;
// the first problem is reported by key with both shapes.

#include <torch/nn/module.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "tsserve/model/model_config.h"
#include "tsserve/model/state_dict.h"

namespace tsserve::model {

// Strips a `module.` prefix carried by every key.
StateDict strip_parallel_prefix(StateDict state);

bool has_state_key(const StateDict& state, const std::string& key);

// Throws ModelError when the keys belong to another family than config.family, naming the
// key and the config's "model" field. Each family names its markers (model_family_rules.h):
// patch_embedding.* is PatchTST, enc_embedding.value_embedding.weight iTransformer,
// dec_embedding.value_embedding.tokenConv.* Informer or Transformer, encoder.conv_layers.*
// a distilling Informer. A marker fewer families share is looked at first; an Informer
// without distilling and a Transformer have the same keys: there the config decides.
void check_family_of_keys(const StateDict& state, const ModelConfig& config,
                          const std::string& origin, const std::string& context = "");

// Copies `state` into the module's parameters and buffers. Throws ModelError naming the
// first missing key, unexpected key, shape or dtype mismatch; `context` is appended to
// shape messages to say where the expected shape comes from.
void load_state_dict_into(torch::nn::Module& module, const StateDict& state,
                          const std::string& origin, const std::string& context = "");

// Looks a key up and compares its shape with what the config's fields give (a family's
// check_shapes, family_loading.h).
class ShapeCheck {
 public:
  ShapeCheck(const StateDict& state, std::string origin, const std::string& context);

  // Throws ModelError naming the key, its shape and `fields` (the config's fields that
  // give `shape`) when the key is absent or of another shape.
  void expect(const std::string& key, const std::vector<int64_t>& shape,
              const std::string& fields) const;
  // Every encoder layer's query projection and conv1, one layer at a time, stopping at the
  // first absent one, so a huge e_layers costs nothing.
  void expect_encoder_layers(const ModelConfig& config) const;

 private:
  std::unordered_map<std::string, const at::Tensor*> by_key_;
  std::string origin_;
  std::string suffix_;
};

// Rejects a weight holding NaN or infinity (a diverged training run, or flipped bits in a
// format without checksums), naming the key and the element.
void check_weights_are_finite(const StateDict& state, const std::string& origin);

// The context a family's loader appends to its messages: the config's origin and summary.
std::string loading_context(const std::string& config_origin, const ModelConfig& config);

}  // namespace tsserve::model
