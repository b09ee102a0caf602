#pragma once
// The served model's checkpoint loaded from the server's options, as its config's family
// says (the config itself, with the options applied: served_model_config.h).

#include "server/config/server_config.h"
#include "server/runtime/served_model_config.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/patchtst.h"

namespace tsserve::server {

// Loads options.model with its config. Throws model::ModelError (or std::exception) with a
// message for the operator; a checkpoint of the other family than the config's "model" is
// refused naming the key that shows it and the config's "model" field.
model::PatchTST load_model(const ModelOptions& options);
// The same for an iTransformer; also refuses a config without enc_in (the N rule needs it)
// unless "any_variable_count" is true.
model::ITransformer load_itransformer_model(const ModelOptions& options);

}  // namespace tsserve::server
