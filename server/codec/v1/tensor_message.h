#pragma once
// tsserve.v1's Tensor (tensor.proto) <-> plain float32 data, over the shared views and
// checks of codec/common/tensor_codec.h.
//
// Input: view_tensor() checks a Tensor's structure (one encoding, the documented rank,
// non-negative dimensions, data matching the element count) and views its data in place,
// whichever encoding carried it.
//
// Output: prepare_tensor() sizes the encoding the request asked for and returns where the
// floats go; write_tensor() copies a ready buffer.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "server/codec/common/tensor_codec.h"
#include "server/status/status.h"
#include "tsserve/v1/tensor.pb.h"

namespace tsserve::server {

// Checks the structural rules of tensor.proto for `tensor` (rank spec.rank) and views it.
// INVALID_ARGUMENT naming spec.field and the broken rule otherwise, e.g.
// "series.shape: expected 2 dimensions [N, T_in], got 3".
Status view_tensor(const v1::Tensor& tensor, const TensorSpec& spec, TensorView* out);

// A request's output_encoding: *raw true for TENSOR_ENCODING_RAW, false for VALUES and
// UNSPECIFIED; INVALID_ARGUMENT for a value this server does not know.
Status resolve_output_encoding(int encoding, bool* raw);

// Clears `out`, sets its shape and sizes the chosen encoding for the product of `shape`
// elements, and returns where they go: little-endian float32, 4 bytes each, possibly
// unaligned for float, so write them with store_float().
// REQUIRES: non-negative dimensions whose product fits a protobuf field (< 2^29).
unsigned char* prepare_tensor(std::initializer_list<int64_t> shape, bool raw, v1::Tensor* out);
unsigned char* prepare_tensor(const std::vector<int64_t>& shape, bool raw, v1::Tensor* out);

// prepare_tensor() filled from `data` (the product of `shape` floats).
void write_tensor(const float* data, std::initializer_list<int64_t> shape, bool raw,
                  v1::Tensor* out);
void write_tensor(const float* data, const std::vector<int64_t>& shape, bool raw, v1::Tensor* out);

}  // namespace tsserve::server
