// Realistic pictures to look at (written under the test's binary dir, images/): an
// ETTh1-like forecast of 7 variables and the bundled model's attention shape (3 layers,
// 42 patches). The data are synthetic but shaped like the real thing: daily cycles with
// noise, and attention that favours nearby and same-phase patches.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "decoded_png.h"
#include "tsserve/plot/forecast_plot.h"
#include "tsserve/plot/heatmap_plot.h"

namespace tsserve::plot {
namespace {

using testing::DecodedPng;
using testing::output_path;
using testing::Rgb8;

size_t distinct_colours(const DecodedPng& png) {
  std::set<Rgb8> colours;
  for (int y = 0; y < png.height(); y += 2) {
    for (int x = 0; x < png.width(); x += 2) {
      colours.insert(png.at(x, y));
    }
  }
  return colours.size();
}

std::vector<ForecastPanel> etth1_like_panels() {
  const std::vector<std::pair<std::string, double>> variables = {
      {"HUFL", 8},   {"HULL", 2.5}, {"MUFL", 5}, {"MULL", 1.2},
      {"LUFL", 3.3}, {"LULL", 1.1}, {"OT", 14}};
  std::mt19937 random(7);
  std::normal_distribution<double> noise(0, 1);
  std::vector<ForecastPanel> panels;
  for (size_t v = 0; v < variables.size(); ++v) {
    ForecastPanel panel;
    panel.title = variables[v].first;
    const double level = variables[v].second;
    for (int t = -336; t < 96; ++t) {
      const double daily = std::sin(2 * M_PI * t / 24.0 + 0.4 * v);
      const double trend = 0.002 * t * level;
      if (t < 0) {
        panel.history.push_back(level + 0.35 * level * daily + trend +
                                0.08 * level * noise(random));
      } else {
        panel.forecast.push_back(level + 0.3 * level * daily + trend);
      }
    }
    panels.push_back(panel);
  }
  return panels;
}

TEST(SampleImages, ForecastOfSevenVariables) {
  ForecastPlotOptions options;
  options.title = "patchtst-etth1: forecast of the last 336 hours, 96 ahead";
  const std::string path = output_path("sample_forecast.png");
  write_forecast_png(path, etth1_like_panels(), options);
  DecodedPng png(path);
  EXPECT_EQ(png.width(), 1200);
  EXPECT_EQ(png.height(), 48 + 7 * 260 + 36);
  EXPECT_GT(distinct_colours(png), 50u);
}

std::vector<float> attention_like(int patches, int layer, int variable) {
  std::vector<float> values(static_cast<size_t>(patches) * patches);
  for (int q = 0; q < patches; ++q) {
    double sum = 0;
    for (int k = 0; k < patches; ++k) {
      const double near = -std::abs(q - k) / (2.0 + layer);
      const double same_phase = std::cos(2 * M_PI * (q - k) / 3.0) * (0.8 + 0.1 * variable);
      const double recent = 0.04 * k * layer;
      const double score = std::exp(near + same_phase + recent);
      values[static_cast<size_t>(q) * patches + k] = static_cast<float>(score);
      sum += score;
    }
    for (int k = 0; k < patches; ++k) {
      values[static_cast<size_t>(q) * patches + k] /= static_cast<float>(sum);
    }
  }
  return values;
}

TEST(SampleImages, AttentionOfThreeLayersBySevenVariables) {
  const char* names[] = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
  std::vector<HeatmapPanel> panels;
  for (int layer = 0; layer < 3; ++layer) {
    for (int v = 0; v < 7; ++v) {
      panels.push_back({"layer " + std::to_string(layer) + ", variable " + std::to_string(v) +
                            " (" + names[v] + "), heads averaged",
                        42, 42, attention_like(42, layer, v)});
    }
  }
  HeatmapOptions options;
  options.title = "patchtst-etth1: attention per layer and variable (heads averaged)";
  options.columns = 7;
  const std::string path = output_path("sample_attention.png");
  write_heatmap_png(path, panels, options);
  DecodedPng png(path);
  const HeatmapLayout layout = heatmap_layout(panels, options);
  EXPECT_EQ(png.width(), layout.image.width);
  EXPECT_EQ(png.height(), layout.image.height);
  EXPECT_GT(distinct_colours(png), 100u);
}

TEST(SampleImages, AttentionPerHead) {
  std::vector<HeatmapPanel> panels;
  panels.reserve(4);
  for (int head = 0; head < 4; ++head) {
    panels.push_back({"layer 2, variable 6 (OT), head " + std::to_string(head), 42, 42,
                      attention_like(42, head, 6 - head)});
  }
  HeatmapOptions options;
  options.title = "patchtst-etth1: attention of layer 2, variable 6 (OT), per head";
  options.columns = 4;
  const std::string path = output_path("sample_attention_heads.png");
  write_heatmap_png(path, panels, options);
  DecodedPng png(path);
  EXPECT_GT(distinct_colours(png), 100u);
}

}  // namespace
}  // namespace tsserve::plot
