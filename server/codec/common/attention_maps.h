#pragma once
// Attention weights as the runner hands them over (AttentionBlock) -> the responses'
// repeated AttentionMap (attention.proto), ordered by variable, then layer.

#include <google/protobuf/repeated_ptr_field.h>
#include <grpcpp/support/status.h>

#include <cstdint>
#include <vector>

#include "server/request/request_types.h"
#include "tsserve/v1/attention.pb.h"

namespace tsserve::server {

// OK when every block is [heads, tokens, tokens] (or [tokens, tokens] when heads_averaged)
// and its weights hold that many floats; INTERNAL naming the block otherwise (the runner
// broke its contract; nothing is encoded).
grpc::Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads,
                                    int64_t tokens);

// Appends `blocks` to `out` sorted by (variable, layer), each weight tensor in raw_values
// or values as `raw` says. Consumes the blocks' weights.
// REQUIRES: check_attention_blocks(blocks).ok().
void encode_attention_maps(std::vector<AttentionBlock>&& blocks, bool raw,
                           google::protobuf::RepeatedPtrField<v1::AttentionMap>* out);

}  // namespace tsserve::server
