// Matching a state_dict to the model its config describes: key names, variants, and one
// clear message per mismatch.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <set>

#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;
using ::testing::HasSubstr;

// The concrete config of MODEL_SPEC.md.
ModelConfig spec_config() {
  ModelConfig config;
  config.seq_len = 96;
  config.pred_len = 96;
  config.enc_in = 7;
  config.d_model = 16;
  config.n_heads = 4;
  config.e_layers = 2;
  config.d_ff = 32;
  return config;
}

StateDict state_of(torch::nn::Module& module) {
  StateDict state;
  for (const auto& item : module.named_parameters()) state.emplace_back(item.key(), item.value().detach().clone());
  for (const auto& item : module.named_buffers()) state.emplace_back(item.key(), item.value().clone());
  return state;
}

std::string load_error(StateDict state, ModelConfig config) {
  try {
    state = normalise_patchtst_keys(std::move(state), config, "ckpt.pt");
    PatchTST model(config);
    load_state_dict_into(*model, state, "ckpt.pt", config.summary());
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

StateDict spec_state(FinalNorm norm) {
  ModelConfig config = spec_config();
  config.norm = norm;
  PatchTST model(config);
  return state_of(*model);
}

TEST(CheckpointKeys, NamedParametersAreTheSpecStateDictKeys) {
  std::set<std::string> batch_keys, layer_keys;
  for (const auto& [name, tensor] : spec_state(FinalNorm::kBatch)) batch_keys.insert(name);
  for (const auto& [name, tensor] : spec_state(FinalNorm::kLayer)) layer_keys.insert(name);

  std::set<std::string> expected = {"patch_embedding.value_embedding.weight",
                                    "patch_embedding.position_embedding.pe", "head.linear.weight",
                                    "head.linear.bias"};
  for (int i = 0; i < 2; ++i) {
    const std::string prefix = "encoder.attn_layers." + std::to_string(i) + ".";
    for (const char* p : {"query", "key", "value", "out"}) {
      expected.insert(prefix + "attention." + p + "_projection.weight");
      expected.insert(prefix + "attention." + p + "_projection.bias");
    }
    for (const char* p : {"conv1", "conv2", "norm1", "norm2"}) {
      expected.insert(prefix + p + ".weight");
      expected.insert(prefix + p + ".bias");
    }
  }
  std::set<std::string> with_batch = expected, with_layer = expected;
  for (const char* p : {"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}) {
    with_batch.insert(std::string("encoder.norm.1.") + p);
  }
  with_layer.insert("encoder.norm.weight");
  with_layer.insert("encoder.norm.bias");
  EXPECT_EQ(batch_keys, with_batch);
  EXPECT_EQ(layer_keys, with_layer);
}

TEST(CheckpointKeys, SpecShapes) {
  std::map<std::string, at::Tensor> state;
  for (const auto& [name, tensor] : spec_state(FinalNorm::kBatch)) state.emplace(name, tensor);
  using Shape = std::vector<int64_t>;
  EXPECT_EQ(state.at("patch_embedding.position_embedding.pe").sizes(), (Shape{1, 5000, 16}));
  EXPECT_EQ(state.at("head.linear.weight").sizes(), (Shape{96, 192}));
  EXPECT_EQ(state.at("encoder.attn_layers.1.conv1.weight").sizes(), (Shape{32, 16, 1}));
  EXPECT_EQ(state.at("encoder.attn_layers.0.conv2.weight").sizes(), (Shape{16, 32, 1}));
  EXPECT_EQ(state.at("encoder.norm.1.num_batches_tracked").scalar_type(), at::kLong);
}

TEST(CheckpointKeys, DetectsNormVariantAndDataParallelPrefix) {
  for (FinalNorm norm : {FinalNorm::kBatch, FinalNorm::kLayer}) {
    StateDict state = spec_state(norm);
    for (auto& entry : state) entry.first = "module." + entry.first;
    ModelConfig config = spec_config();
    state = normalise_patchtst_keys(std::move(state), config, "ckpt.pt");
    ASSERT_TRUE(config.norm.has_value());
    EXPECT_EQ(*config.norm, norm);
    EXPECT_EQ(state.front().first.rfind("module.", 0), std::string::npos);
    PatchTST model(config);
    EXPECT_NO_THROW(load_state_dict_into(*model, state, "ckpt.pt"));
  }
}

TEST(CheckpointErrors, MissingKeyIsNamedWithItsShape) {
  StateDict state = spec_state(FinalNorm::kBatch);
  state.erase(std::find_if(state.begin(), state.end(), [](const auto& e) {
    return e.first == "encoder.attn_layers.1.conv1.bias";
  }));
  const std::string error = load_error(state, spec_config());
  EXPECT_THAT(error, HasSubstr("missing key 'encoder.attn_layers.1.conv1.bias'"));
  EXPECT_THAT(error, HasSubstr("[32]"));
}

TEST(CheckpointErrors, UnexpectedKeyIsNamed) {
  StateDict state = spec_state(FinalNorm::kBatch);
  state.emplace_back("encoder.attn_layers.2.norm1.weight", torch::ones({16}));
  EXPECT_THAT(load_error(state, spec_config()),
              HasSubstr("unexpected key 'encoder.attn_layers.2.norm1.weight' with shape [16]"));
}

TEST(CheckpointErrors, WrongShapeNamesKeyAndBothShapes) {
  ModelConfig config = spec_config();
  config.seq_len = 336;  // contradicts the head's [96, 192]
  const std::string error = load_error(spec_state(FinalNorm::kBatch), config);
  EXPECT_THAT(error, HasSubstr("key 'head.linear.weight' has shape [96, 192] but the model "
                               "expects [96, 672]"));
  EXPECT_THAT(error, HasSubstr("seq_len=336"));
}

TEST(CheckpointErrors, ConfigWithOtherWidthIsRefused) {
  ModelConfig config = spec_config();
  config.d_model = 32;
  config.n_heads = 4;
  EXPECT_THAT(load_error(spec_state(FinalNorm::kBatch), config),
              HasSubstr("key 'patch_embedding.value_embedding.weight' has shape [16, 16] but the "
                        "model expects [32, 16]"));
}

TEST(CheckpointErrors, ConfigWithMoreLayersNamesTheMissingLayer) {
  ModelConfig config = spec_config();
  config.e_layers = 3;
  EXPECT_THAT(load_error(spec_state(FinalNorm::kBatch), config),
              HasSubstr("missing key 'encoder.attn_layers.2."));
}

TEST(CheckpointErrors, WrongDtypeIsNamed) {
  StateDict state = spec_state(FinalNorm::kBatch);
  for (auto& entry : state) {
    if (entry.first == "head.linear.bias") entry.second = entry.second.to(at::kDouble);
  }
  EXPECT_THAT(load_error(state, spec_config()),
              HasSubstr("key 'head.linear.bias' has dtype Double but the model expects Float"));
}

TEST(CheckpointErrors, NormInConfigContradictingKeysIsRefused) {
  ModelConfig config = spec_config();
  config.norm = FinalNorm::kLayer;
  EXPECT_THAT(load_error(spec_state(FinalNorm::kBatch), config),
              HasSubstr("the config says norm \"layer\" but the checkpoint holds the \"batch\""));
}

TEST(CheckpointErrors, OldConvTokenEmbeddingIsRefusedByName) {
  StateDict state = spec_state(FinalNorm::kBatch);
  state.emplace_back("patch_embedding.value_embedding.tokenConv.weight", torch::ones({16, 16, 3}));
  EXPECT_THAT(load_error(state, spec_config()), HasSubstr("Conv1d token embedding"));
}

TEST(CheckpointConfig, ConfigPathIsBesideTheCheckpoint) {
  EXPECT_EQ(config_path_for("model/default/patchtst_etth1.pt"), "model/default/patchtst_etth1.json");
  EXPECT_EQ(config_path_for("/a.b/model"), "/a.b/model.json");
  EXPECT_EQ(config_path_for("w.safetensors"), "w.json");
}

}  // namespace
}  // namespace tsserve::testing
