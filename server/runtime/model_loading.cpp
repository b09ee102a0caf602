#include "server/runtime/model_loading.h"

#include "tsserve/model/checkpoint_loader.h"
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

model::PatchTST load_model(const ModelOptions& options) {
  return model::load_patchtst(options.model, served_model_config(options),
                              model_config_path(options));
}

model::ITransformer load_itransformer_model(const ModelOptions& options) {
  const std::string config_path = model_config_path(options);
  const model::ModelConfig model_config = served_model_config(options);
  if (!model_config.any_variable_count && model_config.enc_in < 1) {
    throw model::ModelError("model config " + config_path +
                            ": 'enc_in' must give the variables this iTransformer was trained "
                            "on (>= 1), got " +
                            std::to_string(model_config.enc_in) +
                            "; requests must carry that many, unless 'any_variable_count' is "
                            "true");
  }
  return model::load_itransformer(options.model, model_config, config_path);
}

ModelShape model_shape_of(const model::ModelConfig& config) {
  ModelShape shape;
  shape.name = config.name;
  shape.version = config.version;
  shape.seq_len = config.seq_len;
  shape.pred_len = config.pred_len;
  shape.d_model = config.d_model;
  shape.n_heads = config.n_heads;
  shape.e_layers = config.e_layers;
  shape.family = model::to_string(config.family);
  shape.enc_in = config.enc_in;
  if (config.family == model::ModelFamily::kITransformer) {
    shape.patch_count = 0;  // no patches: Forecast's maps are over variable tokens
    shape.any_variable_count = config.any_variable_count;
    shape.calendar = config.calendar_features();
  } else {
    shape.patch_count = config.patch_count();
  }
  if (config.scaler) {
    shape.scaler_columns = config.scaler->columns;
    shape.scaler_mean = config.scaler->mean;
    shape.scaler_std = config.scaler->std;
  }
  if (config.calibration) shape.calibration = *config.calibration;
  return shape;
}

}  // namespace tsserve::server
