#include "tsserve/plot/heatmap_plot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "decoded_png.h"

namespace tsserve::plot {
namespace {

using testing::DecodedPng;
using ::testing::HasSubstr;
using testing::near;
using testing::output_path;
using testing::Rgb8;

// Values in [0, 1) that vary smoothly, without a maximum anywhere in particular.
HeatmapPanel smooth_panel(const std::string& title, int rows, int cols) {
  HeatmapPanel panel{title, rows, cols, {}};
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      panel.values.push_back(
          static_cast<float>(0.5 + 0.45 * std::sin(r * 0.3) * std::cos(c * 0.2)));
    }
  }
  return panel;
}

float& at(HeatmapPanel& panel, int r, int c) {
  return panel.values[static_cast<size_t>(r) * panel.cols + c];
}

Rgb8 cell_centre(const DecodedPng& png, const HeatmapLayout& layout, size_t panel, int r, int c) {
  const int half = layout.cell_pixels / 2;
  return png.at(layout.heatmap_origins[panel].x + c * layout.cell_pixels + half,
                layout.heatmap_origins[panel].y + r * layout.cell_pixels + half);
}

template <typename Exception>
void expect_throw_with(const std::function<void()>& call, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one saying \"" << text << "\"";
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(HeatmapLayout, BundledModelGridHasTheDocumentedSize) {
  // 3 layers x 7 variables of 42 x 42 patches, auto everything, no title:
  // cell round(240 / 42) = 6; columns ceil(sqrt(21)) = 5, 5 grid rows;
  // slot max(200, 72 + 252 + 24) = 348 x (30 + 252 + 50) = 332.
  std::vector<HeatmapPanel> panels(21, smooth_panel("p", 42, 42));
  const HeatmapLayout layout = heatmap_layout(panels, HeatmapOptions{});
  EXPECT_EQ(layout.cell_pixels, 6);
  EXPECT_EQ(layout.columns, 5);
  EXPECT_EQ(layout.grid_rows, 5);
  EXPECT_EQ(layout.image.width, 16 + 5 * 348 + 128);
  EXPECT_EQ(layout.image.height, 16 + 5 * 332 + 16);

  const std::string path = output_path("heatmap_21_panels.png");
  write_heatmap_png(path, panels, HeatmapOptions{});
  DecodedPng png(path);
  EXPECT_EQ(png.width(), 1884);
  EXPECT_EQ(png.height(), 1692);
}

TEST(HeatmapLayout, PerHeadGridShrinksCellsToFit4000Pixels) {
  // 84 heatmaps (3 layers x 7 variables x 4 heads) in 4 columns: 21 grid rows need
  // 21 * (80 + 42 * cell) + 48 + 16 <= 4000, so cell = 2; slot width max(200, 180) = 200.
  std::vector<HeatmapPanel> panels(84, smooth_panel("p", 42, 42));
  HeatmapOptions options;
  options.columns = 4;
  options.title = "per head";
  const HeatmapLayout layout = heatmap_layout(panels, options);
  EXPECT_EQ(layout.cell_pixels, 2);
  EXPECT_EQ(layout.image.width, 16 + 4 * 200 + 128);
  EXPECT_EQ(layout.image.height, 48 + 21 * (30 + 84 + 50) + 16);
}

TEST(HeatmapLayout, SmallGridKeepsRoomForTheColourBar) {
  HeatmapOptions options;
  options.cell_pixels = 10;
  const HeatmapLayout layout = heatmap_layout({smooth_panel("p", 3, 4)}, options);
  EXPECT_EQ(layout.image.width, 16 + 200 + 128);
  EXPECT_EQ(layout.image.height, 16 + 260 + 16);  // 30 + 30 + 50 < 260
}

TEST(HeatmapPlot, HottestCellHasTheTopColourAndColdestTheBottomColour) {
  HeatmapPanel panel = smooth_panel("one hot cell", 42, 42);
  at(panel, 17, 29) = 2.0f;
  at(panel, 3, 5) = -1.0f;
  const std::string path = output_path("heatmap_hot_cell.png");
  write_heatmap_png(path, {panel}, HeatmapOptions{});
  DecodedPng png(path);
  const HeatmapLayout layout = heatmap_layout({panel}, HeatmapOptions{});
  // matplotlib's viridis ends: #fde725 (0.993248, 0.906157, 0.143936) and #440154.
  EXPECT_TRUE(near(cell_centre(png, layout, 0, 17, 29), Rgb8{253, 231, 37}));
  EXPECT_TRUE(near(cell_centre(png, layout, 0, 3, 5), Rgb8{68, 1, 84}));
  // Every other cell is strictly in between: neither end colour.
  for (int r = 0; r < 42; ++r) {
    for (int c = 0; c < 42; ++c) {
      if ((r == 17 && c == 29) || (r == 3 && c == 5)) {
        continue;
      }
      const Rgb8 colour = cell_centre(png, layout, 0, r, c);
      ASSERT_FALSE(near(colour, Rgb8{253, 231, 37}, 0)) << r << "," << c;
      ASSERT_FALSE(near(colour, Rgb8{68, 1, 84}, 0)) << r << "," << c;
    }
  }
}

TEST(HeatmapPlot, PanelsShareOneColourScale) {
  HeatmapPanel low{"low", 2, 2, {0.0f, 0.25f, 0.25f, 0.5f}};
  HeatmapPanel high{"high", 2, 2, {0.5f, 0.5f, 0.5f, 1.0f}};
  HeatmapOptions options;
  options.cell_pixels = 20;
  const std::string path = output_path("heatmap_shared_scale.png");
  write_heatmap_png(path, {low, high}, options);
  DecodedPng png(path);
  const HeatmapLayout layout = heatmap_layout({low, high}, options);
  // 0.5 is mid-scale in both panels: viridis(0.5), between matplotlib's entries 127
  // (0.128729, 0.563265, 0.551229) and 128 (0.127568, 0.566949, 0.550556).
  const Rgb8 middle{33, 144, 140};
  EXPECT_TRUE(near(cell_centre(png, layout, 0, 1, 1), middle));
  EXPECT_TRUE(near(cell_centre(png, layout, 1, 0, 0), middle));
  EXPECT_TRUE(near(cell_centre(png, layout, 1, 1, 1), Rgb8{253, 231, 37}));
  EXPECT_TRUE(near(cell_centre(png, layout, 0, 0, 0), Rgb8{68, 1, 84}));
}

TEST(HeatmapPlot, NonFiniteCellsAreLeftBlank) {
  HeatmapPanel panel = smooth_panel("gaps", 10, 10);
  at(panel, 4, 4) = NAN;
  at(panel, 5, 6) = INFINITY;
  at(panel, 0, 0) = -INFINITY;
  const std::string path = output_path("heatmap_gaps.png");
  write_heatmap_png(path, {panel}, HeatmapOptions{});
  DecodedPng png(path);
  const HeatmapLayout layout = heatmap_layout({panel}, HeatmapOptions{});
  const Rgb8 white{255, 255, 255};
  EXPECT_EQ(cell_centre(png, layout, 0, 4, 4), white);
  EXPECT_EQ(cell_centre(png, layout, 0, 5, 6), white);
  EXPECT_EQ(cell_centre(png, layout, 0, 0, 0), white);
  EXPECT_FALSE(cell_centre(png, layout, 0, 4, 5) == white);
}

TEST(HeatmapPlot, ConstantAndAllNonFiniteMatricesAreDrawn) {
  HeatmapPanel constant{"uniform attention", 4, 4, std::vector<float>(16, 0.25f)};
  HeatmapPanel nothing{"all NaN", 4, 4, std::vector<float>(16, NAN)};
  const std::string path = output_path("heatmap_degenerate.png");
  write_heatmap_png(path, {constant}, HeatmapOptions{});
  write_heatmap_png(output_path("heatmap_all_nan.png"), {nothing}, HeatmapOptions{});
  DecodedPng png(path);
  const HeatmapLayout layout = heatmap_layout({constant}, HeatmapOptions{});
  EXPECT_TRUE(near(cell_centre(png, layout, 0, 2, 2), Rgb8{33, 144, 140}));  // mid-scale
}

TEST(HeatmapPlot, IsNotBlankAndHasAColourBar) {
  const std::string path = output_path("heatmap_not_blank.png");
  HeatmapOptions options;
  options.title = "attention";
  write_heatmap_png(path, {smooth_panel("a", 42, 42), smooth_panel("b", 42, 42)}, options);
  DecodedPng png(path);
  std::set<Rgb8> colours;
  for (int y = 0; y < png.height(); ++y) {
    for (int x = 0; x < png.width(); ++x) {
      colours.insert(png.at(x, y));
    }
  }
  EXPECT_GT(colours.size(), 200u);
  // The colour bar (right of the last grid column) runs from yellow at the top to dark
  // purple at the bottom.
  const HeatmapLayout layout =
      heatmap_layout({smooth_panel("a", 42, 42), smooth_panel("b", 42, 42)}, options);
  const int bar_x = layout.image.width - 128 + 16 + 9;
  int yellow_y = -1;
  int purple_y = -1;
  for (int y = 0; y < png.height(); ++y) {
    if (yellow_y < 0 && near(png.at(bar_x, y), Rgb8{253, 231, 37}, 3)) {
      yellow_y = y;
    }
    if (near(png.at(bar_x, y), Rgb8{68, 1, 84}, 3)) {
      purple_y = y;
    }
  }
  ASSERT_GE(yellow_y, 0);
  EXPECT_GT(purple_y, yellow_y + 150);
}

TEST(HeatmapPlot, BadInputThrowsNamingTheProblem) {
  const std::string path = output_path("heatmap_never_written.png");
  expect_throw_with<std::invalid_argument>([&] { write_heatmap_png(path, {}, HeatmapOptions{}); },
                                           "panels is empty");
  HeatmapPanel short_values{"OT", 6, 7, std::vector<float>(41, 0.f)};
  expect_throw_with<std::invalid_argument>(
      [&] {
        write_heatmap_png(path, {smooth_panel("a", 6, 7), short_values}, HeatmapOptions{});
      },
      "panels[1] (\"OT\"): values has 41 entries; rows x cols = 6 x 7 needs 42");
  HeatmapPanel no_rows{"empty", 0, 7, {}};
  expect_throw_with<std::invalid_argument>(
      [&] { write_heatmap_png(path, {no_rows}, HeatmapOptions{}); },
      "panels[0] (\"empty\"): rows is 0; expected 1..4000");
  HeatmapOptions options;
  options.cell_pixels = -2;
  expect_throw_with<std::invalid_argument>(
      [&] { write_heatmap_png(path, {smooth_panel("a", 4, 4)}, options); },
      "cell_pixels is -2; expected 1..64, or 0 for auto");
  options = {};
  options.columns = -1;
  expect_throw_with<std::invalid_argument>(
      [&] { write_heatmap_png(path, {smooth_panel("a", 4, 4)}, options); }, "columns is -1");
  options = {};
  options.cell_pixels = 30;
  options.columns = 7;
  std::vector<HeatmapPanel> seven(7, smooth_panel("a", 42, 42));
  // 16 + 7 * (72 + 1260 + 24) + 128 = 9636 px wide.
  expect_throw_with<std::invalid_argument>([&] { write_heatmap_png(path, seven, options); },
                                           "cell_pixels 30 makes the image 9636 x");
  std::vector<HeatmapPanel> huge(2, smooth_panel("a", 3000, 3000));
  expect_throw_with<std::invalid_argument>(
      [&] { write_heatmap_png(path, huge, HeatmapOptions{}); },
      "2 panels of up to 3000 x 3000 cells in 2 columns do not fit in 4000 x 4000 px");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(HeatmapPlot, UnwritablePathThrowsWithTheReason) {
  expect_throw_with<std::runtime_error>(
      [] {
        write_heatmap_png("/nonexistent-dir/a.png", {smooth_panel("a", 4, 4)}, HeatmapOptions{});
      },
      "cannot write plot PNG '/nonexistent-dir/a.png': No such file or directory");
}

TEST(HeatmapLayout, TokenLabelsWidenTheSlotByTheirLongestLabel) {
  // 11 tokens named as an iTransformer's (longest "DayOfMonth", 10 characters): cell
  // round(240 / 11) = 22; left 72 + 7 * 10 = 142, bottom 50 + 70 = 120;
  // slot max(200, 142 + 242 + 24) = 408 x (30 + 242 + 120) = 392.
  const std::vector<std::string> names = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL",
                                          "OT", "HourOfDay", "DayOfWeek", "DayOfMonth", "DayOfYear"};
  HeatmapPanel panel = smooth_panel("layer 0", 11, 11);
  panel.row_labels = panel.col_labels = names;
  const HeatmapLayout layout = heatmap_layout({panel}, HeatmapOptions{});
  EXPECT_EQ(layout.cell_pixels, 22);
  EXPECT_EQ(layout.slot_left, 142);
  EXPECT_EQ(layout.slot_bottom, 120);
  EXPECT_EQ(layout.slot_width, 408);
  EXPECT_EQ(layout.slot_height, 392);
  EXPECT_EQ(layout.heatmap_origins.at(0).x, 16 + 142);
  const std::string path = output_path("heatmap_token_labels.png");
  write_heatmap_png(path, {panel}, HeatmapOptions{});
  const testing::DecodedPng png(path);
  EXPECT_EQ(png.width(), layout.image.width);
  EXPECT_EQ(png.height(), layout.image.height);

  panel.col_labels.pop_back();
  expect_throw_with<std::invalid_argument>(
      [&] { heatmap_layout({panel}, HeatmapOptions{}); },
      "panels[0] (\"layer 0\"): col_labels has 10 entries; expected none or 11");
}

}  // namespace
}  // namespace tsserve::plot
