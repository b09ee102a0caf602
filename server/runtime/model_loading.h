#pragma once
// The served model from the server's options: the checkpoint and its config, with the
// options that override the config (attention, factor, ProbSparse layout, batch
// invariance) applied; and the plain view of it that the codecs read (ModelShape).

#include <string>

#include "server/config/server_config.h"
#include "server/request/model_shape.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/patchtst.h"

namespace tsserve::server {

// The config path (options.model_config, or the .json beside the checkpoint).
std::string model_config_path(const ModelOptions& options);

// That config with the options that override it applied; its `family` says which loader
// below fits. Throws model::ModelError naming the file and the key.
model::ModelConfig served_model_config(const ModelOptions& options);

// Loads options.model with its config. Throws model::ModelError (or std::exception) with a
// message for the operator; a checkpoint of the other family than the config's "model" is
// refused naming the key that shows it and the config's "model" field.
model::PatchTST load_model(const ModelOptions& options);
// The same for an iTransformer; also refuses a config without enc_in (the N rule needs it)
// unless "any_variable_count" is true.
model::ITransformer load_itransformer_model(const ModelOptions& options);

// The model's enums by the names the options use (kAttentionKinds, kProbLayouts in
// server_config.h), which are the model's own (model::to_string). Throws model::ModelError
// for any other name.
model::AttentionKind attention_kind_named(const std::string& name);
model::ProbLayout prob_layout_named(const std::string& name);

ModelShape model_shape_of(const model::ModelConfig& config);

}  // namespace tsserve::server
