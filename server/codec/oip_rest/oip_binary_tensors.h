#pragma once
// The binary tensor extension of the REST binding (Triton's "binary_tensor_data"): a
// request's body is a JSON inference header of `Inference-Header-Content-Length` bytes,
// then the raw bytes of each input whose parameters give "binary_data_size", in input
// order; an output asked for with parameters {"binary_data": true} (or every output, with
// the request parameter "binary_data_output": true) comes back the same way: its JSON
// object says "binary_data_size" instead of holding "data", and its bytes follow the JSON
// answer, in output order. Large tensors then travel as little-endian bytes, not as
// decimal text.
//
// The request becomes the gRPC binding's raw form: every input in raw_input_contents
// (inputs given as JSON data are packed little-endian beside the binary ones), so the
// shared decoder checks byte counts against shapes as it does for gRPC.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"
#include "server/status/status.h"

namespace tsserve::server {

// A REST inference request: the message every binding decodes, and how its answer goes.
struct OipRestRequest {
  inference::ModelInferRequest message;
  // Per requested output (message.outputs order), whether it goes back as bytes; when the
  // request names no outputs, `all_binary` says it for all of them.
  std::vector<std::string> binary_outputs;
  bool all_binary = false;
};

// Parses `body`: JSON alone (no `header_length`), or the first *header_length bytes as JSON
// and the rest as the inputs' bytes. INVALID_ARGUMENT naming the field: a header length
// beyond the body, binary_data_size that is not a non-negative integer or that the bytes
// do not match (too few, or some left over), binary_data that is not a boolean.
Status parse_oip_rest_request(std::string& body, std::optional<std::size_t> header_length,
                              OipRestRequest* request);

// The answer: JSON (oip_json_response.h) with the binary outputs' bytes after it.
struct OipRestAnswer {
  std::string body;
  std::size_t header_length = 0;  // the JSON's bytes; body.size() when nothing is binary
};
OipRestAnswer write_oip_rest_answer(const OipRestRequest& request,
                                    const inference::ModelInferResponse& response);

}  // namespace tsserve::server
