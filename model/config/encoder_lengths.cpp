#include "tsserve/model/encoder_lengths.h"

namespace tsserve::model {

std::vector<int64_t> encoder_lengths(const ModelConfig& config) {
  std::vector<int64_t> lengths{config.seq_len};
  for (int64_t i = 1; i < config.e_layers; ++i) {
    if (!config.distil) {
      lengths.push_back(config.seq_len);
      continue;
    }
    const int64_t convolved = lengths.back() + 2 * kDistilPadding - 2;
    lengths.push_back((convolved + 2 - 3) / 2 + 1);
  }
  return lengths;
}

}  // namespace tsserve::model
