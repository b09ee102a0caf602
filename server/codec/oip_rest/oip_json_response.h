#pragma once
// The Open Inference Protocol's messages, as the gRPC binding answers them
// (codec/oip, call/oip_answers.h), in the REST binding's JSON (inference_rest.md):
// the same fields under the same names, tensors with their data as JSON numbers (a
// float32 in the fewest digits that read back to the same bits, json_writer.h).

#include <functional>
#include <string>

#include "inference/grpc_service.pb.h"

namespace tsserve::server {

// $inference_response. Outputs whose bytes are in raw_output_contents are written from
// there (little-endian, as the gRPC binding carries them). With `binary`, the outputs it
// names are not written as data: their JSON says "binary_data_size" and their bytes are
// appended to *tail, in output order (the binary tensor extension, oip_binary_tensors.h).
std::string oip_json_infer_response(
    const inference::ModelInferResponse& response,
    const std::function<bool(const std::string& output)>& binary = nullptr,
    std::string* tail = nullptr);
// $metadata_model_response.
std::string oip_json_model_metadata(const inference::ModelMetadataResponse& response);
// $metadata_server_response.
std::string oip_json_server_metadata(const inference::ServerMetadataResponse& response);
// {"live": true}, {"ready": ...}, {"name": ..., "ready": ...}.
std::string oip_json_server_live(const inference::ServerLiveResponse& response);
std::string oip_json_server_ready(const inference::ServerReadyResponse& response);
std::string oip_json_model_ready(const std::string& name,
                                 const inference::ModelReadyResponse& response);

}  // namespace tsserve::server
