#include "tsserve/model/checkpoint_loader.h"

#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <map>
#include <tuple>
#include <unordered_map>

#include "tsserve/model/checkpoint_file.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::model {
namespace {

const char kParallelPrefix[] = "module.";
// The embedding key tells the families apart (their encoders share every key name).
const char kITransformerMarker[] = "enc_embedding.value_embedding.weight";
const char kPatchTSTMarker[] = "patch_embedding.value_embedding.weight";
// Informer and Transformer embed with a Conv1d and have a decoder; only a distilling
// Informer has conv layers. Without distilling their keys are the same: the config decides.
const char kEncoderDecoderMarker[] = "dec_embedding.value_embedding.tokenConv.weight";
const char kDistilMarker[] = "encoder.conv_layers.0.downConv.weight";

bool has_key(const StateDict& state, const std::string& key) {
  for (const auto& entry : state) {
    if (entry.first == key) return true;
  }
  return false;
}

std::string shape_text(const at::Tensor& t) { return c10::str(t.sizes()); }

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

void check_family_of_keys(const StateDict& state, const ModelConfig& config,
                          const std::string& origin, const std::string& context) {
  struct Marker {
    const char* key;
    ModelFamily family;
    ModelFamily also;  // a second family with the same marker (or `family` again)
  };
  using F = ModelFamily;
  // The distilling marker first: it names the family more precisely than the embedding.
  const Marker markers[] = {
      {kDistilMarker, F::kInformer, F::kInformer},
      {kITransformerMarker, F::kITransformer, F::kITransformer},
      {kPatchTSTMarker, F::kPatchTST, F::kPatchTST},
      {"patch_embedding.value_embedding.tokenConv.weight", F::kPatchTST, F::kPatchTST},
      {kEncoderDecoderMarker, F::kInformer, F::kTransformer}};
  for (const Marker& marker : markers) {
    if (!has_key(state, marker.key)) continue;
    if (marker.family == config.family || marker.also == config.family) return;
    const bool either = marker.family != marker.also;
    const std::string owner =
        either ? "an Informer's or a Transformer's" : to_string(marker.family) + "'s";
    const std::string model = either ? "Informer\" or \"Transformer" : to_string(marker.family);
    throw ModelError("checkpoint " + origin + ": its keys are " + owner + " (key '" + marker.key +
                     "') but the config's \"model\" is \"" + to_string(config.family) + "\"" +
                     (context.empty() ? "" : " (" + context + ")") + "; set \"model\": \"" + model +
                     "\" or use the matching checkpoint");
  }
}

StateDict normalise_patchtst_keys(StateDict state, ModelConfig& config, const std::string& origin,
                                  const std::string& context) {
  state = strip_parallel_prefix(std::move(state));
  check_family_of_keys(state, config, origin, context);
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
    throw ModelError("checkpoint " + origin + ": the config says norm \"" +
                     to_string(*config.norm) + "\" but the checkpoint holds the \"" +
                     to_string(*detected) + "\" variant's keys" +
                     (context.empty() ? "" : " (" + context + ")"));
  }
  config.norm = detected;
  return state;
}

StateDict normalise_itransformer_keys(StateDict state, const ModelConfig& config,
                                      const std::string& origin, const std::string& context) {
  state = strip_parallel_prefix(std::move(state));
  check_family_of_keys(state, config, origin, context);
  return state;
}

StateDict normalise_encoder_decoder_keys(StateDict state, const ModelConfig& config,
                                         const std::string& origin, const std::string& context) {
  state = strip_parallel_prefix(std::move(state));
  check_family_of_keys(state, config, origin, context);
  const std::string suffix = context.empty() ? "" : " (" + context + ")";
  const bool distilling = has_key(state, kDistilMarker);
  if (distilling && !config.distil) {
    throw ModelError("checkpoint " + origin + ": has Informer's distilling layers (key '" +
                     kDistilMarker + "') but the config's 'distil' is false" + suffix +
                     "; set \"distil\": true");
  }
  if (!distilling && config.distil && config.e_layers > 1) {
    throw ModelError("checkpoint " + origin + ": the config's 'distil' is true (e_layers=" +
                     std::to_string(config.e_layers) +
                     ") but the checkpoint has no distilling layers (no key '" + kDistilMarker +
                     "')" + suffix + "; set \"distil\": false");
  }
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
                       std::string(c10::toString(source.scalar_type())) +
                       " but the model expects " +
                       std::string(c10::toString(target.scalar_type())) +
                       " (save the model in float32, e.g. model.float())");
    }
  }

  at::NoGradGuard no_grad;
  for (const auto& name : order) expected.at(name).copy_(*provided.at(name));
}

