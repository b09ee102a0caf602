#include "server/codec/common/observation_rules.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "server/codec/common/request_id.h"

namespace tsserve::server {
namespace {

Status check_names(const ObservationFields& fields, const std::vector<std::string>& names) {
  std::unordered_map<std::string_view, std::size_t> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto [at, added] = seen.emplace(names[i], i);
    if (!added) {
      return invalid_argument(std::string(fields.variable_names) + ": '" + names[i] +
                              "' appears twice (" + std::to_string(at->second) + " and " +
                              std::to_string(i) + "); names must be unique");
    }
  }
  return Status();
}

Status check_timestamps(const std::vector<int64_t>& timestamps) {
  if (timestamps.empty()) {
    return invalid_argument("timestamps: required: the time of each new point (Unix seconds)");
  }
  for (std::size_t t = 1; t < timestamps.size(); ++t) {
    if (timestamps[t] <= timestamps[t - 1]) {
      return invalid_argument("timestamps[" + std::to_string(t) + "]: " +
                              std::to_string(timestamps[t]) + " is not after timestamps[" +
                              std::to_string(t - 1) + "] = " + std::to_string(timestamps[t - 1]) +
                              "; times must increase strictly");
    }
  }
  return Status();
}

// N from the names, or from the values when the request names none.
Status resolve_variables(const ObservationFields& fields, const Observation& observation,
                         int64_t* variables) {
  const int64_t steps = observation.steps();
  const auto count = static_cast<int64_t>(observation.values.size());
  const std::string values = fields.values;
  if (!observation.variable_names.empty()) {
    *variables = static_cast<int64_t>(observation.variable_names.size());
  } else if (count % steps == 0 && count > 0) {
    *variables = count / steps;
  } else {
    return invalid_argument(values + ": " + std::to_string(count) +
                            " entries are not T * N for T = " + std::to_string(steps) +
                            " timestamps ([T, N] row-major, N >= 1)");
  }
  if (count != steps * *variables) {
    return invalid_argument(values + ": " + std::to_string(count) + " entries; expected T * N = " +
                            std::to_string(steps) + " * " + std::to_string(*variables) + " = " +
                            std::to_string(steps * *variables) +
                            " ([T, N] row-major: T timestamps, N " + fields.variable_names + ")");
  }
  return Status();
}

Status check_values(const ObservationFields& fields, const std::vector<double>& values,
                    int64_t variables) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double value = values[i];
    // The window holds float32, as a Forecast's series does: a value float cannot hold
    // would reach the model as infinity.
    if (!std::isfinite(value) || std::fabs(value) > FLT_MAX) {
      const auto index = static_cast<int64_t>(i);
      return invalid_argument(std::string(fields.values) + "[" + std::to_string(i) + "] (time " +
                              std::to_string(index / variables) + ", variable " +
                              std::to_string(index % variables) + "): " + std::to_string(value) +
                              " is not a finite float32 number; the window holds no missing "
                              "values: fill gaps before sending");
    }
  }
  return Status();
}

}  // namespace

Status check_observation(const ObservationFields& fields, Observation* observation) {
  if (observation->series_key.empty()) {
    return invalid_argument("series_key: required: the series whose new points these are");
  }
  TSSERVE_RETURN_IF_ERROR(
      resolve_request_id(observation->series_key, &observation->series_key, "series_key"));
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(observation->request_id, &observation->request_id));
  TSSERVE_RETURN_IF_ERROR(check_names(fields, observation->variable_names));
  TSSERVE_RETURN_IF_ERROR(check_timestamps(observation->timestamps));
  TSSERVE_RETURN_IF_ERROR(resolve_variables(fields, *observation, &observation->variables));
  TSSERVE_RETURN_IF_ERROR(check_values(fields, observation->values, observation->variables));
  observation->variable_names_field = fields.variable_names;
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
