#pragma once
// A request's attention options as sent, whichever protocol carried them (tsserve.v1's
// AttentionOptions message, the Open Inference Protocol's parameters and outputs): what
// codec/common/attention_selection.h checks against the model. Plain data, so the shared
// rules never name a protocol's generated types.

#include <cstdint>
#include <vector>

namespace tsserve::server {

struct AttentionRequest {
  bool enabled = false;
  bool average_heads = false;
  std::vector<int32_t> layers;     // as sent: unchecked, in request order; empty = all
  std::vector<int32_t> variables;  // as sent: unchecked, in request order; empty = all
  bool decoder = false;            // the decoder's maps too (encoder-decoder models)
};

}  // namespace tsserve::server
