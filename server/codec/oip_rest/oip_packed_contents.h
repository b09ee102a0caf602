#pragma once
// Typed tensor contents as the little-endian bytes of the raw form: what the binary
// extension sends, and what the JSON answer reads back for outputs the model wrote raw.

#include <string>

#include "inference/grpc_service.pb.h"

namespace tsserve::server {

// The contents' values as the bytes raw_input_contents / raw_output_contents hold;
// booleans one byte each.
std::string packed_bytes(const inference::InferTensorContents& contents);

}  // namespace tsserve::server
