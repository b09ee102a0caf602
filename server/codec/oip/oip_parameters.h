#pragma once
// ModelInferRequest.parameters (Open Inference Protocol) -> the request options they stand
// for (request/: ScalerMode, AttentionRequest), the same that tsserve.v1's codec reads from
// its fields, so both protocols go through the same option checks:
//
//   scaler_mode              string "auto" (default) | "none" | "required"   ScalerMode
//   variable_names           string "HUFL,HULL,OT": N names, comma-separated  variable_names
//   attention_layers         string "0,2" or int64: layer indices            attention.layers
//   attention_variables      string "0,6" or int64: variable indices (of N)  attention.variables
//   attention_average_heads  bool attention.average_heads
//   interval_levels          string "0.8,0.95": calibrated levels            interval_levels
//                            (the intervals come as the outputs "forecast_lower" and
//                            "forecast_upper", oip_response_encoder.h)
//
// Attention is enabled by listing the "attention" output, not by a parameter. Any other
// name, or a value of the wrong type, is INVALID_ARGUMENT naming the parameter.

#include <google/protobuf/map.h>

#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"
#include "server/request/attention_request.h"
#include "server/request/scaler_mode.h"
#include "server/status/status.h"

namespace tsserve::server {

struct OipOptions {
  ScalerMode scaler_mode = ScalerMode::kAuto;
  google::protobuf::RepeatedPtrField<std::string> variable_names;
  AttentionRequest attention;           // `enabled` is left false: the outputs decide it
  std::vector<double> interval_levels;  // as sent; prediction_intervals.h checks them
};

Status resolve_oip_parameters(
    const google::protobuf::Map<std::string, inference::InferParameter>& parameters,
    OipOptions* out);

}  // namespace tsserve::server
