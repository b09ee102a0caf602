#include "server/families/served_model.h"

#include <utility>

#include "server/families/model_families.h"
#include "server/runtime/served_model_config.h"

namespace tsserve::server {

ServedModel::ServedModel(std::unique_ptr<model::Forecaster> forecaster, ProcessorFactory forecast,
                         ProcessorFactory encode)
    : forecaster_(std::move(forecaster)),
      forecast_(std::move(forecast)),
      encode_(std::move(encode)),
      shape_(model_shape_of(forecaster_->config())) {}

std::unique_ptr<ServedModel> ServedModel::load(const ModelOptions& options,
                                               const model::ForecasterOptions& forecaster_options) {
  const model::ModelConfig config = served_model_config(options);
  return model_family(config.family)
      .load(options.model, config, model_config_path(options), forecaster_options);
}

}  // namespace tsserve::server
