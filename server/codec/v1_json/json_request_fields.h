#pragma once
// Fields the JSON API's request bodies share (a forecast's and an observation's): the
// interval levels and the scaler mode, read into the tsserve.v1 message's types.

#include <google/protobuf/repeated_field.h>

#include <string>

#include "server/codec/json/json_reading.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// An array of levels such as [0.8, 0.95] (their rules are the shared decoder's).
Status read_json_levels(json_od::value& value, const std::string& path,
                        google::protobuf::RepeatedField<double>* levels);

// "auto" | "required" | "none".
Status read_json_scaler_mode(json_od::value& value, const std::string& path, v1::ScalerMode* mode);

}  // namespace tsserve::server
