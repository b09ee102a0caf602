#pragma once
// The JSON API's model listing (GET /v1/models) and model info (GET /v1/models/{m}): the
// tsserve.v1 messages in protobuf's canonical JSON mapping, with the .proto's field names
// (snake_case), every field present, enums by name and 64-bit integers as strings, so
// the gRPC documentation of each field holds for the JSON too.

#include <string>

#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

std::string write_model_list_json(const v1::ListModelsResponse& list);
std::string write_model_info_json(const v1::ModelInfo& info);

}  // namespace tsserve::server
