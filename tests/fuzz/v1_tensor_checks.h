#pragma once
// tsserve.v1 response tensors and attention maps, checked against what the request asked.

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "request_checks.h"
#include "response_checks.h"
#include "server/codec/common/attention_selection.h"
#include "tsserve/v1/attention.pb.h"
#include "tsserve/v1/tensor.pb.h"

namespace tsserve::fuzz {

// The floats of a response tensor of `shape`, after checking that it uses exactly the
// encoding the request asked for (raw_values when `raw`, values otherwise).
inline std::vector<float> response_floats(const v1::Tensor& tensor,
                                          const std::vector<int64_t>& shape, bool raw) {
  const std::vector<int64_t> got_shape(tensor.shape().begin(), tensor.shape().end());
  FUZZ_CHECK(got_shape == shape, "a response tensor has another shape than documented");
  if (raw) {
    FUZZ_CHECK(tensor.values_size() == 0, "raw output requested, values set");
    return floats_of(tensor.raw_values());
  }
  FUZZ_CHECK(tensor.raw_values().empty(), "values requested, raw_values set");
  return {tensor.values().begin(), tensor.values().end()};
}

// The maps of marked_attention(selection), ordered by variable then layer.
inline void check_attention_maps(const google::protobuf::RepeatedPtrField<v1::AttentionMap>& maps,
                                 const server::AttentionSelection& selection, int64_t heads,
                                 int64_t tokens, bool raw) {
  FUZZ_CHECK(maps.size() == static_cast<int>(selection.variables.size() * selection.layers.size()),
             std::to_string(maps.size()) + " attention maps");
  const std::vector<int64_t> shape = selection.average_heads
                                         ? std::vector<int64_t>{tokens, tokens}
                                         : std::vector<int64_t>{heads, tokens, tokens};
  int i = 0;
  for (int32_t variable : selection.variables) {
    for (int32_t layer : selection.layers) {
      const v1::AttentionMap& map = maps.Get(i++);
      FUZZ_CHECK(map.variable() == variable && map.layer() == layer &&
                     map.heads_averaged() == selection.average_heads,
                 "attention map " + std::to_string(i - 1) + " is variable " +
                     std::to_string(map.variable()) + " layer " + std::to_string(map.layer()) +
                     "; expected variable " + std::to_string(variable) + " layer " +
                     std::to_string(layer));
      for (float w : response_floats(map.weights(), shape, raw)) {
        FUZZ_CHECK(w == attention_marker(variable, layer), "attention weights of another map");
      }
    }
  }
}

}  // namespace tsserve::fuzz
