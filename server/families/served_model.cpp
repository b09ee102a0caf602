#include "server/families/served_model.h"

#include "server/families/model_families.h"
#include "server/runtime/served_model_config.h"

namespace tsserve::server {

std::unique_ptr<ServedModel> ServedModel::load(const ModelOptions& options,
                                               const RunnerOptions& runner_options) {
  const model::ModelConfig config = served_model_config(options);
  std::unique_ptr<ServedModel> served(new ServedModel());
  served->runtime_ = model_family(config.family)
                         .load(options.model, config, model_config_path(options), runner_options);
  served->shape_ = model_shape_of(served->runtime_->config());
  return served;
}

}  // namespace tsserve::server
