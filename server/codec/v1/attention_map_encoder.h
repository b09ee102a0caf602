#pragma once
// Attention weights as the forecaster hands them over (AttentionBlock) -> tsserve.v1 responses'
// repeated AttentionMap (attention.proto), ordered by variable, then layer.

#include <google/protobuf/repeated_ptr_field.h>

#include <vector>

#include "server/request/request_types.h"
#include "tsserve/v1/attention.pb.h"

namespace tsserve::server {

// Appends `blocks` to `out` sorted by (variable, layer), each weight tensor in raw_values
// or values as `raw` says. Consumes the blocks' weights.
// REQUIRES: check_attention_blocks(blocks).ok() (codec/common/attention_maps.h).
void encode_attention_maps(std::vector<AttentionBlock>&& blocks, bool raw,
                           google::protobuf::RepeatedPtrField<v1::AttentionMap>* out);

}  // namespace tsserve::server
