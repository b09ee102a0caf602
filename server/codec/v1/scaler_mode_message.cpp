#include "server/codec/v1/scaler_mode_message.h"

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

Status match_scaler(int scaler_mode,
                    const google::protobuf::RepeatedPtrField<std::string>& variable_names,
                    int64_t variables, const ModelShape& model, ScalerMatch* out,
                    const ScalerFields& fields) {
  ScalerMode mode = ScalerMode::kAuto;
  Status known = scaler_mode_of(scaler_mode, &mode);
  if (!known.ok()) {
    out->applied = false;
    out->column.clear();
    return known;
  }
  return match_scaler(mode, variable_names, variables, model, out, fields);
}

}  // namespace tsserve::server
