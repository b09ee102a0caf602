// Fuzz target: a body of the forecasting JSON API (the HTTP door's /v1 input) through
// parse_forecast_json_request, what it accepts through the shared rules
// (decode_forecast_json_request) against the bundled model's shape, and the same body as a
// report of actuals (parse_actuals_json_request) and as an observation
// (parse_observe_json_request, then check_observe_json_request).
//
// Input: the body, as sent.
// Invariants: a refusal of the JSON is INVALID_ARGUMENT with a message; an accepted body
// is a [N, T] series of finite float32 values under N unique names, attention variables
// that index them and timestamps in one form; the decoder then refuses by field, in the
// JSON API's names (request_checks.h), or accepts, for the bundled model and for the same
// shape forecasting a target from its covariates ("target", target_columns.h). An
// accepted report holds T * N values for T timestamps and N unique names. The same body
// as a live series' observation (parse_observe_json_request): accepted, it holds T * N
// values under N unique names, and the observation's rules refuse by field, in the JSON
// API's names, or accept.

#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "bundled_model_shape.h"
#include "fuzz_target.h"
#include "request_checks.h"
#include "server/codec/v1_json/actuals_json.h"
#include "server/codec/v1_json/forecast_json_request.h"
#include "server/codec/v1_json/observe_json.h"

namespace tsserve::fuzz {
namespace {

void check_refused_json(const server::Status& status) {
  FUZZ_CHECK(status.code() == server::StatusCode::kInvalidArgument && !status.message().empty(),
             "refused with code " + std::to_string(static_cast<int>(status.code())) + ": " +
                 status.message());
}

void check_forecast(std::string body) {
  server::ForecastJsonRequest request;
  const server::Status parsed = server::parse_forecast_json_request(body, &request);
  if (!parsed.ok()) return check_refused_json(parsed);
  const auto columns = static_cast<std::int64_t>(request.columns.size());
  FUZZ_CHECK(request.shape[0] == columns && request.shape[0] * request.shape[1] ==
                                                static_cast<std::int64_t>(request.values.size()),
             "accepted series is not [N, T] under N names");
  for (float value : request.values)
    FUZZ_CHECK(std::isfinite(value), "accepted a non-finite point");
  const std::set<std::string> names(request.columns.begin(), request.columns.end());
  FUZZ_CHECK(names.size() == request.columns.size(), "accepted a column twice");
  for (int index : request.attention.variables) {
    FUZZ_CHECK(index >= 0 && index < columns, "attention variable outside the columns");
  }
  // The bundled model, and the same shape forecasting its scaler's last column from the
  // others (features "MS": the target's columns arranged by name, target_columns.h).
  server::ModelShape target_model = fuzz::bundled_model_shape(true);
  target_model.features = "MS";
  target_model.forecast_variables = 1;
  for (const server::ModelShape& model : {fuzz::bundled_model_shape(true), target_model}) {
    server::ForecastInput input;
    const server::Status decoded =
        server::decode_forecast_json_request(request, model, server::RequestLimits{}, &input);
    if (decoded.ok()) continue;
    check_refusal(decoded,
                  {"request_id", "series_key", "series", "timestamps", "intervals", "scaler",
                   "attention.layers", "attention.variables", "attention.decoder", "target"},
                  // What the model cannot do: a scaler it lacks, intervals without calibration.
                  (request.scaler == server::ScalerMode::kRequired && !model.has_scaler()) ||
                      !request.intervals.empty());
  }
}

void check_actuals(std::string body) {
  v1::ReportActualsRequest report;
  const server::Status parsed = server::parse_actuals_json_request(body, &report);
  if (!parsed.ok()) return check_refused_json(parsed);
  FUZZ_CHECK(report.values_size() == report.timestamps_size() * report.variable_names_size(),
             "accepted a report whose values are not T * N");
  const std::set<std::string> names(report.variable_names().begin(), report.variable_names().end());
  FUZZ_CHECK(names.size() == static_cast<std::size_t>(report.variable_names_size()),
             "accepted a column twice");
}

void check_observe(std::string body) {
  server::ObserveJsonRequest request;
  const server::Status parsed = server::parse_observe_json_request(body, "fuzz-key", &request);
  if (!parsed.ok()) return check_refused_json(parsed);
  const server::Observation& observation = request.observation;
  FUZZ_CHECK(!observation.variable_names.empty() &&
                 observation.values.size() ==
                     observation.timestamps.size() * observation.variable_names.size(),
             "accepted an observation whose values are not T * N");
  const std::set<std::string> names(observation.variable_names.begin(),
                                    observation.variable_names.end());
  FUZZ_CHECK(names.size() == observation.variable_names.size(), "accepted a column twice");
  const server::Status decoded = server::check_observe_json_request(&request);
  if (!decoded.ok()) check_refusal(decoded, {"request_id", "series_key", "values", "timestamps"});
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  tsserve::fuzz::check_forecast(body);
  tsserve::fuzz::check_actuals(body);
  tsserve::fuzz::check_observe(body);
  return 0;
}
