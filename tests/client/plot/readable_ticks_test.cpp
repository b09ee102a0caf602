// White-box: the tick choice of tsserve_plot's internal plot frame (src/plot_frame.h).
#include <cairo.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot_frame.h"

namespace tsserve::plot {
namespace {

using ::testing::ElementsAre;

class ReadableTicks : public ::testing::Test {
 protected:
  ReadableTicks()
      : surface_(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10)),
        cr_(cairo_create(surface_)) {}
  ~ReadableTicks() override {
    cairo_destroy(cr_);
    cairo_surface_destroy(surface_);
  }
  cairo_surface_t* surface_;
  cairo_t* cr_;
};

TEST_F(ReadableTicks, AShortAxisStillGetsAtLeastTwoTicks) {
  // 122 px at one tick per 45 px asks for 2 intervals: step 5 leaves only 10 in range.
  const AxisTicks ticks = readable_ticks(cr_, {6.7, 13.3}, 122, 45, false, false);
  EXPECT_EQ(ticks.step, 2);
  EXPECT_THAT(ticks.values, ElementsAre(8, 10, 12));
}

TEST_F(ReadableTicks, WideLabelsThinOutTheTicks) {
  // Labels like "-1.5e6" need about 40 px plus a 14 px gap: one per 40 px would collide.
  const AxisTicks ticks = readable_ticks(cr_, {-2e6, 2e6}, 400, 40, false, true);
  ASSERT_GE(ticks.values.size(), 2u);
  EXPECT_GE(ticks.step / 4e6 * 400, 54);
}

TEST_F(ReadableTicks, IntegerAxesNeverGetFractionalTicks) {
  const AxisTicks ticks = readable_ticks(cr_, {-0.5, 2.5}, 300, 20, true, true);
  EXPECT_THAT(ticks.values, ElementsAre(0, 1, 2));
}

}  // namespace
}  // namespace tsserve::plot
