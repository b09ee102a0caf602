// continue_timestamps: a regular input step continued over the horizon; anything else
// gives no times and a note saying why.
#include "server/codec/common/forecast_timestamps.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace tsserve::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ForecastTimestamps continue_of(const std::vector<int64_t>& input, int64_t pred_len) {
  return continue_timestamps(input.data(), static_cast<int64_t>(input.size()), pred_len);
}

TEST(ForecastTimestamps, RegularHourlyStepContinuesAfterTheLastPoint) {
  const ForecastTimestamps out = continue_of({3600, 7200, 10800}, 4);
  EXPECT_THAT(out.times, ElementsAre(14400, 18000, 21600, 25200));
  EXPECT_THAT(out.note, IsEmpty());
}

TEST(ForecastTimestamps, NegativeTimesBeforeTheEpochContinueToo) {
  EXPECT_THAT(continue_of({-20, -10}, 3).times, ElementsAre(0, 10, 20));
}

TEST(ForecastTimestamps, NoInputTimesGiveNoneAndNoNote) {
  const ForecastTimestamps out = continue_of({}, 96);
  EXPECT_THAT(out.times, IsEmpty());
  EXPECT_THAT(out.note, IsEmpty());
}

TEST(ForecastTimestamps, OnePointHasNoStep) {
  const ForecastTimestamps out = continue_of({100}, 96);
  EXPECT_THAT(out.times, IsEmpty());
  EXPECT_THAT(out.note, HasSubstr("at least two"));
}

TEST(ForecastTimestamps, IrregularStepsGiveNoneAndNameTheFirstUnevenGap) {
  // A missing hour between points 2 and 3 (DST or a gap in the data).
  const ForecastTimestamps out = continue_of({0, 3600, 7200, 14400, 18000}, 96);
  EXPECT_THAT(out.times, IsEmpty());
  EXPECT_THAT(out.note, HasSubstr("irregular"));
  EXPECT_THAT(out.note, HasSubstr("7200 s between points 2 and 3"));
}

TEST(ForecastTimestamps, TimesPastInt64GiveNoneInsteadOfWrapping) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const ForecastTimestamps out = continue_of({kMax - 20, kMax - 10}, 2);
  EXPECT_THAT(out.times, IsEmpty());
  EXPECT_THAT(out.note, HasSubstr("largest int64"));
  // One step fits exactly.
  EXPECT_THAT(continue_of({kMax - 20, kMax - 10}, 1).times, ElementsAre(kMax));
}

}  // namespace
}  // namespace tsserve::server
