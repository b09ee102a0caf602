#include "server/codec/v1/forecast_response_encoder.h"

#include "response_common.h"
#include "server/codec/common/attention_steps.h"
#include "server/codec/common/finite_answer.h"
#include "server/codec/common/forecast_values.h"
#include "server/codec/common/prediction_intervals.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {
namespace {

// ForecastResponse.intervals, one per input.interval_levels, written as the forecast is;
// OUT_OF_RANGE (finite_answer.h) when a bound is not finite in the request's units.
Status encode_intervals(const ForecastInput& input, const ModelShape& model,
                        const std::vector<float>& forecast, v1::ForecastResponse* out) {
  out->clear_intervals();
  for (size_t i = 0; i < input.interval_levels.size(); ++i) {
    IntervalBand band = interval_band(input, model, forecast, input.interval_levels[i]);
    const std::string field = "intervals[" + std::to_string(i) + "]";
    ForecastOutput bound;
    bound.forecast = std::move(band.lower);
    TSSERVE_RETURN_IF_ERROR(check_forecast_finite(input, model, bound, {field + ".lower", ""}));
    v1::PredictionInterval* interval = out->add_intervals();
    interval->set_level(band.level);
    store_forecast(
        input, model, bound.forecast,
        prepare_tensor(forecast_shape(input, model), input.raw_output, interval->mutable_lower()));
    bound.forecast = std::move(band.upper);
    TSSERVE_RETURN_IF_ERROR(check_forecast_finite(input, model, bound, {field + ".upper", ""}));
    store_forecast(
        input, model, bound.forecast,
        prepare_tensor(forecast_shape(input, model), input.raw_output, interval->mutable_upper()));
  }
  return Status();
}

}  // namespace

Status encode_forecast_response(const ForecastInput& input, const ModelShape& model,
                                ForecastOutput&& result, v1::ForecastResponse* out) {
  TSSERVE_RETURN_IF_ERROR(check_forecast_output(input, model, result));
  TSSERVE_RETURN_IF_ERROR(check_forecast_finite(input, model, result));

  TSSERVE_RETURN_IF_ERROR(encode_intervals(input, model, result.forecast, out));
  store_forecast(
      input, model, result.forecast,
      prepare_tensor(forecast_shape(input, model), input.raw_output, out->mutable_forecast()));
  std::vector<float>().swap(result.forecast);
  fill_common_fields(model, std::move(result), input.raw_output, input.request_id, out);
  // An iTransformer's maps index named tokens (variables, then calendar features), and so
  // do a TimeXer's covariate maps (its covariate tokens); an encoder-decoder's index time
  // steps.
  for (v1::AttentionMap& map : *out->mutable_attention()) {
    // A TimeXer's maps are its variables' (a series index), given in the request's order.
    const auto variable = static_cast<size_t>(map.variable());
    if (model.covariate_maps && variable < input.request_variables.size()) {
      map.set_variable(input.request_variables[variable]);
    }
    const bool covariates = map.stack() == attention_stack_name(AttentionStack::kCovariates);
    for (const std::string& name :
         covariates ? input.covariate_token_names : input.attention_token_names) {
      map.add_token_names(name);
    }
    const MapSteps steps = map_steps(model, attention_stack_named(map.stack()), map.layer());
    map.mutable_row_steps()->Assign(steps.rows.begin(), steps.rows.end());
    map.mutable_column_steps()->Assign(steps.columns.begin(), steps.columns.end());
  }
  for (int32_t variable : forecast_variable_indices(input)) out->add_forecast_variables(variable);
  out->set_input_points_used(input.input_points_used);
  out->set_scaler_applied(input.scaler_applied);
  out->mutable_forecast_timestamps()->Assign(input.forecast_timestamps.begin(),
                                             input.forecast_timestamps.end());
  out->set_forecast_timestamps_note(input.forecast_timestamps_note);
  return Status();
}

}  // namespace tsserve::server
