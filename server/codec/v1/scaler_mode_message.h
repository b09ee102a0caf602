#pragma once
// tsserve.v1's ScalerMode enum (forecast_service.proto) -> the neutral ScalerMode that the
// shared scaler rules take (codec/common/scaler_matching.h).

#include "server/request/scaler_mode.h"
#include "server/status/status.h"

namespace tsserve::server {

// `scaler_mode` as sent (a v1::ScalerMode value, or any other integer from the wire):
// UNSPECIFIED is kAuto; INVALID_ARGUMENT for a value this server does not know.
Status scaler_mode_of(int scaler_mode, ScalerMode* out);

}  // namespace tsserve::server
