#pragma once
// The samples of a Forecast batch, for the families whose unit is a sample
// (ModelShape::unit kSample: the iTransformer, the encoder-decoders, TimeXer): where each
// sample's input sits and where its forecast and maps go.

#include <algorithm>
#include <cstdint>

#include "server/batching/request_task.h"

namespace tsserve::server {

// One sample of one task.
struct SampleSlot {
  ForecastTask* task;
  int64_t sample;  // 0 .. task->input.samples-1
};

// Whether `input` asked for sample `sample`'s maps: a per-sample model's
// AttentionSelection::variables are sample indices (sorted).
inline bool wants_sample_maps(const ForecastInput& input, int64_t sample) {
  const auto& samples = input.attention.variables;
  return input.attention.enabled &&
         std::binary_search(samples.begin(), samples.end(), static_cast<int32_t>(sample));
}

}  // namespace tsserve::server
