#pragma once
// An Encode's result (encoder output [L, D]) -> EncodeResponse.

#include <grpcpp/support/status.h>

#include <cstdint>
#include <vector>

#include "tsserve/server/attention_maps.h"
#include "tsserve/server/encode_request_decoder.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// What the runner produces for one Encode request.
struct EncodeOutput {
  std::vector<float> output;              // [L, D] row-major, after the encoder's final norm
  std::vector<AttentionBlock> attention;  // the layers input.attention selected, variable 0
  double queue_seconds = 0;
  double compute_seconds = 0;
  int32_t batch_rows = 0;  // sequences in the batch
};

// Fills *out: output [L, D] in raw_values or values per input.raw_output, model name and
// version, timing, attention maps ordered by layer, request_id. Consumes `result`'s
// buffers. INTERNAL, with *out untouched, when `result` does not fit `input` (L * D output
// values, attention maps [H, L, L] or [L, L]).
grpc::Status encode_encode_response(const EncodeInput& input, const ModelShape& model,
                                    EncodeOutput&& result, v1::EncodeResponse* out);

}  // namespace tsserve::server
