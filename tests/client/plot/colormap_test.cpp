#include "tsserve/plot/colormap.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tsserve::plot {
namespace {

// Entries of matplotlib's 256-entry viridis table (the reference), index -> colour.
struct Reference {
  int index;
  Rgb colour;
};
constexpr Reference kMatplotlib[] = {
    {0, {0.267004, 0.004874, 0.329415}},   {8, {0.277018, 0.050344, 0.375715}},
    {100, {0.166617, 0.463708, 0.558119}}, {128, {0.127568, 0.566949, 0.550556}},
    {136, {0.120565, 0.596422, 0.543611}}, {200, {0.440137, 0.811138, 0.340967}},
    {236, {0.804182, 0.882046, 0.114965}}, {244, {0.886271, 0.892374, 0.095374}},
    {252, {0.964894, 0.902323, 0.123941}}, {255, {0.993248, 0.906157, 0.143936}},
};

TEST(Viridis, MatchesMatplotlibsTableWithinTwoEightBitSteps) {
  for (const Reference& ref : kMatplotlib) {
    const Rgb c = viridis(ref.index / 255.0);
    EXPECT_NEAR(c.r, ref.colour.r, 0.007) << "entry " << ref.index;
    EXPECT_NEAR(c.g, ref.colour.g, 0.007) << "entry " << ref.index;
    EXPECT_NEAR(c.b, ref.colour.b, 0.007) << "entry " << ref.index;
  }
}

TEST(Viridis, EndsAreExactAndOutOfRangeClamps) {
  EXPECT_EQ(viridis(-3).r, 0.267004);
  EXPECT_EQ(viridis(std::nan("")).b, 0.329415);
  EXPECT_EQ(viridis(1).g, 0.906157);
  EXPECT_EQ(viridis(7).r, 0.993248);
}

// What makes viridis readable: brightness rises steadily from one end to the other.
TEST(Viridis, LuminanceRisesMonotonically) {
  double previous = -1;
  for (int i = 0; i <= 1000; ++i) {
    const Rgb c = viridis(i / 1000.0);
    const double luminance = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    EXPECT_GT(luminance, previous) << "at t = " << i / 1000.0;
    previous = luminance;
  }
}

}  // namespace
}  // namespace tsserve::plot
