#pragma once
// One row's request for attention maps from the fused forward (fused_forward.h): where to
// write them, which encoder layers, and whether to average over heads. Plain C++ (a view:
// the caller owns the layer list and the destination), so a server can point it into its
// own buffers and one fused call over a batch can give maps to only the rows that asked.
//
// The maps are the softmax weights the forward computes anyway, copied out as it runs:
// a row's forecast is bitwise the same with or without them.

#include <cstdint>

#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

struct FusedRowMaps {
  // The row's maps, layer after layer in the order of `layers`: per layer [H][P][P]
  // (query position, then key position), or [P][P] when average_heads (or each at its
  // own layer_destinations entry). With layer_count 0 the row gets no maps and
  // destination is not read (may be null).
  float* destination = nullptr;
  const int32_t* layers = nullptr;  // encoder layer indices in [0, e_layers); repeats allowed
  int32_t layer_count = 0;
  // The mean over heads as PatchTST's modules give it (sum over heads, divided by H),
  // computed inside the kernels: H times less to write and to send.
  bool average_heads = false;
  // Optional: one destination per slot of `layers` (then `destination` is not read), so a
  // server can have each map written straight into the buffer it answers from.
  float* const* layer_destinations = nullptr;

  bool wanted() const { return layer_count > 0; }
  bool has_destinations() const { return destination != nullptr || layer_destinations != nullptr; }
  // Where slot `slot`'s map of `floats` floats goes.
  float* slot_destination(int32_t slot, int64_t floats) const {
    return layer_destinations != nullptr ? layer_destinations[slot] : destination + slot * floats;
  }
};

// Floats one layer's map takes: H * P * P, or P * P averaged over heads.
inline int64_t fused_layer_map_floats(const FusedWeights& w, bool average_heads) {
  return (average_heads ? 1 : w.n_heads) * w.patches * w.patches;
}

// Floats `maps.destination` must hold.
inline int64_t fused_row_map_floats(const FusedWeights& w, const FusedRowMaps& maps) {
  return maps.layer_count * fused_layer_map_floats(w, maps.average_heads);
}

}  // namespace tsserve::model
