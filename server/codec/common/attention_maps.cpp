#include "server/codec/common/attention_maps.h"

#include <algorithm>
#include <string>

#include "server/codec/common/tensor_codec.h"

namespace tsserve::server {
namespace {

bool before(const AttentionBlock& a, const AttentionBlock& b) {
  return a.variable != b.variable ? a.variable < b.variable : a.layer < b.layer;
}

}  // namespace

grpc::Status check_attention_blocks(const std::vector<AttentionBlock>& blocks, int64_t heads,
                                    int64_t tokens) {
  const std::vector<int64_t> per_head = {heads, tokens, tokens};
  const std::vector<int64_t> averaged = {tokens, tokens};
  for (const AttentionBlock& block : blocks) {
    const std::vector<int64_t>& expected = block.heads_averaged ? averaged : per_head;
    const auto count =
        static_cast<std::size_t>(block.heads_averaged ? tokens * tokens : heads * tokens * tokens);
    if (block.shape != expected || block.weights.size() != count) {
      return {grpc::StatusCode::INTERNAL,
              "attention map of layer " + std::to_string(block.layer) + ", variable " +
                  std::to_string(block.variable) + ": shape of rank " +
                  std::to_string(block.shape.size()) + " with " +
                  std::to_string(block.weights.size()) + " weights; expected " +
                  (block.heads_averaged ? "[P, P]" : "[H, P, P]") +
                  " with H = " + std::to_string(heads) + ", P = " + std::to_string(tokens)};
    }
  }
  return grpc::Status::OK;
}

void encode_attention_maps(std::vector<AttentionBlock>&& blocks, bool raw,
                           google::protobuf::RepeatedPtrField<v1::AttentionMap>* out) {
  if (!std::is_sorted(blocks.begin(), blocks.end(), before)) {
    std::stable_sort(blocks.begin(), blocks.end(), before);
  }
  out->Reserve(out->size() + static_cast<int>(blocks.size()));
  for (AttentionBlock& block : blocks) {
    v1::AttentionMap* map = out->Add();
    map->set_layer(block.layer);
    map->set_variable(block.variable);
    map->set_heads_averaged(block.heads_averaged);
    write_tensor(block.weights.data(), block.shape, raw, map->mutable_weights());
    std::vector<float>().swap(block.weights);  // release as we go: maps can be large
  }
}

}  // namespace tsserve::server
