#pragma once
// EncodeRequest -> EncodeInput: the rules the proto states for an Encode request, and the
// patch tokens copied into plain floats with their finiteness checked on the way. The
// `model` field is the caller's (check_model_name in model_selection.h).

#include <grpcpp/support/status.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tsserve/server/attention_selection.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// One validated Encode request, plain data, independent of the request message.
struct EncodeInput {
  std::string request_id;        // the request's, or a generated one when it was empty
  int64_t tokens = 0;            // L
  std::vector<float> values;     // [L, D] row-major (D = d_model), as sent: no scaling
  AttentionSelection attention;  // variables are {0} when enabled
  bool raw_output = false;       // output_encoding: raw_values instead of values
};

// Validates `request` for `model` under `limits` and fills *out. INVALID_ARGUMENT naming
// the field and the expectation for: any Tensor rule, a rank other than 2, D != d_model,
// L = 0, L > limits.max_encode_tokens (when that is non-zero), non-finite values (the
// first in row-major order), non-empty attention.variables (when attention is enabled),
// attention layers out of range or repeated, unknown output_encoding, a bad request_id.
// *out is meaningful only on OK.
grpc::Status decode_encode_request(const v1::EncodeRequest& request, const ModelShape& model,
                                   const RequestLimits& limits, EncodeInput* out);

}  // namespace tsserve::server
