// The line of tsserve/model/normalisation_limit.h checked on LibTorch's own arithmetic
// (normalise_over_time, the code every family runs): the series that push each step of
// the derivation hardest stay finite at the line for the seq_lens served, and the
// de-normalisation of any plausible network output does too. Past float's reach (e.g.
// 336 values of 3e38) the same code yields values that are not numbers, which is why the
// server refuses beyond the line.

#include "tsserve/model/normalisation_limit.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tsserve/model/instance_norm.h"

namespace tsserve::model {
namespace {

// Rows of T points at magnitude m: constant (the largest mean), alternating (the largest
// variance), one spike among zeros (the largest normalised value), a step.
at::Tensor hardest_rows(int64_t t, float m) {
  at::Tensor rows = torch::zeros({5, t});
  rows[0].fill_(m);
  rows[1].fill_(-m);
  rows[2].index_put_({torch::indexing::Slice(0, torch::indexing::None, 2)}, m);
  rows[2].index_put_({torch::indexing::Slice(1, torch::indexing::None, 2)}, -m);
  rows[3][t - 1] = m;
  rows[4].index_put_({torch::indexing::Slice(0, t / 2)}, -m);
  rows[4].index_put_({torch::indexing::Slice(t / 2, torch::indexing::None)}, m);
  return rows;
}

bool all_finite(const at::Tensor& t) { return at::isfinite(t).all().item<bool>(); }

TEST(NormalisationLimitTest, EveryStepStaysFiniteAtTheLine) {
  for (int64_t t : {8, 96, 336, 512, 720}) {
    const float m = largest_normalisable_magnitude(t);
    const NormalisedSeries norm = normalise_over_time(hardest_rows(t, m));
    EXPECT_TRUE(all_finite(norm.mean)) << "T " << t;
    EXPECT_TRUE(all_finite(norm.stdev)) << "T " << t;
    EXPECT_TRUE(all_finite(norm.values)) << "T " << t;
    // Step 6 of the derivation: outputs up to 1e20 in the normalised space undo finitely.
    for (float y : {1e20f, -1e20f, 0.0f}) {
      EXPECT_TRUE(all_finite(norm.denormalise(torch::full({5, 96}, y)))) << "T " << t << " y " << y;
    }
  }
}

TEST(NormalisationLimitTest, IssueEighteensSeriesIsNotANumberWithoutTheLine) {
  const NormalisedSeries norm = normalise_over_time(hardest_rows(336, 3e38f));
  EXPECT_FALSE(all_finite(norm.denormalise(torch::ones({5, 96}))));
}

}  // namespace
}  // namespace tsserve::model
