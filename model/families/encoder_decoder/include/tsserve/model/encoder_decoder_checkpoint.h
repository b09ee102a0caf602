#pragma once
// An Informer or Transformer from a TSLib checkpoint (state_dict_loading.h's steps, their
// keys).

#include <string>

#include "tsserve/model/encoder_decoder.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/state_dict.h"

namespace tsserve::model {

// strip_parallel_prefix and check_family_of_keys for an Informer or Transformer, and the
// config's 'distil' against the keys (distilling layers present or not).
StateDict normalise_encoder_decoder_keys(StateDict state, const ModelConfig& config,
                                         const std::string& origin,
                                         const std::string& context = "");

// Reads the checkpoint and builds the model from `config` (config.family "Informer" or
// "Transformer"); `config_origin` (the config file's path) is named in messages.
EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path, ModelConfig config,
                                    const std::string& config_origin = "");
// As above, reading the config from config_path_for(checkpoint_path).
EncoderDecoder load_encoder_decoder(const std::string& checkpoint_path);

}  // namespace tsserve::model
