#pragma once
// The Open Inference Protocol's ModelInfer codec for BatchedCall (batched_call.h): the OIP
// decoder decides the answer's form (outputs, raw or typed, id) and keeps it in `reply`
// for the worker's encoder, which is why this codec lives as long as its call.

#include <utility>

#include "inference/grpc_service.pb.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/codec/oip/oip_response_encoder.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

struct ModelInferCodec {
  using Request = inference::ModelInferRequest;
  using Response = inference::ModelInferResponse;
  using Input = ForecastInput;
  using Output = ForecastOutput;

  Status decode(const Request& request, const ModelShape& shape, const RequestLimits& limits,
                Input* input) {
    return decode_model_infer_request(request, shape, limits, input, &reply);
  }
  void prepare(const Input& /*input*/, const ModelShape& /*shape*/, const Output& /*output*/) {}
  Status encode(const Input& input, const ModelShape& shape, Output&& output, Response* response) {
    return encode_model_infer_response(input, reply, shape, std::move(output), response);
  }

  OipReply reply;
};

}  // namespace tsserve::server
