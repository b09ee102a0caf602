#include "server/batching/queue_wait_estimate.h"

#include <gtest/gtest.h>

#include <chrono>

namespace tsserve::server {
namespace {

using namespace std::chrono_literals;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

TEST(QueueWaitEstimateTest, KnowsNothingBeforeTheFirstBatch) {
  const QueueWaitEstimate estimate;
  EXPECT_FALSE(estimate.wait_behind(1000, 1).has_value());
}

TEST(QueueWaitEstimateTest, QueuedRowsTimesTimePerRowSharedByTheWorkers) {
  QueueWaitEstimate estimate;
  estimate.record_batch(10, 10ms);  // 1 ms per row
  EXPECT_DOUBLE_EQ(ms(*estimate.wait_behind(0, 1)), 0.0);
  EXPECT_NEAR(ms(*estimate.wait_behind(20, 1)), 20.0, 1e-3);
  EXPECT_NEAR(ms(*estimate.wait_behind(20, 2)), 10.0, 1e-3);
}

// Rows weigh, not batches: one full batch outweighs a lone row's fixed overhead.
TEST(QueueWaitEstimateTest, FullBatchesWeighMoreThanSmallOnes) {
  QueueWaitEstimate estimate;
  estimate.record_batch(400, 400ms);  // 1 ms per row
  estimate.record_batch(1, 5ms);      // 5 ms for a lone row
  const double per_row = ms(*estimate.wait_behind(1, 1));
  EXPECT_GT(per_row, 1.0);
  EXPECT_LT(per_row, 1.05);
}

// The machine gets 5x slower (another process takes the CPU): the estimate is most of the
// way there within a few batches, and there within a few dozen.
TEST(QueueWaitEstimateTest, FollowsAChangeOfSpeed) {
  QueueWaitEstimate estimate;
  for (int i = 0; i < 50; ++i) estimate.record_batch(10, 10ms);
  EXPECT_NEAR(ms(*estimate.wait_behind(1, 1)), 1.0, 1e-3);
  for (int i = 0; i < 8; ++i) estimate.record_batch(10, 50ms);
  EXPECT_GT(ms(*estimate.wait_behind(1, 1)), 3.5);
  for (int i = 0; i < 52; ++i) estimate.record_batch(10, 50ms);
  EXPECT_NEAR(ms(*estimate.wait_behind(1, 1)), 5.0, 0.01);
}

}  // namespace
}  // namespace tsserve::server
