#pragma once
// Turns a checkpoint file plus its config into a ready PatchTST, iTransformer, Informer or
// Transformer (eval mode, CPU).
//
// The state_dict is read as PyTorch wrote it (no conversion step). A `module.` prefix
// (nn.DataParallel) is stripped, the final-norm variant is detected from the keys, and
// every key, shape and dtype must fit the model the config describes; the first problem
// is reported by key with both shapes.

#include <string>

#include "tsserve/model/encoder_decoder.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/state_dict.h"

namespace tsserve::model {

// Strips a `module.` prefix carried by every key.
StateDict strip_parallel_prefix(StateDict state);

// Throws ModelError when the keys belong to another family than config.family, naming the
// key and the config's "model" field. Markers: patch_embedding.* is PatchTST,
// enc_embedding.value_embedding.weight iTransformer, dec_embedding.value_embedding.tokenConv.*
// Informer or Transformer, encoder.conv_layers.* a distilling Informer. An Informer without
// distilling and a Transformer have the same keys: there the config decides.
void check_family_of_keys(const StateDict& state, const ModelConfig& config,
                          const std::string& origin, const std::string& context = "");

// strip_parallel_prefix and check_family_of_keys for an iTransformer.
StateDict normalise_itransformer_keys(StateDict state, const ModelConfig& config,
                                      const std::string& origin, const std::string& context = "");

// strip_parallel_prefix and check_family_of_keys for an Informer or Transformer, and the
// config's 'distil' against the keys (distilling layers present or not).
StateDict normalise_encoder_decoder_keys(StateDict state, const ModelConfig& config,
                                         const std::string& origin,
                                         const std::string& context = "");

// Strips a `module.` prefix carried by every key, checks the family, and detects the final norm
// (encoder.norm.1.* -> batch, encoder.norm.weight -> layer). Fills config.norm, or checks
// it against the keys when the config already names one; `context` (the config's origin)
// is appended to that message.
StateDict normalise_patchtst_keys(StateDict state, ModelConfig& config, const std::string& origin,
                                  const std::string& context = "");

// Copies `state` into the module's parameters and buffers. Throws ModelError naming the
// first missing key, unexpected key, shape or dtype mismatch; `context` is appended to
// shape messages to say where the expected shape comes from.
void load_state_dict_into(torch::nn::Module& module, const StateDict& state,
                          const std::string& origin, const std::string& context = "");

// Checks the tensors that fix the model's sizes (the embedding, every layer's query
// projection and conv1, the head or projection) against `config`, before the model is built:
// building allocates what the config claims, so a config that disagrees with the weights (d_model
// 10^6, e_layers 10^6) must be refused first. After it passes, building costs about what the
// checkpoint holds. Throws ModelError naming the key and the config fields.
void check_config_against_weights(const StateDict& state, const ModelConfig& config,
                                  const std::string& origin, const std::string& context);

// Rejects a weight holding NaN or infinity (a diverged training run, or flipped bits in a
// format without checksums), naming the key and the element.
void check_weights_are_finite(const StateDict& state, const std::string& origin);

// Reads the checkpoint (torch.save zip or safetensors) and builds the model from `config`.
// `config_origin` (the config file's path) is named in messages about disagreements.
PatchTST load_patchtst(const std::string& checkpoint_path, ModelConfig config,
                       const std::string& config_origin = "");

// As above, reading the config from config_path_for(checkpoint_path).
PatchTST load_patchtst(const std::string& checkpoint_path);

// The same for an iTransformer (config.family must be kITransformer).
ITransformer load_itransformer(const std::string& checkpoint_path, ModelConfig config,
                               const std::string& config_origin = "");
ITransformer load_itransformer(const std::string& checkpoint_path);

// The same for an Informer or Transformer (config.family kInformer or kTransformer).
EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path, ModelConfig config,
                                    const std::string& config_origin = "");
EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path);

}  // namespace tsserve::model
