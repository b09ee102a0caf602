#pragma once
// The inputs of a family whose unit is a sample (the iTransformer, TimeXer) as its fused
// kernels take them: series [samples, variables, seq_len] and, with calendar tokens, the
// calendar rows [samples, C, seq_len], float32 on the CPU, checked and made contiguous.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>

namespace tsserve::model {

struct SampleInputShape {
  std::string owner;      // names the reader in messages: "the fused iTransformer"
  int64_t variables = 0;  // the variables a sample must have; 0: any count >= 1
  int64_t seq_len = 0;
  int64_t calendar_tokens = 0;  // C; 0: no calendar rows may be given
};

// The contiguous series and calendar (undefined when C = 0). Throws ModelError naming the
// expected shapes ("... expects float32 CPU series [samples, 7, 96], got ...").
std::pair<at::Tensor, at::Tensor> checked_sample_inputs(const at::Tensor& series,
                                                        const at::Tensor& calendar,
                                                        const SampleInputShape& shape);

}  // namespace tsserve::model
