#include "server/runtime/served_model_config.h"

namespace tsserve::server {

std::string model_config_path(const ModelOptions& options) {
  return options.model_config.empty() ? model::config_path_for(options.model)
                                      : options.model_config;
}

model::ModelConfig served_model_config(const ModelOptions& options) {
  model::ModelConfig model_config = model::load_model_config(model_config_path(options));
  if (!options.attention.empty())
    model_config.attention = model::attention_kind_named(options.attention);
  if (options.factor > 0) model_config.factor = options.factor;
  if (!options.prob_layout.empty())
    model_config.prob_layout = model::prob_layout_named(options.prob_layout);
  model_config.batch_invariant = options.batch_invariant;
  return model_config;
}

}  // namespace tsserve::server
