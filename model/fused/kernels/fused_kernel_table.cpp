// This copy's table of entry points (fused_kernel_table.h), compiled with the kernels once
// per instruction set: TSSERVE_FUSED_NAMESPACE and TSSERVE_FUSED_ISA_NAME name the copy.

#include "fused_kernel_table.h"

#include "fused_entry_points.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {

const FusedKernelTable kKernelTable = {TSSERVE_FUSED_ISA_NAME, forecast_rows,
                                       encode_tokens,          itransformer_forecast,
                                       itransformer_encode,    timexer_forecast};

}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
