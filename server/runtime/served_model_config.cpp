#include "server/runtime/served_model_config.h"

#include <initializer_list>

#include "tsserve/model/model_error.h"

namespace tsserve::server {
namespace {

// The value of `values` whose model::to_string is `name`.
template <typename Enum>
Enum named(const std::string& name, std::initializer_list<Enum> values, const char* option) {
  std::string choices;
  for (Enum value : values) {
    if (model::to_string(value) == name) return value;
    choices += (choices.empty() ? "" : " | ") + model::to_string(value);
  }
  throw model::ModelError(std::string(option) + " \"" + name + "\": expected " + choices);
}

}  // namespace

model::AttentionKind attention_kind_named(const std::string& name) {
  return named(name, {model::AttentionKind::kFull, model::AttentionKind::kProb}, "attention");
}

model::ProbLayout prob_layout_named(const std::string& name) {
  return named(name, {model::ProbLayout::kCanonical, model::ProbLayout::kTslib}, "prob_layout");
}

std::string model_config_path(const ModelOptions& options) {
  return options.model_config.empty() ? model::config_path_for(options.model)
                                      : options.model_config;
}

model::ModelConfig served_model_config(const ModelOptions& options) {
  model::ModelConfig model_config = model::load_model_config(model_config_path(options));
  if (!options.attention.empty()) model_config.attention = attention_kind_named(options.attention);
  if (options.factor > 0) model_config.factor = options.factor;
  if (!options.prob_layout.empty())
    model_config.prob_layout = prob_layout_named(options.prob_layout);
  model_config.batch_invariant = options.batch_invariant;
  return model_config;
}

}  // namespace tsserve::server
