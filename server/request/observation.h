#pragma once
// A validated Observe request (forecast_service.proto, ObserveRequest): plain data between
// the tsserve.v1 codec (codec/v1/observe_request_decoder.h) and the live-series call
// (call/observe_call.h), so the store and the flags need no protobuf.

#include <cstdint>
#include <string>
#include <vector>

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
  int scaler_mode = 0;     // v1::ScalerMode, checked by the forecast's own decoder
  std::string request_id;  // resolved: the caller's or a generated one

  int64_t steps() const { return static_cast<int64_t>(timestamps.size()); }
};

}  // namespace tsserve::server
