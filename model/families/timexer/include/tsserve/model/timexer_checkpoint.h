#pragma once
// TimeXer from a TSLib checkpoint (state_dict_loading.h's steps, its keys).

#include <string>

#include "tsserve/model/model_config.h"
#include "tsserve/model/state_dict.h"
#include "tsserve/model/timexer.h"

namespace tsserve::model {

// strip_parallel_prefix and check_family_of_keys for a TimeXer.
StateDict normalise_timexer_keys(StateDict state, const ModelConfig& config,
                                 const std::string& origin, const std::string& context = "");

// Reads the checkpoint and builds the model from `config` (config.family "TimeXer");
// `config_origin` (the config file's path) is named in messages about disagreements.
TimeXer load_timexer(const std::string& checkpoint_path, ModelConfig config,
                     const std::string& config_origin = "");
// As above, reading the config from config_path_for(checkpoint_path).
TimeXer load_timexer(const std::string& checkpoint_path);

}  // namespace tsserve::model
