#include "server/codec/v1/attention_map_encoder.h"

#include <algorithm>

#include "server/codec/common/attention_steps.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {
namespace {

// By variable (or sample), then stack (encoder, decoder, cross), then layer.
bool before(const AttentionBlock& a, const AttentionBlock& b) {
  if (a.variable != b.variable) return a.variable < b.variable;
  if (a.stack != b.stack) return a.stack < b.stack;
  return a.layer < b.layer;
}

}  // namespace

void encode_attention_maps(std::vector<AttentionBlock>&& blocks, bool raw,
                           google::protobuf::RepeatedPtrField<v1::AttentionMap>* out) {
  if (!std::is_sorted(blocks.begin(), blocks.end(), before)) {
    std::stable_sort(blocks.begin(), blocks.end(), before);
  }
  out->Reserve(out->size() + static_cast<int>(blocks.size()));
  for (AttentionBlock& block : blocks) {
    v1::AttentionMap* map = out->Add();
    map->set_stack(attention_stack_name(block.stack));
    map->set_layer(block.layer);
    map->set_variable(block.variable);
    map->set_heads_averaged(block.heads_averaged);
    write_tensor(block.weights.data(), block.shape, raw, map->mutable_weights());
    std::vector<float>().swap(block.weights);  // release as we go: maps can be large
  }
}

}  // namespace tsserve::server
