#pragma once
// The encoder-decoder families' names (TSLib's Informer and Transformer: one model,
// encoder_decoder.h; their rules, registered by encoder_decoder_family.cpp: TSLib's
// label_len, d_layers, dec_in, c_out, features and distil, the summary's, the markers).
// No LibTorch.

#include "tsserve/model/model_config.h"

namespace tsserve::model {

inline constexpr char kInformerFamily[] = "Informer";
inline constexpr char kTransformerFamily[] = "Transformer";
// Only a distilling Informer has conv layers: the key that tells it from a Transformer.
inline constexpr char kEncoderDecoderDistilMarker[] = "encoder.conv_layers.0.downConv.weight";

// Informer or Transformer: an encoder, a decoder and TSLib's x_dec/x_mark inputs.
inline bool is_encoder_decoder(const ModelConfig& config) {
  return config.family == kInformerFamily || config.family == kTransformerFamily;
}

}  // namespace tsserve::model
