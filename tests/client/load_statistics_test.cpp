// The load generator's arithmetic: percentiles, arrival schedules, sweep values.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "tsserve/client/arrival_schedule.h"
#include "tsserve/client/bench_report.h"
#include "tsserve/client/latency_summary.h"

namespace tsserve::client {
namespace {

TEST(LatencySummaryTest, NearestRankPercentilesOfOneToThousand) {
  std::vector<double> samples(1000);
  std::iota(samples.begin(), samples.end(), 1.0);
  std::reverse(samples.begin(), samples.end());  // order must not matter
  const LatencySummary s = summarize_latencies(samples);
  EXPECT_EQ(s.count, 1000u);
  EXPECT_DOUBLE_EQ(s.p50, 500);
  EXPECT_DOUBLE_EQ(s.p90, 900);
  EXPECT_DOUBLE_EQ(s.p99, 990);
  EXPECT_DOUBLE_EQ(s.p999, 999);
  EXPECT_DOUBLE_EQ(s.max, 1000);
  EXPECT_DOUBLE_EQ(s.mean, 500.5);
}

TEST(LatencySummaryTest, SmallAndEmptySets) {
  const LatencySummary one = summarize_latencies({0.25});
  EXPECT_DOUBLE_EQ(one.p50, 0.25);
  EXPECT_DOUBLE_EQ(one.p999, 0.25);
  EXPECT_EQ(summarize_latencies({}).count, 0u);
  EXPECT_DOUBLE_EQ(nearest_rank({1, 2, 3, 4}, 50), 2);
  EXPECT_DOUBLE_EQ(nearest_rank({1, 2, 3, 4}, 51), 3);
}

TEST(ArrivalScheduleTest, ConstantRateIsExact) {
  ArrivalSchedule schedule(200, Arrival::kConstant, 1);
  for (int i = 0; i < 1000; ++i) EXPECT_DOUBLE_EQ(schedule.next_send_seconds(), i / 200.0);
}

TEST(ArrivalScheduleTest, PoissonGapsHaveTheRateAsMeanAndRepeatWithTheSeed) {
  ArrivalSchedule schedule(500, Arrival::kPoisson, 42), again(500, Arrival::kPoisson, 42);
  double last = 0;
  std::vector<double> gaps;
  for (int i = 0; i < 20000; ++i) {
    const double send = schedule.next_send_seconds();
    EXPECT_EQ(send, again.next_send_seconds());
    EXPECT_GE(send, last);
    if (i > 0) gaps.push_back(send - last);
    last = send;
  }
  const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / static_cast<double>(gaps.size());
  EXPECT_NEAR(mean, 1.0 / 500, 0.03 / 500);  // 20k exponential gaps: sd of the mean 0.7%
  double variance = 0;
  for (double g : gaps) variance += (g - mean) * (g - mean);
  variance /= static_cast<double>(gaps.size());
  EXPECT_NEAR(std::sqrt(variance) / mean, 1.0, 0.05);  // exponential: sd == mean
  EXPECT_THROW(ArrivalSchedule(0, Arrival::kPoisson, 1), std::invalid_argument);
  EXPECT_THROW(parse_arrival("bursty"), std::invalid_argument);
}

TEST(ParseSweepTest, SingleListAndDoublingRange) {
  EXPECT_EQ(parse_sweep("8", "concurrency"), (std::vector<double>{8}));
  EXPECT_EQ(parse_sweep("1,4,16", "concurrency"), (std::vector<double>{1, 4, 16}));
  EXPECT_EQ(parse_sweep("1..128", "concurrency"),
            (std::vector<double>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(parse_sweep("3..20", "concurrency"), (std::vector<double>{3, 6, 12, 20}));
  try {
    parse_sweep("4..x", "rate");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "rate: 'x' is not a positive number");
  }
  EXPECT_THROW(parse_sweep("8..2", "concurrency"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("0", "concurrency"), std::invalid_argument);
}

}  // namespace
}  // namespace tsserve::client
