// Fuzz target: a body of the forecasting JSON API (the HTTP door's /v1 input) through
// parse_forecast_json_request, what it accepts through the shared decoder
// (decode_forecast_request) against the bundled model's shape, and the same body as a
// report of actuals (parse_actuals_json_request) and as an observation
// (parse_observe_json_request, then decode_observe_request).
//
// Input: the body, as sent.
// Invariants: a refusal of the JSON is INVALID_ARGUMENT with a message; an accepted body
// is a [N, T] series of finite float32 values under N unique names, attention variables
// that index them and timestamps in one form; the decoder then refuses by field, in the
// JSON API's names (request_checks.h), or accepts. An accepted report holds T * N values
// for T timestamps and N unique names. The same body as a live series' observation
// (parse_observe_json_request): accepted, it holds T * N values under N unique names, and
// the Observe decoder then refuses by field, in the JSON API's names, or accepts.

#include <cmath>
#include <set>
#include <string>

#include "bundled_model_shape.h"
#include "fuzz_target.h"
#include "request_checks.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/codec/v1/observe_request_decoder.h"
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
  const v1::ForecastRequest& message = request.message;
  const v1::Tensor& series = message.series();
  FUZZ_CHECK(series.shape_size() == 2 && series.shape(0) == message.variable_names_size() &&
                 series.shape(0) * series.shape(1) == series.values_size(),
             "accepted series is not [N, T] under N names");
  for (float value : series.values())
    FUZZ_CHECK(std::isfinite(value), "accepted a non-finite point");
  const std::set<std::string> names(message.variable_names().begin(),
                                    message.variable_names().end());
  FUZZ_CHECK(names.size() == static_cast<std::size_t>(message.variable_names_size()),
             "accepted a column twice");
  for (int index : message.attention().variables()) {
    FUZZ_CHECK(index >= 0 && index < message.variable_names_size(),
               "attention variable outside the columns");
  }
  const server::ModelShape model = fuzz::bundled_model_shape(true);
  server::ForecastInput input;
  const server::Status decoded = server::in_forecast_json_terms(
      server::decode_forecast_request(message, model, server::RequestLimits{}, &input));
  if (!decoded.ok()) {
    check_refusal(decoded,
                  {"request_id", "series_key", "series", "timestamps", "intervals", "scaler",
                   "attention.layers", "attention.variables", "attention.decoder"},
                  // What the model cannot do: a scaler it lacks, intervals without calibration.
                  (message.scaler_mode() == v1::SCALER_MODE_REQUIRED && !model.has_scaler()) ||
                      message.interval_levels_size() > 0);
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
  const v1::ObserveRequest& message = request.message;
  FUZZ_CHECK(message.variable_names_size() >= 1 &&
                 message.values_size() == message.timestamps_size() * message.variable_names_size(),
             "accepted an observation whose values are not T * N");
  const std::set<std::string> names(message.variable_names().begin(),
                                    message.variable_names().end());
  FUZZ_CHECK(names.size() == static_cast<std::size_t>(message.variable_names_size()),
             "accepted a column twice");
  server::Observation observation;
  const server::Status decoded =
      server::in_observe_json_terms(server::decode_observe_request(message, &observation));
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
