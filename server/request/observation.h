#pragma once
// A validated Observe request (forecast_service.proto's ObserveRequest, the JSON API's
// POST /v1/series/K/observe): plain data between each door's codec
// (codec/v1/observe_request_decoder.h, codec/v1_json/observe_json.h, both ending in
// codec/common/observation_rules.h) and the live-series call (call/observe_call.h), so the
// store and the flags need no protobuf.

#include <cstdint>
#include <string>
#include <vector>

#include "server/request/scaler_mode.h"

namespace tsserve::server {

struct Observation {
  std::string series_key;
  std::string model;                        // "" = the key's model, or the only loaded one
  std::string model_version;                // "" = the key's pin, or the newest ready version
  std::vector<std::string> variable_names;  // N unique names, or none
  int64_t variables = 0;                    // N >= 1
  std::vector<int64_t> timestamps;          // T >= 1, strictly increasing
  std::vector<double> values;               // [T, N] row-major, finite, within float32
  std::vector<double> interval_levels;      // for the forecast; empty = every calibrated one
  bool forecast = false;
  ScalerMode scaler_mode = ScalerMode::kAuto;  // for the forecast
  std::string request_id;                      // resolved: the caller's or a generated one
  // How the caller's protocol names the variables' names (tsserve.v1's variable_names, the
  // JSON API's columns of values), so that the series store's refusals name what was sent.
  const char* variable_names_field = "variable_names";

  int64_t steps() const { return static_cast<int64_t>(timestamps.size()); }
};

}  // namespace tsserve::server
