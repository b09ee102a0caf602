#pragma once
// The Open Inference Protocol's REST inference request (a JSON $inference_request,
// inference_rest.md) -> the same inference::ModelInferRequest the gRPC binding receives,
// so that both bindings go through one decoder (codec/oip/oip_request_decoder.h) and one
// set of rules. This file checks only what JSON adds: syntax, types, duplicate keys, how
// "data" may nest, and numbers that fit their datatype.
//
//   {"id": "42", "parameters": {"scaler_mode": "auto"},
//    "inputs": [{"name": "series", "shape": [1, 336, 7], "datatype": "FP32",
//                "data": [...]}],            // flat, or nested exactly as `shape`
//    "outputs": [{"name": "forecast"}]}
//
// Tensor data of every datatype the protocol names is carried into the contents field of
// that type (the decoder then says which datatypes the model takes); FP16 and BF16 have no
// JSON form and are refused here. A float32 is read from its decimal text directly
// (json_numbers.h). Parameters are strings, booleans or integers (InferParameter's kinds).
//
// The body must outlive nothing: the request owns copies of what it keeps.

#include <string>

#include "inference/grpc_service.pb.h"
#include "server/status/status.h"

namespace tsserve::server {

// Parses `body` into *request (model_name and model_version are the caller's, from the
// path). INVALID_ARGUMENT naming the field (JSON Pointer style: "inputs[0].data[12]") and
// the expectation. `body` may grow: simdjson needs padding after the text, reserved here.
Status parse_oip_json_request(std::string& body, inference::ModelInferRequest* request);

}  // namespace tsserve::server
