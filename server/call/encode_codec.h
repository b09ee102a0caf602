#pragma once
// tsserve.v1 Encode's codec for BatchedCall (batched_call.h): the v1 decoder and encoder.
// It keeps nothing between decode and encode. Beside Forecast's (keeping_forecast_codec.h)
// and ModelInfer's (model_infer_codec.h), so every batched method's codec is one file here.

#include <utility>

#include "server/codec/v1/encode_request_decoder.h"
#include "server/codec/v1/encode_response_encoder.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

struct EncodeCodec {
  using Request = v1::EncodeRequest;
  using Response = v1::EncodeResponse;
  using Input = EncodeInput;
  using Output = EncodeOutput;

  Status decode(const Request& request, const ModelShape& shape, const RequestLimits& limits,
                Input* input) {
    return decode_encode_request(request, shape, limits, input);
  }
  void prepare(const Input& /*input*/, const ModelShape& /*shape*/, const Output& /*output*/) {}
  Status encode(const Input& input, const ModelShape& shape, Output&& output, Response* response) {
    return encode_encode_response(input, shape, std::move(output), response);
  }
};

}  // namespace tsserve::server
