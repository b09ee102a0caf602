#pragma once
// The served model's config from the server's options: the checkpoint's config with the
// options that override it (attention, factor, ProbSparse layout, batch invariance)
// applied, and the plain view of it that the codecs read (ModelShape). No LibTorch: the
// server's wiring reads these before and beside the runtime.

#include <string>

#include "server/config/server_config.h"
#include "server/request/model_shape.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

// The config path (options.model_config, or the .json beside the checkpoint).
std::string model_config_path(const ModelOptions& options);

// That config with the options that override it applied; its `family` says which loader
// (model_loading.h) fits. Throws model::ModelError naming the file and the key.
model::ModelConfig served_model_config(const ModelOptions& options);

// The model's enums by the names the options use (kAttentionKinds, kProbLayouts in
// server_config.h), which are the model's own (model::to_string). Throws model::ModelError
// for any other name.
model::AttentionKind attention_kind_named(const std::string& name);
model::ProbLayout prob_layout_named(const std::string& name);

ModelShape model_shape_of(const model::ModelConfig& config);

}  // namespace tsserve::server