namespace {

// Looks a key up and compares its shape with what the config's fields give.
class ShapeCheck {
 public:
  ShapeCheck(const StateDict& state, std::string origin, const std::string& context)
      : origin_(std::move(origin)), suffix_(context.empty() ? "" : " (" + context + ")") {
    for (const auto& [name, tensor] : state) by_key_.emplace(name, &tensor);
  }

  void expect(const std::string& key, const std::vector<int64_t>& shape,
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

  // One layer at a time, stopping at the first absent one, so a huge e_layers costs nothing.
  void expect_encoder_layers(const ModelConfig& config) const {
    const std::string d = "d_model=" + std::to_string(config.d_model);
    for (int64_t i = 0; i < config.e_layers; ++i) {
      const std::string layer = "encoder.attn_layers." + std::to_string(i) + ".";
      const std::string fields = "e_layers=" + std::to_string(config.e_layers) + ", " + d;
      expect(layer + "attention.query_projection.weight", {config.d_model, config.d_model}, fields);
      expect(layer + "conv1.weight", {config.d_ff, config.d_model, 1},
             fields + ", d_ff=" + std::to_string(config.d_ff));
    }
  }

 private:
  std::unordered_map<std::string, const at::Tensor*> by_key_;
  std::string origin_;
  std::string suffix_;
};

// The embeddings' conv and temporal tables, every layer (one at a time, so a huge e_layers or
// d_layers costs nothing), the distilling convs and the projection.
void check_encoder_decoder_shapes(const ShapeCheck& check, const ModelConfig& config) {
  const int64_t D = config.d_model;
  const std::string d = "d_model=" + std::to_string(D);
  for (const auto& [side, channels, name] :
       {std::tuple<const char*, int64_t, const char*>{"enc", config.enc_in, "enc_in"},
        {"dec", config.dec_in, "dec_in"}}) {
    const std::string prefix = std::string(side) + "_embedding.";
    check.expect(prefix + "value_embedding.tokenConv.weight", {D, channels, 3},
                 d + ", " + name + "=" + std::to_string(channels));
    const std::string encoding = "embed=" + config.embed + ", freq=" + config.freq;
    if (config.embed == "timeF") {
      check.expect(prefix + "temporal_embedding.embed.weight", {D, config.mark_width()},
                   encoding + " (" + std::to_string(config.mark_width()) + " time features), " + d);
      continue;
    }
    const std::string table = config.embed == "fixed" ? "_embed.emb.weight" : "_embed.weight";
    check.expect(prefix + "temporal_embedding.hour" + table, {24, D}, encoding + ", " + d);
    if (has_minute_table(config.freq)) {
      check.expect(prefix + "temporal_embedding.minute" + table, {4, D},
                   encoding +
                       ": a minute table (TSLib builds one only for freq \"t\"; a "
                       "checkpoint without one is served with freq \"h\")");
    }
  }
  check.expect_encoder_layers(config);
  const int64_t convs = config.distil ? config.e_layers - 1 : 0;
  for (int64_t i = 0; i < convs; ++i) {
    check.expect("encoder.conv_layers." + std::to_string(i) + ".downConv.weight", {D, D, 3},
                 "distil=true, e_layers=" + std::to_string(config.e_layers) + ", " + d);
  }
  for (int64_t i = 0; i < config.d_layers; ++i) {
    const std::string layer = "decoder.layers." + std::to_string(i) + ".";
    const std::string fields = "d_layers=" + std::to_string(config.d_layers) + ", " + d;
    check.expect(layer + "self_attention.query_projection.weight", {D, D}, fields);
    check.expect(layer + "cross_attention.query_projection.weight", {D, D}, fields);
    check.expect(layer + "conv1.weight", {config.d_ff, D, 1},
                 fields + ", d_ff=" + std::to_string(config.d_ff));
  }
  check.expect("decoder.projection.weight", {config.c_out, D},
               "c_out=" + std::to_string(config.c_out) + ", " + d);
}

}  // namespace

void check_config_against_weights(const StateDict& state, const ModelConfig& config,
                                  const std::string& origin, const std::string& context) {
  config.validate();  // the products below assume sizes in range
  const ShapeCheck check(state, origin, context);
  const std::string d = "d_model=" + std::to_string(config.d_model);
  if (config.is_encoder_decoder()) {
    check_encoder_decoder_shapes(check, config);
    return;
  }
  if (config.family == ModelFamily::kITransformer) {
    check.expect("enc_embedding.value_embedding.weight", {config.d_model, config.seq_len},
                 d + ", seq_len=" + std::to_string(config.seq_len));
    check.expect_encoder_layers(config);
    check.expect("projection.weight", {config.pred_len, config.d_model},
                 "pred_len=" + std::to_string(config.pred_len) + ", " + d);
    return;
  }
  check.expect("patch_embedding.value_embedding.weight", {config.d_model, config.patch_len},
               d + ", patch_len=" + std::to_string(config.patch_len));
  check.expect_encoder_layers(config);
  check.expect("head.linear.weight", {config.pred_len, config.d_model * config.patch_count()},
               "pred_len=" + std::to_string(config.pred_len) + ", " + d + " x " +
                   std::to_string(config.patch_count()) +
                   " patches (seq_len=" + std::to_string(config.seq_len) +
                   ", patch_len=" + std::to_string(config.patch_len) +
                   ", stride=" + std::to_string(config.stride) + ")");
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

namespace {

std::string origin_of_config(const std::string& config_origin) {
  return config_origin.empty() ? "config" : "model config " + config_origin;
}

// The steps after the keys are normalised, the same for both families: sizes against the
// config before anything is allocated, then build, copy, and refuse non-finite weights.
template <typename Model>
Model build_from_state(const StateDict& state, const ModelConfig& config,
                       const std::string& checkpoint_path, const std::string& context) {
  check_config_against_weights(state, config, checkpoint_path, context);
  Model model(config);
  load_state_dict_into(*model, state, checkpoint_path, context);
  check_weights_are_finite(state, checkpoint_path);
  model->eval();
  return model;
}

}  // namespace

PatchTST load_patchtst(const std::string& checkpoint_path, ModelConfig config,
                       const std::string& config_origin) {
  const std::string origin = origin_of_config(config_origin);
  StateDict state = normalise_patchtst_keys(read_checkpoint_file(checkpoint_path), config,
                                            checkpoint_path, origin);
  return build_from_state<PatchTST>(state, config, checkpoint_path,
                                    origin + ": " + config.summary());
}

ITransformer load_itransformer(const std::string& checkpoint_path, ModelConfig config,
                               const std::string& config_origin) {
  const std::string context = origin_of_config(config_origin) + ": " + config.summary();
  StateDict state = normalise_itransformer_keys(read_checkpoint_file(checkpoint_path), config,
                                                checkpoint_path, context);
  return build_from_state<ITransformer>(state, config, checkpoint_path, context);
}

EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path, ModelConfig config,
                                    const std::string& config_origin) {
  const std::string context = origin_of_config(config_origin) + ": " + config.summary();
  StateDict state = normalise_encoder_decoder_keys(read_checkpoint_file(checkpoint_path), config,
                                                   checkpoint_path, context);
  return build_from_state<EncoderDecoder>(state, config, checkpoint_path, context);
}

EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path) {
  const std::string config_path = config_path_for(checkpoint_path);
  return load_encoder_decoder(checkpoint_path, load_model_config(config_path), config_path);
}

ITransformer load_itransformer(const std::string& checkpoint_path) {
  const std::string config_path = config_path_for(checkpoint_path);
  return load_itransformer(checkpoint_path, load_model_config(config_path), config_path);
}

PatchTST load_patchtst(const std::string& checkpoint_path) {
  const std::string config_path = config_path_for(checkpoint_path);
  return load_patchtst(checkpoint_path, load_model_config(config_path), config_path);
}

}  // namespace tsserve::model
