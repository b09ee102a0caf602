#include "server/runtime/model_loading.h"

#include "tsserve/model/checkpoint_loader.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {

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

}  // namespace tsserve::server
