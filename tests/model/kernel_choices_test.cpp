// Names the kernels that ran in every test's output, and checks that a choice forced from
// the environment (tests/support/run_with_kernels.sh forces one at a time) is the one that
// ran: a forcing that silently did nothing would pass every suite on the default kernels.

#include "tsserve/model/kernel_choices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <string>

#include "tsserve/model/fused_isa.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

class KernelChoicesReport : public ::testing::Environment {
 public:
  void SetUp() override { std::cout << "[ kernels  ] " << describe(kernel_choices()) << "\n"; }
};
[[maybe_unused]] ::testing::Environment* const kReport =
    ::testing::AddGlobalTestEnvironment(new KernelChoicesReport);

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string forced(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr ? "" : value;
}

// ATEN_CPU_CAPABILITY's values as at::show_config() names the capability in use.
std::string aten_name(const std::string& value) {
  if (value == "default") return "NO AVX";
  return lower(value) == "avx512" ? "AVX512" : lower(value) == "avx2" ? "AVX2" : value;
}

TEST(KernelChoices, EachForcedChoiceIsTheOneThatRuns) {
  const KernelChoices choices = kernel_choices();
  std::cout << describe(choices) << "\n";
  if (const std::string isa = forced(kFusedIsaVariable); !isa.empty()) {
    EXPECT_EQ(choices.fused_isa, isa);
  }
  if (const std::string capability = forced("ATEN_CPU_CAPABILITY"); !capability.empty()) {
    EXPECT_EQ(choices.aten_capability, aten_name(capability));
  }
  if (const std::string core = forced("OPENBLAS_CORETYPE"); !core.empty()) {
    EXPECT_EQ(lower(choices.blas_core), lower(core));
  }
}

TEST(KernelChoices, TheFusedChoiceIsOneThisCpuRuns) {
  const std::vector<const char*> sets = fused_instruction_sets_on_this_cpu();
  const auto has = [&](const std::string& name) {
    return std::any_of(sets.begin(), sets.end(), [&](const char* set) { return name == set; });
  };
  EXPECT_TRUE(has(kernel_choices().fused_isa)) << kernel_choices().fused_isa;
  EXPECT_TRUE(has("sse2"));  // every x86-64 has it
  // The dispatcher asks the compiler's CPU detection; /proc/cpuinfo must agree with it.
  EXPECT_EQ(has("avx2"), cpu_has("avx2") && cpu_has("fma"));
  EXPECT_EQ(has("avx512"), cpu_has("avx512f") && cpu_has("avx512vl") && cpu_has("avx512bw") &&
                               cpu_has("avx512dq"));
}

}  // namespace
}  // namespace tsserve::testing
