#pragma once
// Attention maps (or any matrices) as a PNG: a grid of heatmaps sharing one colour
// scale, with a colour bar on the right.
//
//   +-------------------------------------------------------------+
//   | title                                                       |  header: 48 px
//   |      layer 0, OT        layer 1, OT        layer 2, OT      |  (16 without title)
//   | q  0 +----------+    0 +----------+    0 +----------+  [] 0.12
//   | u    |  viridis |      |          |      |          |  []     colour bar
//   | e 40 +----------+   40 +----------+   40 +----------+  [] 0
//   |      0    20   40      0    20   40      0    20   40      |
//   |        key patch          key patch          key patch      |
//   +-------------------------------------------------------------+
//
// Row r of a matrix is drawn r cells below the top (query patch 0 at the top), column c
// c cells right of the left edge. Colours run over viridis from the smallest finite
// value over all panels (dark purple) to the largest (yellow). Non-finite cells are left
// blank (white).

#include <string>
#include <vector>

#include "tsserve/plot/image_size.h"

namespace tsserve::plot {

struct HeatmapPanel {
  std::string title;          // e.g. "layer 0, variable 2 (OT), heads averaged"
  int rows = 0;               // query patches
  int cols = 0;               // key patches
  std::vector<float> values;  // row-major, rows * cols
  // Optional names of the rows (queries) and columns (keys), drawn as tick labels in place
  // of indices: empty, or one per row / column ("HUFL", "HourOfDay", "-336..-321").
  // Row labels sit left of the cells, column labels below them reading upwards; where a
  // cell is smaller than a label's height only every k-th label is drawn.
  std::vector<std::string> row_labels{};
  std::vector<std::string> col_labels{};
};

struct HeatmapOptions {
  int cell_pixels = 0;  // side of one cell in px, 1..64; 0 = auto
  int columns = 0;      // heatmaps per grid row; 0 = auto
  std::string title;    // above the grid; may be empty
  std::string x_label = "key patch";
  std::string y_label = "query patch";
  std::string value_label = "attention weight";  // beside the colour bar
};

// Where everything goes, computed without drawing. With R, C the largest rows and cols
// over the panels and n the panel count:
//   cell    = options.cell_pixels, or auto: clamp(round(240 / max(R, C)), 2, 24), then
//             made smaller (down to 1) until the image fits kMaxImageSide
//   columns = options.columns (at most n), or auto: ceil(sqrt(n)); grid_rows = ceil(n / columns)
//   slot    = max(200, left + C * cell + 24) x (30 + R * cell + bottom)   (one heatmap
//             with its title, tick labels and axis labels), where left = 72 and bottom = 50,
//             each plus label_band(the longest row / column label) when panels have labels:
//             label_band(n characters) = 7 * n px (12 px tick font)
//   width   = 16 + columns * slot_width + 128 (colour bar)
//   height  = header + max(grid_rows * slot_height, 260) + 16, header = 48 (16 without title)
struct HeatmapLayout {
  ImageSize image;
  int cell_pixels = 0;
  int columns = 0;
  int grid_rows = 0;
  int slot_width = 0;
  int slot_height = 0;
  int header_height = 0;
  int slot_left = 0;    // from the slot's left edge to the cells
  int slot_bottom = 0;  // from the cells to the slot's bottom edge
  // The image pixel at the top-left corner of panel i's cell (0, 0); cell (r, c) covers
  // [x + c * cell, x + (c + 1) * cell) x [y + r * cell, y + (r + 1) * cell).
  struct Origin {
    int x = 0;
    int y = 0;
  };
  std::vector<Origin> heatmap_origins;
};

// Throws std::invalid_argument naming the field (and the panel, by index and title):
// no panels, rows or cols < 1, values.size() != rows * cols, row_labels or col_labels
// neither empty nor one per row / column, options out of range, or
// an image over kMaxImageSide (an explicit cell_pixels too large, or too many panels
// even at 1 px per cell).
HeatmapLayout heatmap_layout(const std::vector<HeatmapPanel>& panels,
                             const HeatmapOptions& options);

// Draws the heatmaps and writes the PNG to path (overwritten). Throws as heatmap_layout,
// and std::runtime_error when the file cannot be written, with the OS's reason.
void write_heatmap_png(const std::string& path, const std::vector<HeatmapPanel>& panels,
                       const HeatmapOptions& options);

}  // namespace tsserve::plot
