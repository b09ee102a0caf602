#include "server/codec/common/attention_maps.h"

#include <string>

#include "server/codec/common/attention_steps.h"

namespace tsserve::server {

namespace {

// `extent(block)`: the [rows, columns] that block's map must have.
template <typename Extent>
Status check_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads, Extent extent) {
  for (const AttentionBlock& block : blocks) {
    const MapExtent e = extent(block);
    const std::vector<int64_t> expected = block.heads_averaged
                                              ? std::vector<int64_t>{e.rows, e.columns}
                                              : std::vector<int64_t>{heads, e.rows, e.columns};
    const bool sized = e.rows >= 0 && e.columns >= 0;
    const auto count = static_cast<std::size_t>(
        sized ? (block.heads_averaged ? 1 : heads) * e.rows * e.columns : 0);
    if (!sized || block.shape != expected || block.weights.size() != count) {
      const bool square = e.rows == e.columns;
      const std::string sides =
          square ? ", P = " + std::to_string(e.rows)
                 : ", Q = " + std::to_string(e.rows) + ", K = " + std::to_string(e.columns);
      const std::string shape = square ? (block.heads_averaged ? "[P, P]" : "[H, P, P]")
                                       : (block.heads_averaged ? "[Q, K]" : "[H, Q, K]");
      const std::string stack = block.stack == AttentionStack::kEncoder
                                    ? std::string()
                                    : std::string(attention_stack_name(block.stack)) + " ";
      return {StatusCode::kInternal,
              "attention map of " + stack + "layer " + std::to_string(block.layer) + ", variable " +
                  std::to_string(block.variable) + ": shape of rank " +
                  std::to_string(block.shape.size()) + " with " +
                  std::to_string(block.weights.size()) + " weights; expected " + shape +
                  " with H = " + std::to_string(heads) + sides};
    }
  }
  return Status();
}

}  // namespace

Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads,
                              int64_t tokens) {
  return check_blocks(blocks, heads, [tokens](const AttentionBlock& block) {
    return block.stack == AttentionStack::kEncoder ? MapExtent{tokens, tokens} : MapExtent{-1, -1};
  });
}

Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, const ModelShape& model,
                              int64_t variables) {
  return check_blocks(blocks, model.n_heads, [&model, variables](const AttentionBlock& block) {
    return map_extent(model, block.stack, block.layer, variables);
  });
}

}  // namespace tsserve::server
