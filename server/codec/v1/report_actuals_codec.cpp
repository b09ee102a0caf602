#include "server/codec/v1/report_actuals_codec.h"

#include <string>
#include <unordered_map>

#include "server/codec/common/request_id.h"

namespace tsserve::server {
Status decode_report_actuals(const v1::ReportActualsRequest& request, ActualsReport* out) {
  if (request.series_key().empty()) {
    return invalid_argument(
        "series_key: required: the key the forecasts were issued with "
        "(ForecastRequest.series_key)");
  }
  TSSERVE_RETURN_IF_ERROR(resolve_request_id(request.series_key(), &out->series_key, "series_key"));

  const int n = request.variable_names_size();
  if (n == 0)
    return invalid_argument("variable_names: required: the name of each reported variable");
  if (n > kMaxReportedVariables) {
    return invalid_argument("variable_names: " + std::to_string(n) +
                            " names; a report names at most " +
                            std::to_string(kMaxReportedVariables) + " variables");
  }
  std::unordered_map<std::string, int> seen;
  for (int i = 0; i < n; ++i) {
    const auto [at, added] = seen.emplace(request.variable_names(i), i);
    if (!added) {
      return invalid_argument("variable_names: '" + request.variable_names(i) +
                              "' appears twice (" + std::to_string(at->second) + " and " +
                              std::to_string(i) + "); names must be unique");
    }
  }
  const int t = request.timestamps_size();
  if (t == 0) return invalid_argument("timestamps: required: the time of each observation");
  if (static_cast<int64_t>(t) * n > kMaxReportedPoints) {
    return invalid_argument("timestamps: " + std::to_string(t) + " x " + std::to_string(n) +
                            " variables = " + std::to_string(static_cast<int64_t>(t) * n) +
                            " points; a report carries at most " +
                            std::to_string(kMaxReportedPoints) + ": send them in several reports");
  }
  std::unordered_map<int64_t, int> times;
  for (int i = 0; i < t; ++i) {
    const auto [at, added] = times.emplace(request.timestamps(i), i);
    if (!added) {
      return invalid_argument("timestamps: " + std::to_string(request.timestamps(i)) +
                              " appears twice (" + std::to_string(at->second) + " and " +
                              std::to_string(i) + "); each time once");
    }
  }
  const int64_t expected = static_cast<int64_t>(t) * n;
  if (request.values_size() != expected) {
    return invalid_argument("values: " + std::to_string(request.values_size()) +
                            " entries; expected T * N = " + std::to_string(t) + " * " +
                            std::to_string(n) + " = " + std::to_string(expected) +
                            " ([T, N] row-major: T timestamps, N "
                            "variable_names)");
  }
  out->variable_names.assign(request.variable_names().begin(), request.variable_names().end());
  out->timestamps.assign(request.timestamps().begin(), request.timestamps().end());
  out->values.assign(request.values().begin(), request.values().end());
  return Status();
}

void encode_report_actuals(const ActualsOutcome& outcome, v1::ReportActualsResponse* out) {
  out->set_matched(outcome.matched);
  out->set_unmatched_unknown_key(outcome.unknown_key);
  out->set_unmatched_not_finite(outcome.not_finite);
  out->set_unmatched_unknown_variable(outcome.unknown_variable);
  out->set_unmatched_no_forecast(outcome.no_forecast);
  out->set_unmatched_already_reported(outcome.already_reported);
}

}  // namespace tsserve::server
