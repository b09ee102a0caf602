#pragma once
// EncodeRequest -> EncodeInput: the rules the proto states for an Encode request, and the
// patch tokens copied into plain floats with their finiteness checked on the way. The
// `model` field is the caller's (check_model_name in model_selection.h).

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// Validates `request` for `model` under `limits` and fills *out. INVALID_ARGUMENT naming
// the field and the expectation for: any Tensor rule, a rank other than 2, D != d_model,
// L = 0, L > limits.max_encode_tokens (when that is non-zero), non-finite values (the
// first in row-major order), non-empty attention.variables (when attention is enabled),
// attention layers out of range or repeated, unknown output_encoding, a bad request_id.
// *out is meaningful only on OK.
Status decode_encode_request(const v1::EncodeRequest& request, const ModelShape& model,
                             const RequestLimits& limits, EncodeInput* out);

}  // namespace tsserve::server
