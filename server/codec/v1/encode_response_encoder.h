#pragma once
// An Encode's result (encoder output [L, D]) -> EncodeResponse.

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// Fills *out: output [L, D] in raw_values or values per input.raw_output, model name and
// version, timing, attention maps ordered by layer, request_id. Consumes `result`'s
// buffers. INTERNAL, with *out untouched, when `result` does not fit `input` (L * D output
// values, attention maps [H, L, L] or [L, L]).
Status encode_encode_response(const EncodeInput& input, const ModelShape& model,
                              EncodeOutput&& result, v1::EncodeResponse* out);

}  // namespace tsserve::server
