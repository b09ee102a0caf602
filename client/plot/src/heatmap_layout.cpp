#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "heatmap_metrics.h"
#include "tsserve/plot/heatmap_plot.h"

namespace tsserve::plot {
namespace {

std::string panel_name(size_t index, const std::string& title) {
  return "panels[" + std::to_string(index) + "] (\"" + title + "\")";
}

void validate(const std::vector<HeatmapPanel>& panels, const HeatmapOptions& options) {
  const std::string where = "heatmap plot: ";
  if (panels.empty()) {
    throw std::invalid_argument(where + "panels is empty; expected at least one");
  }
  if (panels.size() > kMaxHeatmapPanels) {
    throw std::invalid_argument(where + std::to_string(panels.size()) + " panels; at most " +
                                std::to_string(kMaxHeatmapPanels) + " fit in " +
                                std::to_string(kMaxImageSide) + " x " +
                                std::to_string(kMaxImageSide) + " px");
  }
  if (options.cell_pixels < 0 || options.cell_pixels > kMaxCellPixels) {
    throw std::invalid_argument(where + "cell_pixels is " + std::to_string(options.cell_pixels) +
                                "; expected 1.." + std::to_string(kMaxCellPixels) +
                                ", or 0 for auto");
  }
  if (options.columns < 0) {
    throw std::invalid_argument(where + "columns is " + std::to_string(options.columns) +
                                "; expected a positive count, or 0 for auto");
  }
  for (size_t i = 0; i < panels.size(); ++i) {
    const HeatmapPanel& p = panels[i];
    for (const auto& [field, value] : {std::pair{"rows", p.rows}, std::pair{"cols", p.cols}}) {
      if (value < 1 || value > kMaxImageSide) {
        throw std::invalid_argument(where + panel_name(i, p.title) + ": " + field + " is " +
                                    std::to_string(value) + "; expected 1.." +
                                    std::to_string(kMaxImageSide));
      }
    }
    for (const auto& [field, labels, count] :
         {std::tuple{"row_labels", &p.row_labels, p.rows},
          std::tuple{"col_labels", &p.col_labels, p.cols}}) {
      if (!labels->empty() && labels->size() != static_cast<size_t>(count)) {
        throw std::invalid_argument(where + panel_name(i, p.title) + ": " + field + " has " +
                                    std::to_string(labels->size()) + " entries; expected none or " +
                                    std::to_string(count));
      }
    }
    const size_t cells = static_cast<size_t>(p.rows) * static_cast<size_t>(p.cols);
    if (p.values.size() != cells) {
      throw std::invalid_argument(where + panel_name(i, p.title) + ": values has " +
                                  std::to_string(p.values.size()) +
                                  " entries; rows x cols = " + std::to_string(p.rows) + " x " +
                                  std::to_string(p.cols) + " needs " + std::to_string(cells));
    }
  }
}

// The widest label's band in px (label_band in heatmap_plot.h); 0 without labels.
int label_band(const std::vector<HeatmapPanel>& panels,
               const std::vector<std::string> HeatmapPanel::*labels) {
  size_t longest = 0;
  for (const HeatmapPanel& p : panels) {
    for (const std::string& label : p.*labels) longest = std::max(longest, label.size());
  }
  return static_cast<int>(std::min<size_t>(longest, 64)) * kLabelCharPixels;
}

struct Bands {
  int left = kSlotLeft;
  int bottom = kSlotBottom;
};

HeatmapLayout layout_for_cell(int cell, int max_rows, int max_cols, size_t panel_count, int columns,
                              bool titled, Bands bands) {
  HeatmapLayout layout;
  layout.cell_pixels = cell;
  layout.columns = columns;
  layout.grid_rows = static_cast<int>((panel_count + columns - 1) / columns);
  layout.slot_left = bands.left;
  layout.slot_bottom = bands.bottom;
  layout.slot_width = std::max(kMinSlotWidth, bands.left + max_cols * cell + kSlotRight);
  layout.slot_height = kSlotTitle + max_rows * cell + bands.bottom;
  layout.header_height = titled ? kTitledHeader : kUntitledHeader;
  layout.image.width = kOuterMargin + columns * layout.slot_width + kColourBarBand;
  layout.image.height = layout.header_height +
                        std::max(layout.grid_rows * layout.slot_height, kMinGridHeight) +
                        kOuterMargin;
  for (size_t i = 0; i < panel_count; ++i) {
    const int grid_x = static_cast<int>(i) % columns;
    const int grid_y = static_cast<int>(i) / columns;
    layout.heatmap_origins.push_back(
        {kOuterMargin + grid_x * layout.slot_width + bands.left,
         layout.header_height + grid_y * layout.slot_height + kSlotTitle});
  }
  return layout;
}

bool fits(const HeatmapLayout& layout) {
  return layout.image.width <= kMaxImageSide && layout.image.height <= kMaxImageSide;
}

}  // namespace

HeatmapLayout heatmap_layout(const std::vector<HeatmapPanel>& panels,
                             const HeatmapOptions& options) {
  validate(panels, options);
  int max_rows = 0;
  int max_cols = 0;
  for (const HeatmapPanel& p : panels) {
    max_rows = std::max(max_rows, p.rows);
    max_cols = std::max(max_cols, p.cols);
  }
  const size_t n = panels.size();
  int columns = options.columns;
  if (columns == 0) {
    columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  }
  columns = static_cast<int>(std::min<size_t>(static_cast<size_t>(columns), n));
  const bool titled = !options.title.empty();
  const Bands bands{kSlotLeft + label_band(panels, &HeatmapPanel::row_labels),
                    kSlotBottom + label_band(panels, &HeatmapPanel::col_labels)};

  if (options.cell_pixels > 0) {
    HeatmapLayout layout =
        layout_for_cell(options.cell_pixels, max_rows, max_cols, n, columns, titled, bands);
    if (!fits(layout)) {
      throw std::invalid_argument(
          "heatmap plot: cell_pixels " + std::to_string(options.cell_pixels) + " makes the image " +
          std::to_string(layout.image.width) + " x " + std::to_string(layout.image.height) +
          " px; the limit is " + std::to_string(kMaxImageSide) +
          " px per side (use a smaller cell_pixels, or 0 for auto)");
    }
    return layout;
  }
  const int largest = std::max(max_rows, max_cols);
  int cell = std::clamp(static_cast<int>(std::lround(kAutoHeatmapSide / largest)), 2, 24);
  for (; cell >= 1; --cell) {
    HeatmapLayout layout = layout_for_cell(cell, max_rows, max_cols, n, columns, titled, bands);
    if (fits(layout)) {
      return layout;
    }
  }
  throw std::invalid_argument("heatmap plot: " + std::to_string(n) + " panels of up to " +
                              std::to_string(max_rows) + " x " + std::to_string(max_cols) +
                              " cells in " + std::to_string(columns) + " columns do not fit in " +
                              std::to_string(kMaxImageSide) + " x " +
                              std::to_string(kMaxImageSide) + " px even at 1 px per cell");
}

}  // namespace tsserve::plot
