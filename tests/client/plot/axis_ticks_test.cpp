#include "tsserve/plot/axis_ticks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tsserve::plot {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;

TEST(NiceTicks, StepIsOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(nice_ticks(0, 10, 5).step, 2);
  EXPECT_EQ(nice_ticks(0, 100, 4).step, 20);                 // raw 25 -> 20
  EXPECT_EQ(nice_ticks(0, 1, 3).step, 0.5);                  // raw 0.33 -> 0.5
  EXPECT_EQ(nice_ticks(-336, 95, 10).step, 50);              // raw 43 -> 50
  EXPECT_DOUBLE_EQ(nice_ticks(0.013, 0.087, 5).step, 0.01);  // raw 0.0148 -> 0.01
}

TEST(NiceTicks, TicksAreTheStepsMultiplesInsideTheRange) {
  EXPECT_THAT(nice_ticks(0, 10, 5).values, ElementsAre(0, 2, 4, 6, 8, 10));
  EXPECT_THAT(nice_ticks(-336, 95, 4).values, ElementsAre(-300, -200, -100, 0));
  const AxisTicks small = nice_ticks(0.013, 0.087, 4);  // raw 0.0185 -> 0.02
  EXPECT_THAT(small.values, ElementsAre(DoubleNear(0.02, 1e-15), DoubleNear(0.04, 1e-15),
                                        DoubleNear(0.06, 1e-15), DoubleNear(0.08, 1e-15)));
}

TEST(NiceTicks, ZeroIsExactAndBoundsThatAreMultiplesKeepTheirTicks) {
  const AxisTicks ticks = nice_ticks(-0.3, 0.3, 6);  // 0.1 does not add up exactly in binary
  ASSERT_EQ(ticks.values.size(), 7u);
  EXPECT_EQ(ticks.values[3], 0.0);
  EXPECT_FALSE(std::signbit(ticks.values[3]));
}

TEST(NiceTicks, IntegerOnlyNeverStepsBelowOne) {
  const AxisTicks ticks = nice_ticks(-0.5, 2.5, 10, /*integer_only=*/true);
  EXPECT_EQ(ticks.step, 1);
  EXPECT_THAT(ticks.values, ElementsAre(0, 1, 2));
}

TEST(FormatTick, AsShortAsTheStepAllows) {
  EXPECT_EQ(format_tick(10, 2), "10");
  EXPECT_EQ(format_tick(-300, 100), "-300");
  EXPECT_EQ(format_tick(0.5, 0.5), "0.5");
  EXPECT_EQ(format_tick(1.0, 0.5), "1");  // no trailing ".0"
  EXPECT_EQ(format_tick(0.06, 0.02), "0.06");
  EXPECT_EQ(format_tick(0.25, 0.05), "0.25");
  EXPECT_EQ(format_tick(1234.5, 0.5), "1234.5");
}

TEST(FormatTick, NegativeZeroAndRoundingNoisePrintAsZero) {
  EXPECT_EQ(format_tick(-0.0, 1), "0");
  EXPECT_EQ(format_tick(1e-17, 0.1), "0");
}

TEST(FormatTick, HugeAndTinyValuesUseCompactScientificNotation) {
  EXPECT_EQ(format_tick(2e6, 1e6), "2e6");
  EXPECT_EQ(format_tick(1.5e6, 5e5), "1.5e6");
  EXPECT_EQ(format_tick(2e-5, 1e-5), "2e-5");
  EXPECT_EQ(format_tick(-3e-6, 1e-6), "-3e-6");
}

}  // namespace
}  // namespace tsserve::plot
