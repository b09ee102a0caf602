#include "tsserve/model/attention_types.h"

#include <ATen/ATen.h>

namespace tsserve::model {

at::Tensor key_padding_from_lengths(const at::Tensor& valid_lengths, int64_t key_length) {
  auto positions = at::arange(key_length, valid_lengths.options().dtype(at::kLong));
  return positions.unsqueeze(0) >= valid_lengths.to(at::kLong).unsqueeze(1);
}

}  // namespace tsserve::model
