#include "tsserve/plot/forecast_plot.h"

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
using testing::to_rgb8;

ForecastPanel sine_panel(const std::string& title, int history, int forecast) {
  ForecastPanel panel;
  panel.title = title;
  for (int t = -history; t < forecast; ++t) {
    const double value = 10 + 3 * std::sin(t / 8.0);
    (t < 0 ? panel.history : panel.forecast).push_back(value);
  }
  return panel;
}

// Pixels of a colour within the panels' rows (below the header with its legend, above
// the footer), as x positions.
std::vector<int> columns_of(const DecodedPng& png, const Rgb8& colour) {
  std::vector<int> xs;
  for (int y = kForecastHeaderPixels; y < png.height() - kForecastFooterPixels; ++y) {
    for (int x = 0; x < png.width(); ++x) {
      if (near(png.at(x, y), colour, 12)) {
        xs.push_back(x);
      }
    }
  }
  return xs;
}

// The forecast-start line: the column holding the most pixels of its grey.
int zero_line_column(const DecodedPng& png) {
  const Rgb8 grey = to_rgb8({0.45, 0.45, 0.45});
  std::vector<int> count(png.width(), 0);
  for (int x : columns_of(png, grey)) {
    ++count[x];
  }
  return static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
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

TEST(ForecastPlot, ImageHasTheDocumentedSize) {
  const std::string path = output_path("forecast_size.png");
  ForecastPlotOptions options;
  options.width = 900;
  options.panel_height = 200;
  write_forecast_png(path, {sine_panel("a", 100, 20), sine_panel("b", 100, 20)}, options);
  DecodedPng png(path);
  EXPECT_EQ(png.width(), 900);
  EXPECT_EQ(png.height(), 48 + 2 * 200 + 36);
}

TEST(ForecastPlot, ManyPanelsShrinkToStayWithin4000Pixels) {
  std::vector<ForecastPanel> panels;
  panels.reserve(21);
  for (int i = 0; i < 21; ++i) {
    panels.push_back(sine_panel("v" + std::to_string(i), 50, 10));
  }
  const ImageSize size = forecast_image_size(panels.size(), ForecastPlotOptions{});
  EXPECT_EQ(size.height, 48 + 21 * 186 + 36);  // floor((4000 - 84) / 21) = 186 < 260
  const std::string path = output_path("forecast_21_panels.png");
  write_forecast_png(path, panels, ForecastPlotOptions{});
  DecodedPng png(path);
  EXPECT_EQ(png.height(), size.height);
  EXPECT_LE(png.height(), kMaxImageSide);
}

TEST(ForecastPlot, IsNotBlank) {
  const std::string path = output_path("forecast_not_blank.png");
  ForecastPlotOptions options;
  options.title = "not blank";
  write_forecast_png(path, {sine_panel("OT", 336, 96)}, options);
  DecodedPng png(path);
  std::set<Rgb8> colours;
  int non_white = 0;
  for (int y = 0; y < png.height(); ++y) {
    for (int x = 0; x < png.width(); ++x) {
      colours.insert(png.at(x, y));
      non_white += !(png.at(x, y) == Rgb8{255, 255, 255});
    }
  }
  EXPECT_GT(colours.size(), 40u);  // lines, antialiasing, text, grid
  EXPECT_GT(non_white, png.width() * png.height() / 100);
  EXPECT_LT(non_white, png.width() * png.height() / 2);  // mostly background
}

TEST(ForecastPlot, HistoryIsLeftOfTheForecastStartAndForecastRightOfIt) {
  const std::string path = output_path("forecast_sides.png");
  write_forecast_png(path, {sine_panel("OT", 336, 96), sine_panel("HUFL", 336, 96)},
                     ForecastPlotOptions{});
  DecodedPng png(path);
  const int zero = zero_line_column(png);
  const std::vector<int> history = columns_of(png, to_rgb8(kHistoryColour));
  const std::vector<int> forecast = columns_of(png, to_rgb8(kForecastColour));
  ASSERT_GT(history.size(), 500u);
  ASSERT_GT(forecast.size(), 100u);
  // The line's end caps may reach a pixel or two past the point they end on.
  EXPECT_LT(*std::max_element(history.begin(), history.end()), zero);
  EXPECT_GT(*std::min_element(forecast.begin(), forecast.end()), zero - 2);
  // And the zero line sits where 336 of 336 + 95 steps put it on the plot area.
  const double plot_left = *std::min_element(history.begin(), history.end());
  const double plot_right = *std::max_element(forecast.begin(), forecast.end());
  EXPECT_NEAR(zero, plot_left + (plot_right - plot_left) * 336.0 / 431.0, 3);
}

// A band is a translucent fill in the forecast's colour: pixels that are neither the
// background nor a line appear right of the forecast start, between the bounds, and the
// range grows to hold the band.
TEST(ForecastPlot, BandsAreShadedRightOfTheForecastStart) {
  ForecastPanel panel = sine_panel("OT", 96, 48);
  ForecastPanel banded = panel;
  ForecastBand band{0.8, {}, {}};
  for (double v : panel.forecast) {
    band.lower.push_back(v - 4);
    band.upper.push_back(v + 4);
  }
  banded.bands.push_back(band);
  const std::string plain_path = output_path("forecast_no_band.png");
  const std::string band_path = output_path("forecast_band.png");
  write_forecast_png(plain_path, {panel}, ForecastPlotOptions{});
  write_forecast_png(band_path, {banded}, ForecastPlotOptions{});
  DecodedPng plain(plain_path), shaded(band_path);
  const int zero = zero_line_column(shaded);
  // The fill: the forecast colour at 18% over white.
  const Rgb8 fill = to_rgb8({1 - 0.18 * (1 - kForecastColour.r), 1 - 0.18 * (1 - kForecastColour.g),
                             1 - 0.18 * (1 - kForecastColour.b)});
  const std::vector<int> band_pixels = columns_of(shaded, fill);
  ASSERT_GT(band_pixels.size(), 2000u);
  EXPECT_GT(*std::min_element(band_pixels.begin(), band_pixels.end()), zero - 2);
  // Without the band that shade appears only on the forecast line's antialiased edges.
  EXPECT_GT(band_pixels.size(), 10 * columns_of(plain, fill).size());

  banded.bands[0].upper.pop_back();
  expect_throw_with<std::invalid_argument>(
      [&] { write_forecast_png(band_path, {banded}, ForecastPlotOptions{}); },
      "bands[0] has 48 lower and 47 upper points; expected the forecast's 48");
}

TEST(ForecastPlot, HistoryPointsShownKeepsTheLastPoints) {
  ForecastPlotOptions options;
  options.history_points_shown = 96;  // 96 history + 96 forecast: zero line mid-plot
  const std::string path = output_path("forecast_history_shown.png");
  write_forecast_png(path, {sine_panel("OT", 336, 97)}, options);
  DecodedPng png(path);
  const std::vector<int> history = columns_of(png, to_rgb8(kHistoryColour));
  const std::vector<int> forecast = columns_of(png, to_rgb8(kForecastColour));
  const double left = *std::min_element(history.begin(), history.end());
  const double right = *std::max_element(forecast.begin(), forecast.end());
  EXPECT_NEAR(zero_line_column(png), (left + right) / 2, 3);
}

// Columns with any blue-dominant pixel (the history line, antialiased edges included:
// grid, text and frame are neutral grey, the forecast orange).
std::vector<int> bluish_columns(const DecodedPng& png) {
  std::vector<int> xs;
  for (int y = kForecastHeaderPixels; y < png.height() - kForecastFooterPixels; ++y) {
    for (int x = 0; x < png.width(); ++x) {
      const Rgb8 c = png.at(x, y);
      if (c.b - c.r > 40) {
        xs.push_back(x);
      }
    }
  }
  return xs;
}

// Largest run of columns without the colour, between its first and last column.
int widest_gap(const std::vector<int>& xs) {
  const std::set<int> columns(xs.begin(), xs.end());
  int widest = 0;
  for (auto it = columns.begin(); std::next(it) != columns.end(); ++it) {
    widest = std::max(widest, *std::next(it) - *it - 1);
  }
  return widest;
}

TEST(ForecastPlot, NonFiniteValuesAreGapsAndALonePointIsStillDrawn) {
  ForecastPanel gappy = sine_panel("gappy", 200, 50);
  const ForecastPanel whole = gappy;
  for (int t = 80; t < 120; ++t) {
    gappy.history[t] = t % 2 ? NAN : INFINITY;
  }
  gappy.forecast[0] = -INFINITY;
  ForecastPanel lone;
  lone.title = "one finite point";
  lone.history.assign(30, NAN);
  lone.history[10] = 1.5;
  lone.forecast.assign(10, NAN);

  const std::string gappy_path = output_path("forecast_gaps.png");
  const std::string whole_path = output_path("forecast_no_gaps.png");
  const std::string lone_path = output_path("forecast_lone_point.png");
  write_forecast_png(gappy_path, {gappy}, ForecastPlotOptions{});
  write_forecast_png(whole_path, {whole}, ForecastPlotOptions{});
  write_forecast_png(lone_path, {lone}, ForecastPlotOptions{});

  const std::vector<int> with_gap = bluish_columns(DecodedPng(gappy_path));
  const std::vector<int> without = bluish_columns(DecodedPng(whole_path));
  const int span = *std::max_element(with_gap.begin(), with_gap.end()) -
                   *std::min_element(with_gap.begin(), with_gap.end());
  // 41 of 199 history steps are missing; the full line has no gap at all.
  EXPECT_NEAR(widest_gap(with_gap), span * 41.0 / 199.0, 4);
  EXPECT_EQ(widest_gap(without), 0);
  EXPECT_GT(columns_of(DecodedPng(lone_path), to_rgb8(kHistoryColour)).size(), 4u);
}

TEST(ForecastPlot, PanelWithOnlyForecastOrOnlyHistoryIsDrawn) {
  ForecastPanel only_forecast = sine_panel("forecast only", 0, 20);
  ForecastPanel only_history = sine_panel("history only", 20, 0);
  ForecastPanel single;
  single.title = "one point";
  single.forecast = {3.0};
  const std::string path = output_path("forecast_partial.png");
  write_forecast_png(path, {only_forecast, only_history, single}, ForecastPlotOptions{});
  DecodedPng png(path);
  EXPECT_FALSE(columns_of(png, to_rgb8(kForecastColour)).empty());
  EXPECT_FALSE(columns_of(png, to_rgb8(kHistoryColour)).empty());
}

TEST(ForecastPlot, BadInputThrowsNamingTheProblem) {
  const std::string path = output_path("forecast_never_written.png");
  ForecastPlotOptions options;
  expect_throw_with<std::invalid_argument>([&] { write_forecast_png(path, {}, options); },
                                           "panels is empty");
  ForecastPanel empty;
  empty.title = "OT";
  expect_throw_with<std::invalid_argument>(
      [&] {
        write_forecast_png(path, {sine_panel("a", 5, 5), empty}, options);
      },
      "panels[1] (\"OT\") has no history and no forecast points");
  options.width = 100;
  expect_throw_with<std::invalid_argument>(
      [&] { write_forecast_png(path, {sine_panel("a", 5, 5)}, options); },
      "width is 100; expected 320..4000 px");
  options = {};
  options.panel_height = 5000;
  expect_throw_with<std::invalid_argument>(
      [&] { write_forecast_png(path, {sine_panel("a", 5, 5)}, options); }, "panel_height is 5000");
  options = {};
  options.history_points_shown = -1;
  expect_throw_with<std::invalid_argument>(
      [&] { write_forecast_png(path, {sine_panel("a", 5, 5)}, options); },
      "history_points_shown is -1");
  std::vector<ForecastPanel> too_many(33, sine_panel("a", 5, 5));
  expect_throw_with<std::invalid_argument>(
      [&] { write_forecast_png(path, too_many, ForecastPlotOptions{}); },
      "33 panels do not fit in 4000 px at 120 px each; at most 32");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ForecastPlot, UnwritablePathThrowsWithTheReason) {
  expect_throw_with<std::runtime_error>(
      [] {
        write_forecast_png("/nonexistent-dir/plot.png", {sine_panel("a", 5, 5)},
                           ForecastPlotOptions{});
      },
      "cannot write plot PNG '/nonexistent-dir/plot.png': No such file or directory");
}

}  // namespace
}  // namespace tsserve::plot
