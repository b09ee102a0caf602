#pragma once
// Attention weights as the forecaster hands them over (AttentionBlock): the check every
// protocol's encoder makes before it writes them (tsserve.v1's maps:
// codec/v1/attention_map_encoder.h).

#include <cstdint>
#include <vector>

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// OK when every block is [heads, tokens, tokens] (or [tokens, tokens] when heads_averaged)
// and its weights hold that many floats; INTERNAL naming the block otherwise (the forecaster
// broke its contract; nothing is encoded).
Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads,
                              int64_t tokens);

// The same for Forecast's maps, whose extent may differ by stack and layer: each block's is
// map_extent(model, block.stack, block.layer, variables) (attention_steps.h).
Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, const ModelShape& model,
                              int64_t variables);

}  // namespace tsserve::server
