#pragma once
// One table of entry points per instruction set's copy of the fused kernels, so that every
// family's dispatch (fused_dispatch.cpp, fused_itransformer_dispatch.cpp,
// fused_timexer_dispatch.cpp, fused_encode_dispatch.cpp) runs the copy fused_isa.h chose, and a new
// family's kernels join by adding a column here rather than a dispatch of their own.

#include <cstdint>
#include <string>

#include "tsserve/model/fused_itransformer_weights.h"
#include "tsserve/model/fused_row_maps.h"
#include "tsserve/model/fused_timexer_forward.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

struct FusedKernelTable {
  const char* instruction_set;  // "avx512", "avx2" or "sse2"
  void (*patchtst_forecast)(const FusedWeights&, const float* series, int64_t rows, float* forecast,
                            const FusedRowMaps* maps);
  void (*patchtst_encode)(const FusedWeights&, const float* tokens, int64_t sequences,
                          int64_t length, float* output, float* maps);
  void (*itransformer_forecast)(const FusedITransformerWeights&, const float* series,
                                const float* calendar, int64_t samples, int64_t variables,
                                float* forecast, const FusedRowMaps* maps);
  void (*itransformer_encode)(const FusedITransformerWeights&, const float* tokens,
                              int64_t sequences, int64_t length, float* output,
                              const FusedRowMaps* maps);
  void (*timexer_forecast)(const FusedTimeXerWeights&, const float* series, const float* calendar,
                           int64_t samples, float* forecast, const FusedTimeXerMaps* maps);
};

// Each copy's table (kernels/fused_kernel_table.cpp, compiled once per instruction set).
namespace fused_avx512 {
extern const FusedKernelTable kKernelTable;
}
namespace fused_avx2 {
extern const FusedKernelTable kKernelTable;
}
namespace fused_sse2 {
extern const FusedKernelTable kKernelTable;
}

// The table of the instruction set this process runs with (fused_instruction_set()).
// Throws ModelError as fused_instruction_set() does.
const FusedKernelTable& fused_kernel_table();

// The table of a named copy ("avx512", "avx2" or "sse2"), for tests that check every copy
// this CPU can run: nullptr when the CPU lacks that instruction set. Throws
// std::invalid_argument for an unknown name.
const FusedKernelTable* fused_kernel_table_named(const std::string& instruction_set);

}  // namespace tsserve::model
