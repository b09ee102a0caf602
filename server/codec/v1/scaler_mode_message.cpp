#include "server/codec/v1/scaler_mode_message.h"

#include <string>

#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

Status scaler_mode_of(int scaler_mode, ScalerMode* out) {
  switch (scaler_mode) {
    case v1::SCALER_MODE_UNSPECIFIED:
      *out = ScalerMode::kAuto;
      return Status();
    case v1::SCALER_MODE_NONE:
      *out = ScalerMode::kNone;
      return Status();
    case v1::SCALER_MODE_REQUIRED:
      *out = ScalerMode::kRequired;
      return Status();
    default:
      return {StatusCode::kInvalidArgument,
              "scaler_mode: unknown value " + std::to_string(scaler_mode) +
                  "; expected SCALER_MODE_UNSPECIFIED (0), SCALER_MODE_NONE (1) or "
                  "SCALER_MODE_REQUIRED (2)"};
  }
}

}  // namespace tsserve::server
