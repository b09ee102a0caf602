#pragma once
// Named values as horizontal bars, one panel each, on one shared scale: a TimeXer's
// "covariates" maps, one panel per layer, how much the target listened to each covariate.
//
//   +--------------------------------------------------------+
//   | title                                                  |  header: 48 px (16 without)
//   |  layer 0, OT                  layer 1, OT              |
//   |   HUFL |#########             HUFL |#####              |  a bar per label, in the
//   |   LULL |####                  LULL |##########         |  order given: 22 px each
//   |        0    0.2   0.4              0    0.2   0.4      |
//   |          attention weight            attention weight  |
//   +--------------------------------------------------------+
//
// A bar's length is its value over the largest of every panel (the scale starts at 0);
// non-finite or negative values draw no bar.

#include <string>
#include <vector>

#include "tsserve/plot/image_size.h"

namespace tsserve::plot {

struct BarPanel {
  std::string title;                // e.g. "layer 0, OT"
  std::vector<std::string> labels;  // one per bar, drawn left of it
  std::vector<float> values;        // one per label
};

struct BarOptions {
  int columns = 0;    // panels per grid row; 0 = auto: min(panels, 2)
  std::string title;  // above the grid; may be empty
  std::string value_label = "attention weight";
};

// Where everything goes, computed without drawing. With n panels, B the most bars of a
// panel and W the longest label's width (7 px a character):
//   columns = options.columns (at most n), or min(n, 2); grid_rows = ceil(n / columns)
//   slot    = (W + 16 + 240 + 24) x (30 + B * 22 + 46)
//   width   = 16 + columns * slot_width + 16; height = header + grid_rows * slot_height + 16
struct BarLayout {
  ImageSize image;
  int columns = 0;
  int grid_rows = 0;
  int slot_width = 0;
  int slot_height = 0;
  int header_height = 0;
  int label_band = 0;  // from a slot's left edge to where its bars start
  struct Origin {
    int x = 0;  // where bars start (value 0)
    int y = 0;  // the top of the first bar
  };
  std::vector<Origin> bar_origins;  // one per panel
};

inline constexpr int kBarPixels = 22;         // one bar's row
inline constexpr int kBarLengthPixels = 240;  // the longest bar

// Throws std::invalid_argument naming the field (and the panel, by index and title): no
// panels, a panel without bars, labels and values of different sizes, columns < 0.
BarLayout bar_layout(const std::vector<BarPanel>& panels, const BarOptions& options);

// Draws the panels to a PNG file. Throws as bar_layout, and std::runtime_error when the
// file cannot be written.
void write_bar_png(const std::string& path, const std::vector<BarPanel>& panels,
                   const BarOptions& options);

}  // namespace tsserve::plot
