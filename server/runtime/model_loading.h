#pragma once
// The served model from the server's options: the checkpoint and its config, with the
// options that override the config (attention, factor, ProbSparse layout, batch
// invariance) applied; and the plain view of it that the codecs read (ModelShape).

#include <string>

#include "server/config/server_config.h"
#include "server/request/model_shape.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/patchtst.h"

namespace tsserve::server {

// Loads options.model with its config (options.model_config, or the .json beside the
// checkpoint). Throws model::ModelError (or std::exception) with a message for the
// operator.
model::PatchTST load_model(const ModelOptions& options);

// The model's enums by the names the options use (kAttentionKinds, kProbLayouts in
// server_config.h), which are the model's own (model::to_string). Throws model::ModelError
// for any other name.
model::AttentionKind attention_kind_named(const std::string& name);
model::ProbLayout prob_layout_named(const std::string& name);

ModelShape model_shape_of(const model::ModelConfig& config);

}  // namespace tsserve::server
