#pragma once
// Fields the JSON API's request bodies share (a forecast's and an observation's): the
// interval levels and the scaler mode, read into the neutral request's types.

#include <string>
#include <vector>

#include "server/codec/json/json_reading.h"
#include "server/request/scaler_mode.h"

namespace tsserve::server {

// An array of levels such as [0.8, 0.95] (their rules are the shared decoder's).
Status read_json_levels(json_od::value& value, const std::string& path,
                        std::vector<double>* levels);

// "auto" | "required" | "none".
Status read_json_scaler_mode(json_od::value& value, const std::string& path, ScalerMode* mode);

}  // namespace tsserve::server
