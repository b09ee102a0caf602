#include "server/codec/common/attention_maps.h"

#include <string>

namespace tsserve::server {

Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads,
                              int64_t tokens) {
  const std::vector<int64_t> per_head = {heads, tokens, tokens};
  const std::vector<int64_t> averaged = {tokens, tokens};
  for (const AttentionBlock& block : blocks) {
    const std::vector<int64_t>& expected = block.heads_averaged ? averaged : per_head;
    const auto count =
        static_cast<std::size_t>(block.heads_averaged ? tokens * tokens : heads * tokens * tokens);
    if (block.shape != expected || block.weights.size() != count) {
      return {StatusCode::kInternal,
              "attention map of layer " + std::to_string(block.layer) + ", variable " +
                  std::to_string(block.variable) + ": shape of rank " +
                  std::to_string(block.shape.size()) + " with " +
                  std::to_string(block.weights.size()) + " weights; expected " +
                  (block.heads_averaged ? "[P, P]" : "[H, P, P]") +
                  " with H = " + std::to_string(heads) + ", P = " + std::to_string(tokens)};
    }
  }
  return Status();
}

}  // namespace tsserve::server
