#pragma once
// tsserve.v1's ScalerMode enum (forecast_service.proto) -> the neutral ScalerMode that the
// shared scaler rules take (codec/common/scaler_matching.h), and those rules over the
// enum's wire value, for the decoder and tests that hold one.

#include <google/protobuf/repeated_ptr_field.h>

#include <cstdint>
#include <string>

#include "server/codec/common/scaler_matching.h"
#include "server/request/model_shape.h"
#include "server/request/scaler_mode.h"
#include "server/status/status.h"

namespace tsserve::server {

// `scaler_mode` as sent (a v1::ScalerMode value, or any other integer from the wire):
// UNSPECIFIED is kAuto; INVALID_ARGUMENT for a value this server does not know.
Status scaler_mode_of(int scaler_mode, ScalerMode* out);

// match_scaler (scaler_matching.h) of scaler_mode_of(scaler_mode): the same match and the
// same messages; *out is not applied when the mode is unknown.
Status match_scaler(int scaler_mode,
                    const google::protobuf::RepeatedPtrField<std::string>& variable_names,
                    int64_t variables, const ModelShape& model, ScalerMatch* out,
                    const ScalerFields& fields = {});

}  // namespace tsserve::server
