#pragma once
// PatchTST from a TSLib checkpoint (state_dict_loading.h's steps, PatchTST's keys).

#include <string>

#include "tsserve/model/model_config.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/state_dict.h"

namespace tsserve::model {

// Strips a `module.` prefix carried by every key, checks the family, and detects the final
// norm (encoder.norm.1.* -> batch, encoder.norm.weight -> layer). Fills config.norm, or
// checks it against the keys when the config already names one; `context` (the config's
// origin) is appended to that message.
StateDict normalise_patchtst_keys(StateDict state, ModelConfig& config, const std::string& origin,
                                  const std::string& context = "");

// Reads the checkpoint (torch.save zip or safetensors) and builds the model from `config`.
// `config_origin` (the config file's path) is named in messages about disagreements.
PatchTST load_patchtst(const std::string& checkpoint_path, ModelConfig config,
                       const std::string& config_origin = "");
// As above, reading the config from config_path_for(checkpoint_path).
PatchTST load_patchtst(const std::string& checkpoint_path);

}  // namespace tsserve::model
