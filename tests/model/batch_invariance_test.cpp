// A row's forecast must not depend on what else is in the batch: bitwise, for Full and
// ProbSparse attention, at 1 and 2 intra-op threads.

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "default_model_shape.h"
#include "reference_fixture.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/prob_attention.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

// The server's thread setting for the test's scope: LibTorch's pool and OpenBLAS's.
class ThreadCount {
 public:
  explicit ThreadCount(int threads)
      : saved_(at::get_num_threads()), saved_blas_(blas_pool_threads().value_or(saved_)) {
    set_intra_op_threads(threads);
  }
  ~ThreadCount() {
    set_intra_op_threads(saved_blas_);
    at::set_num_threads(saved_);
  }

 private:
  int saved_;
  int saved_blas_;
};

struct InvarianceCase {
  AttentionKind attention;
  int threads;
};

class BatchInvariance : public ::testing::TestWithParam<InvarianceCase> {};

TEST_P(BatchInvariance, RowAloneEqualsRowInBatchesOf7And64Bitwise) {
  torch::manual_seed(3);
  ThreadCount threads(GetParam().threads);
  PatchTST model(default_model_shape(GetParam().attention, true));
  const at::Tensor batch = torch::randn({64, 336}) * 4 + 2;
  at::InferenceMode guard;
  const RowForecast all = model->forecast_rows(batch, true);
  const RowForecast seven = model->forecast_rows(batch.narrow(0, 20, 7), true);
  for (int64_t row : {0, 21, 26, 63}) {
    const RowForecast alone = model->forecast_rows(batch.narrow(0, row, 1), true);
    EXPECT_TRUE(at::equal(alone.forecast[0], all.forecast[row])) << "row " << row;
    for (size_t layer = 0; layer < alone.attention.size(); ++layer) {
      EXPECT_TRUE(at::equal(alone.attention[layer][0], all.attention[layer][row]))
          << "row " << row << " layer " << layer;
    }
    if (row >= 20 && row < 27) {
      EXPECT_TRUE(at::equal(alone.forecast[0], seven.forecast[row - 20])) << "row " << row;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, BatchInvariance,
                         ::testing::Values(InvarianceCase{AttentionKind::kFull, 1},
                                           InvarianceCase{AttentionKind::kFull, 2},
                                           InvarianceCase{AttentionKind::kProb, 1},
                                           InvarianceCase{AttentionKind::kProb, 2}));

TEST(BatchInvariance, ProbAttentionWithOneHeadIsRowIndependent) {
  // The reference's bare squeeze() made H == 1 results depend on the other rows.
  torch::manual_seed(5);
  ProbAttentionOptions options;
  options.factor = 2;
  options.seed = 9;
  const ProbAttention attention(options);
  const at::Tensor q = torch::randn({64, 37, 1, 8});
  const at::Tensor k = torch::randn({64, 37, 1, 8});
  const at::Tensor v = torch::randn({64, 37, 1, 8});
  const auto all = attention.forward(q, k, v, {}, true);
  for (int64_t row : {0, 17, 63}) {
    const auto alone =
        attention.forward(q.narrow(0, row, 1), k.narrow(0, row, 1), v.narrow(0, row, 1), {}, true);
    EXPECT_TRUE(at::equal(alone.context[0], all.context[row])) << "row " << row;
    EXPECT_TRUE(at::equal(alone.weights[0], all.weights[row])) << "row " << row;
  }
}

TEST(BatchInvariance, SameRequestTwiceGivesTheSameProbSparseAnswer) {
  torch::manual_seed(8);
  PatchTST model(default_model_shape(AttentionKind::kProb, true));
  const at::Tensor batch = torch::randn({5, 336});
  at::InferenceMode guard;
  EXPECT_TRUE(
      at::equal(model->forecast_rows(batch).forecast, model->forecast_rows(batch).forecast));
}

TEST(BatchInvariance, FastPathStaysWithin1e6OfInvariantPath) {
  torch::manual_seed(4);
  PatchTST invariant(default_model_shape(AttentionKind::kFull, true));
  PatchTST fast(default_model_shape(AttentionKind::kFull, false));
  {
    at::NoGradGuard no_grad;
    for (const auto& item : invariant->named_parameters()) {
      fast->named_parameters()[item.key()].copy_(item.value());
    }
    for (const auto& item : invariant->named_buffers()) {
      fast->named_buffers()[item.key()].copy_(item.value());
    }
  }
  const at::Tensor batch = torch::randn({64, 336}) * 3;
  at::InferenceMode guard;
  EXPECT_TRUE(matches_reference(fast->forecast_rows(batch).forecast,
                                invariant->forecast_rows(batch).forecast, 1e-6));
}

}  // namespace
}  // namespace tsserve::testing
