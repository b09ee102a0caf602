#pragma once
// The architecture choices a model.json names, free of LibTorch, so that the config
// (model_config.h) and the server's readers of it compile without LibTorch's headers;
// the modules that implement each choice include this header.

#include <cstdint>

namespace tsserve::model {

// The feed-forward activation of an EncoderLayer (encoder_layer.h).
enum class Activation { kGelu, kRelu };

// The Encoder's final norm (encoder.h): none, BatchNorm between two transposes (TSLib
// since mid-2024) or LayerNorm (TFB and older TSLib).
enum class FinalNorm { kNone, kBatch, kLayer };

// How ProbAttention's [B, H, L, E] context is handed to AttentionLayer's [B, L, H*E] view.
enum class ProbLayout {
  kCanonical,  // transposed back to [B, L, H, E], as Informer and Full attention do
  kTslib,      // TSLib's quirk: viewed without transposing, mixing heads and positions
};

// TSLib's PositionalEmbedding table length (max_len): the most patches a PatchTST may have.
inline constexpr int64_t kMaxPositions = 5000;

}  // namespace tsserve::model
