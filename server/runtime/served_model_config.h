#pragma once
// The served model's config from the server's options: the checkpoint's config with the
// options that override it (attention, factor, ProbSparse layout, batch invariance)
// applied, by the model's own names (model::attention_kind_named, prob_layout_named: the
// options' kAttentionKinds and kProbLayouts in server_config.h are those names). (The
// codecs' view of it, ModelShape, is families/model_families.h's
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

}  // namespace tsserve::server
