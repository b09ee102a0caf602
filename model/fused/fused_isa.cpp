#include "tsserve/model/fused_isa.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kernels/fused_kernel_table.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

bool has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}

bool has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// TSSERVE_FUSED_ISA forces one copy: tests run each copy the CPU has through the whole
// forward, and a fleet of mixed CPUs can run one instruction set (and so the same bits)
// everywhere. A copy the CPU cannot run is refused, never replaced by another.
const char* forced_instruction_set(const std::string& name) {
  if (name == "avx512") {
    if (!has_avx512()) {
      throw ModelError("TSSERVE_FUSED_ISA=avx512, but this CPU lacks AVX-512 F/VL/BW/DQ");
    }
    return "avx512";
  }
  if (name == "avx2") {
    if (!has_avx2()) throw ModelError("TSSERVE_FUSED_ISA=avx2, but this CPU lacks AVX2 and FMA");
    return "avx2";
  }
  if (name == "sse2") return "sse2";
  throw ModelError(
      "TSSERVE_FUSED_ISA must be avx512, avx2 or sse2 (or unset: the CPU's best), "
      "got \"" +
      name + "\"");
}

const char* select_instruction_set() {
  const char* forced = std::getenv(kFusedIsaVariable);
  if (forced != nullptr && *forced != '\0') return forced_instruction_set(forced);
  return fused_instruction_sets_on_this_cpu().front();
}

}  // namespace

const char* fused_instruction_set() {
  // Chosen once per process, so every call on this machine runs the same instructions
  // (which the bitwise batch invariance relies on).
  static const char* const chosen = select_instruction_set();
  return chosen;
}

std::vector<const char*> fused_instruction_sets_on_this_cpu() {
  std::vector<const char*> sets;
  if (has_avx512()) sets.push_back("avx512");
  if (has_avx2()) sets.push_back("avx2");
  sets.push_back("sse2");
  return sets;
}

const FusedKernelTable* fused_kernel_table_named(const std::string& instruction_set) {
  static const FusedKernelTable* const kCopies[] = {
      &fused_avx512::kKernelTable, &fused_avx2::kKernelTable, &fused_sse2::kKernelTable};
  const FusedKernelTable* const* copy = std::find_if(
      std::begin(kCopies), std::end(kCopies),
      [&](const FusedKernelTable* table) { return instruction_set == table->instruction_set; });
  if (copy == std::end(kCopies)) {
    throw std::invalid_argument("instruction set must be avx512, avx2 or sse2, got " +
                                instruction_set);
  }
  const std::vector<const char*> sets = fused_instruction_sets_on_this_cpu();
  const bool runs = std::any_of(sets.begin(), sets.end(),
                                [&](const char* set) { return instruction_set == set; });
  return runs ? *copy : nullptr;
}

const FusedKernelTable& fused_kernel_table() {
  // Chosen once per process, as fused_instruction_set() is.
  static const FusedKernelTable& chosen = *fused_kernel_table_named(fused_instruction_set());
  return chosen;
}

}  // namespace tsserve::model
