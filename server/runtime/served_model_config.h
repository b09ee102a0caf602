#pragma once
// The served model's config from the server's options: the checkpoint's config with the
// options that override it (attention, factor, ProbSparse layout, batch invariance)
// applied. (The codecs' view of it, ModelShape, is families/model_families.h's
// model_shape_of.) No LibTorch: the server's wiring reads these before and beside the
// runtime.

#include <string>

#include "server/config/server_config.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

// The config path (options.model_config, or the .json beside the checkpoint).
std::string model_config_path(const ModelOptions& options);

// That config with the options that override it applied; its `family` says which
// definition (families/model_families.h) loads it. Throws model::ModelError naming the file and the
// key.
model::ModelConfig served_model_config(const ModelOptions& options);

// The model's enums by the names the options use (kAttentionKinds, kProbLayouts in
// server_config.h), which are the model's own (model::to_string). Throws model::ModelError
// for any other name.
model::AttentionKind attention_kind_named(const std::string& name);
model::ProbLayout prob_layout_named(const std::string& name);

}  // namespace tsserve::server
