#pragma once
// The instruction set the fused kernels run with, chosen once per process for every family
// (PatchTST, the iTransformer, Encode), so one process runs one instruction set throughout
// and a row's forecast is bitwise the same whatever else is in its batch.

#include <vector>

namespace tsserve::model {

// The environment variable that forces the kernels' instruction set ("avx512", "avx2" or
// "sse2"; unset or empty: the best this CPU has). A set the CPU lacks is refused.
inline constexpr const char* kFusedIsaVariable = "TSSERVE_FUSED_ISA";

// The instruction set the kernels run with on this CPU: "avx512", "avx2" or "sse2".
// Throws ModelError when TSSERVE_FUSED_ISA names a set this CPU lacks, or no set.
const char* fused_instruction_set();

// The copies this CPU can run, widest first: {"avx512", "avx2", "sse2"} or a tail of it.
std::vector<const char*> fused_instruction_sets_on_this_cpu();

}  // namespace tsserve::model
