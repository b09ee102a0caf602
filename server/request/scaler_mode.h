#pragma once
// How a request asks for the dataset scaler, whichever protocol carried it (tsserve.v1's
// ScalerMode enum, the Open Inference Protocol's "scaler_mode" parameter): what
// codec/common/scaler_matching.h applies. Each protocol's codec maps its own spelling and
// refuses values it does not know.

namespace tsserve::server {

enum class ScalerMode {
  kAuto,      // applied when the request's variables match the model's scaler
  kNone,      // never applied
  kRequired,  // applied, or the request is refused
};

}  // namespace tsserve::server
