#include "tsserve/plot/bar_plot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "decoded_png.h"

namespace tsserve::plot {
namespace {

using testing::DecodedPng;
using ::testing::HasSubstr;
using testing::near;
using testing::output_path;
using testing::Rgb8;

// A TimeXer's two layers of "covariates" weights over 10 covariates, ranked.
std::vector<BarPanel> covariate_panels() {
  const std::vector<std::string> names = {"HUFL",       "HULL",     "MUFL",      "MULL",
                                          "LUFL",       "LULL",     "HourOfDay", "DayOfWeek",
                                          "DayOfMonth", "DayOfYear"};
  std::vector<BarPanel> panels;
  for (int layer = 0; layer < 2; ++layer) {
    BarPanel panel{"layer " + std::to_string(layer) + ", OT", names, {}};
    for (int k = 0; k < 10; ++k) panel.values.push_back(0.3f / static_cast<float>(k + 1 + layer));
    panels.push_back(panel);
  }
  return panels;
}

TEST(BarLayout, TwoLayersOfTenCovariatesHaveTheDocumentedSize) {
  // Longest label "DayOfMonth" (10 characters): band 70 + 16 = 86; slot 86 + 240 + 24 = 350
  // x (30 + 220 + 46) = 296; 2 columns, 1 grid row; 16 + 700 + 16 = 732 x 48 + 296 + 16.
  const BarLayout layout = bar_layout(covariate_panels(), BarOptions{0, "title", "weight"});
  EXPECT_EQ(layout.label_band, 86);
  EXPECT_EQ(layout.slot_width, 350);
  EXPECT_EQ(layout.slot_height, 296);
  EXPECT_EQ(layout.columns, 2);
  EXPECT_EQ(layout.grid_rows, 1);
  EXPECT_EQ(layout.image.width, 732);
  EXPECT_EQ(layout.image.height, 360);
  EXPECT_EQ(layout.bar_origins[1].x, 16 + 350 + 86);
  EXPECT_EQ(layout.bar_origins[1].y, 48 + 30);
}

// Each bar's length is its value over the largest of all panels: the first panel's first
// bar (0.3) spans kBarLengthPixels, its second (0.15) half of it; a bar's row past its end
// is background.
TEST(BarPlot, BarLengthsAreTheValuesOnOneSharedScale) {
  const std::vector<BarPanel> panels = covariate_panels();
  const BarLayout layout = bar_layout(panels, BarOptions{});
  const std::string path = output_path("covariate_bars.png");
  write_bar_png(path, panels, BarOptions{});
  const DecodedPng png(path);
  const Rgb8 white{255, 255, 255};
  const BarLayout::Origin first = layout.bar_origins[0];
  const int middle = first.y + kBarPixels / 2;
  EXPECT_FALSE(near(png.at(first.x + kBarLengthPixels - 3, middle), white));
  EXPECT_TRUE(near(png.at(first.x + kBarLengthPixels + 3, middle), white));
  const int second = middle + kBarPixels;
  EXPECT_FALSE(near(png.at(first.x + kBarLengthPixels / 2 - 3, second), white));
  EXPECT_TRUE(near(png.at(first.x + kBarLengthPixels / 2 + 3, second), white));
  // The second panel's first bar is 0.3 / 2 of the shared scale.
  const BarLayout::Origin other = layout.bar_origins[1];
  EXPECT_TRUE(near(png.at(other.x + kBarLengthPixels / 2 + 3, other.y + kBarPixels / 2), white));
}

TEST(BarPlot, RefusesWhatItCannotDrawNamingTheField) {
  std::vector<BarPanel> panels = covariate_panels();
  panels[1].labels.pop_back();
  try {
    bar_layout(panels, BarOptions{});
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("panels[1] (\"layer 1, OT\"): 9 labels for 10 values"));
  }
  EXPECT_THROW(bar_layout({}, BarOptions{}), std::invalid_argument);
  EXPECT_THROW(bar_layout(covariate_panels(), BarOptions{-1, "", ""}), std::invalid_argument);
}

}  // namespace
}  // namespace tsserve::plot
