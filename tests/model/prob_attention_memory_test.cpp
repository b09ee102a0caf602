// ProbSparse's peak tensor memory grows like B*H*L*(E + U), never like full attention's
// B*H*L*L (and never through a [B, H, L_Q, L_K, E] gather). Memory is counted exactly by
// a counting CPU allocator, so these bounds are deterministic.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "counting_cpu_allocator.h"
#include "tsserve/model/prob_attention.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

int64_t peak_bytes_of_forward(int64_t length) {
  constexpr int64_t kHeads = 4;
  constexpr int64_t kWidth = 32;
  torch::manual_seed(0);
  const at::Tensor q = torch::randn({1, length, kHeads, kWidth});
  const at::Tensor k = torch::randn({1, length, kHeads, kWidth});
  const at::Tensor v = torch::randn({1, length, kHeads, kWidth});
  ProbAttentionOptions options;
  options.factor = 5;
  const ProbAttention attention(options);
  at::InferenceMode guard;
  CountingCpuAllocator::reset_peak();
  const int64_t before = CountingCpuAllocator::live_bytes();
  { const auto out = attention.forward(q, k, v, {}, false); }
  return CountingCpuAllocator::peak_bytes() - before;
}

TEST(ProbAttentionMemory, PeakGrowsLikeLengthNotLengthSquared) {
  CountingCpuAllocator::install();
  const int64_t at_2048 = peak_bytes_of_forward(2048);
  const int64_t at_4096 = peak_bytes_of_forward(4096);
  const int64_t full_scores_4096 = int64_t{4} * 4096 * 4096 * 4;  // [B, H, L, L] float
  const int64_t gathered_keys_4096 = int64_t{4} * 4096 * ProbAttention::sample_count(5, 4096) * 32 * 4;
  EXPECT_LT(at_4096, full_scores_4096 / 10) << at_4096;
  EXPECT_LT(at_4096, gathered_keys_4096 / 4) << at_4096;
  // Doubling L roughly doubles memory (U grows like ln L); quadratic would be 4x.
  EXPECT_LT(static_cast<double>(at_4096) / static_cast<double>(at_2048), 2.5);
}

}  // namespace
}  // namespace tsserve::testing
