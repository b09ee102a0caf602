// TimeXer (Wang et al., NeurIPS 2024) as a served family: a request's unit is a sample of
// enc_in variables ("MS": the target last, the others its covariates; "M": every variable
// forecast and a covariate too), and its timestamps become covariate tokens when the model
// has calendar tokens. With "MS" (and "S") the forecast is the target alone
// (ModelShape::forecast_variables = 1).

#include "tsserve/model/timexer_family.h"

#include "server/families/model_family_definition.h"
#include "server/families/serve_forecaster.h"
#include "server/families/timexer/timexer_batches.h"
#include "tsserve/model/timexer_checkpoint.h"
#include "tsserve/model/timexer_forecaster.h"

namespace tsserve::server {
namespace {

void describe_timexer(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kSample;
  shape->any_variable_count = false;
  shape->calendar = model::timexer_calendar_features(config);
  shape->time_inputs = shape->calendar.empty() ? TimeInputs::kNone : TimeInputs::kFeatureTokens;
  shape->map_sides.assign(static_cast<size_t>(config.e_layers), model::timexer_token_count(config));
  shape->patch_len = config.patch_len;
  shape->stride = config.patch_len;
  shape->patch_count = model::timexer_patch_count(config);
  if (!model::timexer_forecasts_every_variable(config)) shape->forecast_variables = 1;
  shape->encode_refusal = model::kTimeXerEncodeRefusal;
  shape->covariate_maps = true;
  shape->covariate_variables = model::timexer_covariate_count(config, config.enc_in) -
                               static_cast<int64_t>(shape->calendar.size());
}

LoadedFamily load_timexer(const std::string& checkpoint, const model::ModelConfig& config,
                          const std::string& config_origin,
                          const model::ForecasterOptions& options) {
  return serve_forecaster(std::make_unique<model::TimeXerForecaster>(
                              model::load_timexer(checkpoint, config, config_origin), options),
                          timexer_forecast_processor);
}

const FamilyDefinitionRegistrar kTimeXer({model::kTimeXerFamily, describe_timexer, load_timexer});

}  // namespace

}  // namespace tsserve::server
