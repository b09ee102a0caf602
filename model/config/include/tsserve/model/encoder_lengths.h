#pragma once
// The sequence length each encoder layer of an encoder-decoder model (Informer,
// Transformer) reads, from its config alone: plain C++, so the server's view of the model
// (its attention maps' sides) and the model itself (EncoderDecoderImpl) compute it once.

#include <cstdint>
#include <vector>

#include "tsserve/model/model_config.h"

namespace tsserve::model {

// TSLib's ConvLayer pads circularly by 2 (Informer's original code by 1).
inline constexpr int64_t kDistilPadding = 2;

// seq_len for the first layer, then each distilling conv's output (Conv1d kernel 3 with
// circular padding 2: L + 2; MaxPool1d(3, stride 2, padding 1): 96 -> 49 -> 25); seq_len for
// every layer without distilling.
std::vector<int64_t> encoder_lengths(const ModelConfig& config);

}  // namespace tsserve::model
