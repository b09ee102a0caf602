#include "server/codec/v1/observe_request_decoder.h"

#include <cfloat>
#include <cmath>
#include <string>
#include <unordered_map>

#include "server/codec/common/request_id.h"

namespace tsserve::server {
namespace {

Status check_names(const v1::ObserveRequest& request) {
  std::unordered_map<std::string, int> seen;
  for (int i = 0; i < request.variable_names_size(); ++i) {
    const auto [at, added] = seen.emplace(request.variable_names(i), i);
    if (!added) {
      return invalid_argument("variable_names: '" + request.variable_names(i) +
                              "' appears twice (" + std::to_string(at->second) + " and " +
                              std::to_string(i) + "); names must be unique");
    }
  }
  return Status();
}

Status check_timestamps(const v1::ObserveRequest& request) {
  if (request.timestamps_size() == 0) {
    return invalid_argument("timestamps: required: the time of each new point (Unix seconds)");
  }
  for (int t = 1; t < request.timestamps_size(); ++t) {
    if (request.timestamps(t) <= request.timestamps(t - 1)) {
      return invalid_argument(
          "timestamps[" + std::to_string(t) + "]: " + std::to_string(request.timestamps(t)) +
          " is not after timestamps[" + std::to_string(t - 1) +
          "] = " + std::to_string(request.timestamps(t - 1)) + "; times must increase strictly");
    }
  }
  return Status();
}

// N from the names, or from the values when the request names none.
Status resolve_variables(const v1::ObserveRequest& request, int64_t* variables) {
  const int64_t steps = request.timestamps_size();
  const int64_t count = request.values_size();
  if (request.variable_names_size() > 0) {
    *variables = request.variable_names_size();
  } else if (count % steps == 0 && count > 0) {
    *variables = count / steps;
  } else {
    return invalid_argument("values: " + std::to_string(count) + " entries are not T * N for T = " +
                            std::to_string(steps) + " timestamps ([T, N] row-major, N >= 1)");
  }
  if (count != steps * *variables) {
    return invalid_argument(
        "values: " + std::to_string(count) + " entries; expected T * N = " + std::to_string(steps) +
        " * " + std::to_string(*variables) + " = " + std::to_string(steps * *variables) +
        " ([T, N] row-major: T timestamps, N variable_names)");
  }
  return Status();
}

Status check_values(const v1::ObserveRequest& request, int64_t variables) {
  for (int i = 0; i < request.values_size(); ++i) {
    const double value = request.values(i);
    // The window holds float32, as a Forecast's series does: a value float cannot hold
    // would reach the model as infinity.
    if (!std::isfinite(value) || std::fabs(value) > FLT_MAX) {
      return invalid_argument("values[" + std::to_string(i) + "] (time " +
                              std::to_string(i / variables) + ", variable " +
                              std::to_string(i % variables) + "): " + std::to_string(value) +
                              " is not a finite float32 number; the window holds no missing "
                              "values: fill gaps before sending");
    }
  }
  return Status();
}

}  // namespace

Status decode_observe_request(const v1::ObserveRequest& request, Observation* out) {
  if (request.series_key().empty()) {
    return invalid_argument("series_key: required: the series whose new points these are");
  }
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.series_key(), &out->series_key, "series_key"));
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.request_id(), &out->request_id));
  TSSERVE_RETURN_IF_ERROR(check_names(request));
  TSSERVE_RETURN_IF_ERROR(check_timestamps(request));
  TSSERVE_RETURN_IF_ERROR(resolve_variables(request, &out->variables));
  TSSERVE_RETURN_IF_ERROR(check_values(request, out->variables));
  out->model = request.model();
  out->model_version = request.model_version();
  out->variable_names.assign(request.variable_names().begin(), request.variable_names().end());
  out->timestamps.assign(request.timestamps().begin(), request.timestamps().end());
  out->values.assign(request.values().begin(), request.values().end());
  out->interval_levels.assign(request.interval_levels().begin(), request.interval_levels().end());
  out->forecast = request.forecast();
  out->scaler_mode = request.scaler_mode();
  return Status();
}

Status check_observation_fits(const Observation& observation, const ModelShape& model,
                              const RequestLimits& limits) {
  const std::string of_model = "model \"" + model.name + "\"";
  const int64_t variables = observation.variables;
  if (model.fixes_variable_count() && variables != model.enc_in) {
    return invalid_argument("values: " + std::to_string(variables) + " columns; " + of_model +
                            " takes exactly " + std::to_string(model.enc_in) +
                            " variables (enc_in: those it was trained on, in training order)");
  }
  if (variables > limits.max_series_rows) {
    return invalid_argument("values: " + std::to_string(variables) + " columns; " + of_model +
                            " takes at most " + std::to_string(limits.max_series_rows) +
                            " variables (max_batch_rows in GetModelInfo: a forecast from the "
                            "window has one row per variable)");
  }
  const int64_t most = model.seq_len + model.pred_len;
  if (observation.steps() > most) {
    return invalid_argument("timestamps: " + std::to_string(observation.steps()) +
                            " points in one call; " + of_model + " takes at most " +
                            std::to_string(most) + " (seq_len " + std::to_string(model.seq_len) +
                            " + pred_len " + std::to_string(model.pred_len) +
                            "); send more in several calls, oldest first");
  }
  return Status();
}

}  // namespace tsserve::server
