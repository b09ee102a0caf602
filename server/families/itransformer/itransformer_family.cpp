#include "server/families/itransformer/itransformer_family.h"

#include "server/families/itransformer/itransformer_batches.h"
#include "server/families/serve_forecaster.h"
#include "tsserve/model/checkpoint_loader.h"

namespace tsserve::server {
namespace {

void describe_itransformer(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kSample;
  shape->any_variable_count = config.any_variable_count;
  shape->calendar = config.calendar_features();
  shape->time_inputs = shape->calendar.empty() ? TimeInputs::kNone : TimeInputs::kFeatureTokens;
  shape->map_sides.clear();  // a map spans the sample's N variables and C calendar tokens
}

LoadedFamily load_itransformer(const std::string& checkpoint, const model::ModelConfig& config,
                               const std::string& config_origin,
                               const model::ForecasterOptions& options) {
  model::check_itransformer_servable(config, config_origin);
  return serve_forecaster(std::make_unique<model::ITransformerForecaster>(
                              model::load_itransformer(checkpoint, config, config_origin), options),
                          itransformer_forecast_processor);
}

}  // namespace

ModelFamilyDefinition itransformer_family() {
  return {model::ModelFamily::kITransformer, describe_itransformer, load_itransformer};
}

}  // namespace tsserve::server
