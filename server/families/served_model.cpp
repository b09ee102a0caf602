#include "server/families/served_model.h"

#include <utility>

#include "server/families/model_families.h"
#include "server/runtime/served_model_config.h"

namespace tsserve::server {

ServedModel::ServedModel(LoadedFamily loaded)
    : loaded_(std::move(loaded)), shape_(model_shape_of(loaded_.forecaster->config())) {}

void ServedModel::observe(std::shared_ptr<ServerMetrics::VersionSeries> series) {
  observer_ = std::make_unique<MetricsObserver>(std::move(series));
}

void ServedModel::watch(const DynamicBatcher* forecast, const DynamicBatcher* encode) {
  if (observer_) observer_->watch(forecast, encode);
}

std::unique_ptr<ServedModel> ServedModel::load(const ModelOptions& options,
                                               const model::ForecasterOptions& forecaster_options) {
  const model::ModelConfig config = served_model_config(options);
  return std::unique_ptr<ServedModel>(new ServedModel(
      model_family(config.family)
          .load(options.model, config, model_config_path(options), forecaster_options)));
}

}  // namespace tsserve::server
