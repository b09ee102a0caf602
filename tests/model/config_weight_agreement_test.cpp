// Start-up refusals that come before the model is built: a config whose sizes disagree
// with the weights (building would allocate what the config claims), and weights that are
// not finite. The process-level view of the same rules is tests/reliability/model_files.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "tsserve/model/family_loading.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;
using ::testing::HasSubstr;

ModelConfig small_config() {
  ModelConfig config;
  config.seq_len = 96;
  config.pred_len = 24;
  config.d_model = 16;
  config.n_heads = 4;
  config.e_layers = 2;
  config.d_ff = 32;
  config.norm = FinalNorm::kBatch;
  return config;
}

StateDict state_of(const ModelConfig& config) {
  PatchTST model(config);
  StateDict state;
  for (const auto& item : model->named_parameters()) {
    state.emplace_back(item.key(), item.value().detach().clone());
  }
  for (const auto& item : model->named_buffers())
    state.emplace_back(item.key(), item.value().clone());
  return state;
}

std::string agreement_error(const StateDict& state, const ModelConfig& config) {
  try {
    check_config_against_weights(state, config, "ckpt.pt", "model config m.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigWeightAgreement, TheConfigTheWeightsWereMadeWithPasses) {
  const ModelConfig config = small_config();
  EXPECT_EQ(agreement_error(state_of(config), config), "");
}

TEST(ConfigWeightAgreement, EachSizeFieldIsCheckedAgainstItsTensor) {
  const StateDict state = state_of(small_config());
  ModelConfig wide = small_config();
  wide.d_model = 1'000'000;
  wide.n_heads = 1;
  EXPECT_THAT(agreement_error(state, wide),
              HasSubstr("ckpt.pt: key 'patch_embedding.value_embedding.weight' has shape [16, 16] "
                        "but the config's d_model=1000000, patch_len=16 give [1000000, 16] (model "
                        "config m.json)"));
  ModelConfig deep = small_config();
  deep.e_layers = 1'000'000;
  EXPECT_THAT(agreement_error(state, deep),
              HasSubstr("missing key 'encoder.attn_layers.2.attention.query_projection.weight' "
                        "(expected shape [16, 16] from the config's e_layers=1000000"));
  ModelConfig ff = small_config();
  ff.d_ff = 100'000'000;
  EXPECT_THAT(agreement_error(state, ff),
              HasSubstr("key 'encoder.attn_layers.0.conv1.weight' has shape [32, 16, 1] but the "
                        "config's e_layers=2, d_model=16, d_ff=100000000 give [100000000, 16, 1]"));
  ModelConfig longer = small_config();
  longer.seq_len = 336;
  EXPECT_THAT(agreement_error(state, longer),
              HasSubstr("key 'head.linear.weight' has shape [24, 192] but the config's "
                        "pred_len=24, d_model=16 x 42 patches (seq_len=336, patch_len=16, "
                        "stride=8) give [24, 672]"));
}

TEST(ConfigWeightAgreement, AnInvalidConfigIsRefusedBeforeItsSizesAreMultiplied) {
  ModelConfig config = small_config();
  config.d_model = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(agreement_error(state_of(small_config()), config),
              HasSubstr("'d_model' must be at most 2147483647"));
}

// A safetensors file of `state` (float32 and int64 tensors), written from the format.
void write_safetensors(const StateDict& state, const std::string& path) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::string data;
  for (const auto& [name, tensor] : state) {
    const at::Tensor t = tensor.contiguous();
    const auto* bytes = static_cast<const char*>(t.data_ptr());
    const size_t size = static_cast<size_t>(t.numel()) * t.element_size();
    header[name] = {{"dtype", t.scalar_type() == at::kLong ? "I64" : "F32"},
                    {"shape", t.sizes().vec()},
                    {"data_offsets", {data.size(), data.size() + size}}};
    data.append(bytes, size);
  }
  const std::string text = header.dump();
  uint8_t length[8];
  for (size_t i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(text.size() >> (8 * i));
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(length), sizeof length);
  file << text << data;
}

TEST(ConfigWeightAgreement, LoadPatchtstNamesTheConfigFile) {
  // The same rule through the public loader, with a real file and its config path.
  const ModelConfig config = small_config();
  const std::string path = ::testing::TempDir() + "agreement_ckpt.safetensors";
  write_safetensors(state_of(config), path);
  ModelConfig deep = config;
  deep.e_layers = 3;
  try {
    load_patchtst(path, deep, "/models/deep.json");
    FAIL() << "loaded a 2-layer checkpoint as 3 layers";
  } catch (const ModelError& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing key 'encoder.attn_layers.2."));
    EXPECT_THAT(e.what(), HasSubstr("(model config /models/deep.json: seq_len=96"));
  }
  ModelConfig layered = config;
  layered.norm = FinalNorm::kLayer;
  try {
    load_patchtst(path, layered, "/models/layer.json");
    FAIL() << "loaded BatchNorm keys as the LayerNorm variant";
  } catch (const ModelError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the config says norm \"layer\" but the checkpoint holds the "
                                    "\"batch\" variant's keys (model config /models/layer.json)"));
  }
  EXPECT_NO_THROW(load_patchtst(path, config, "/models/ok.json"));
}

TEST(FiniteWeights, NanAndInfinityAreNamedByKeyAndElement) {
  StateDict state = state_of(small_config());
  EXPECT_NO_THROW(check_weights_are_finite(state, "ckpt.pt"));
  for (auto& [name, tensor] : state) {
    if (name == "head.linear.bias") tensor.view(-1)[7] = std::numeric_limits<float>::quiet_NaN();
  }
  try {
    check_weights_are_finite(state, "ckpt.pt");
    FAIL() << "accepted a NaN weight";
  } catch (const ModelError& e) {
    EXPECT_THAT(e.what(), HasSubstr("checkpoint ckpt.pt: key 'head.linear.bias' holds a non-finite "
                                    "value (nan) at element 7 of 24"));
  }
  StateDict infinite = state_of(small_config());
  for (auto& [name, tensor] : infinite) {
    if (name == "encoder.norm.1.running_var") tensor[3] = -std::numeric_limits<float>::infinity();
  }
  EXPECT_THROW(check_weights_are_finite(infinite, "ckpt.pt"), ModelError);
}

}  // namespace
}  // namespace tsserve::testing
