#include "server/codec/common/attention_maps.h"

#include <string>

namespace tsserve::server {

namespace {

// `side(layer)`: the side of that layer's maps.
template <typename Side>
Status check_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads, Side side) {
  for (const AttentionBlock& block : blocks) {
    const int64_t tokens = side(block.layer);
    const std::vector<int64_t> expected = block.heads_averaged
                                              ? std::vector<int64_t>{tokens, tokens}
                                              : std::vector<int64_t>{heads, tokens, tokens};
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

}  // namespace

Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads,
                              int64_t tokens) {
  return check_blocks(blocks, heads, [tokens](int32_t) { return tokens; });
}

Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, const ModelShape& model,
                              int64_t variables) {
  return check_blocks(blocks, model.n_heads, [&model, variables](int32_t layer) {
    const bool known =
        layer >= 0 && layer < model.e_layers &&
        (model.map_sides.empty() || layer < static_cast<int64_t>(model.map_sides.size()));
    return known ? model.attention_tokens(variables, layer) : int64_t{-1};
  });
}

}  // namespace tsserve::server
