#pragma once
// The inputs of a Forecast batch for a family whose unit is a sample read with its calendar
// rows (the iTransformer, TimeXer): every slot's sample stacked into one [S, N, T] series
// and [S, C, T] calendar, with each sample's map request.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "server/families/sample_slots.h"
#include "tsserve/model/row_attention_maps.h"

namespace tsserve::server {

struct SampleBatch {
  at::Tensor series;    // [S, variables, seq_len]
  at::Tensor calendar;  // [S, calendar_tokens, seq_len]; undefined without calendar tokens
  std::vector<model::RowMapRequest> requests;  // per sample: the layers it asked maps of
  bool need_attention = false;                 // some sample asked for maps
};

// REQUIRES: each slot's task holds `variables` x seq_len rows per sample and, with
// calendar tokens, calendar_tokens x seq_len calendar rows per sample (the codecs' promise).
SampleBatch gather_sample_batch(const std::vector<SampleSlot>& slots, int64_t variables,
                                int64_t seq_len, int64_t calendar_tokens);

}  // namespace tsserve::server
