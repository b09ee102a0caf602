// iTransformer (Liu et al., ICLR 2024) as a served family: its tokens are the variables
// (then one per calendar feature), so a request's unit is a sample of N variables that
// attend to each other, its maps are per sample and layer over those N + C tokens, and
// timestamps become the calendar tokens.

#include "tsserve/model/itransformer_family.h"

#include "server/families/itransformer/itransformer_batches.h"
#include "server/families/model_family_definition.h"
#include "server/families/serve_forecaster.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/itransformer_forecaster.h"

namespace tsserve::server {
namespace {

void describe_itransformer(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kSample;
  shape->any_variable_count = config.any_variable_count;
  shape->calendar = model::calendar_features(config);
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

const FamilyDefinitionRegistrar kITransformer({model::kITransformerFamily, describe_itransformer,
                                               load_itransformer});

}  // namespace

}  // namespace tsserve::server
