#include "tsserve/plot/heatmap_plot.h"

#include <algorithm>
#include <cmath>

#include "heatmap_metrics.h"
#include "label_drawing.h"
#include "plot_frame.h"
#include "png_canvas.h"
#include "tsserve/plot/colormap.h"

namespace tsserve::plot {
namespace {

constexpr double kTickLength = 4;
constexpr double kTickGap = 3;
constexpr int kColourBarWidth = 18;
constexpr int kColourBarLeftGap = 16;

const Font kTickFont{style::kTickLabelSize, false, style::kTickText};
const Font kAxisFont{style::kAxisLabelSize, false, style::kText};

// The shared colour scale: smallest to largest finite value over every panel.
Range colour_scale(const std::vector<HeatmapPanel>& panels) {
  float lo = INFINITY;
  float hi = -INFINITY;
  for (const HeatmapPanel& p : panels) {
    for (float v : p.values) {
      if (!std::isfinite(v)) {
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(lo <= hi)) {
    return {0, 1};  // nothing finite: every cell is blank anyway
  }
  return padded(lo, hi, 0);  // a constant matrix gets a span around its value
}

// Ticks at patch indices, centred on their cells; a single index has just its tick.
AxisTicks index_ticks(cairo_t* cr, int count, int cell, double pixels_per_tick, bool horizontal) {
  if (count == 1) {
    return {1, {0}};
  }
  return readable_ticks(cr, {-0.5, count - 0.5}, static_cast<double>(count) * cell, pixels_per_tick,
                        /*integer_only=*/true, horizontal);
}

void draw_cells(cairo_t* cr, const HeatmapPanel& panel, HeatmapLayout::Origin origin, int cell,
                Range scale) {
  cairo_save(cr);
  // Whole-pixel cells without antialiasing: each cell is one flat colour, edge to edge.
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
  for (int r = 0; r < panel.rows; ++r) {
    for (int c = 0; c < panel.cols; ++c) {
      const float v = panel.values[static_cast<size_t>(r) * panel.cols + c];
      if (!std::isfinite(v)) {
        continue;  // a gap: the white background shows
      }
      set_colour(cr, viridis((v - scale.lo) / (scale.hi - scale.lo)));
      cairo_rectangle(cr, origin.x + c * cell, origin.y + r * cell, cell, cell);
      cairo_fill(cr);
    }
  }
  cairo_restore(cr);
}

// Every k-th of `count` labels, k the fewest cells that hold a label's height.
int label_step(int cell) {
  return std::max(1, static_cast<int>(std::ceil((style::kTickLabelSize + 2) / cell)));
}

void draw_tick(cairo_t* cr, double x0, double y0, double x1, double y1) {
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
}

// Ticks with their labels below the cells (named columns read upwards) and left of them.
void draw_ticks(cairo_t* cr, const HeatmapPanel& panel, HeatmapLayout::Origin origin,
                const HeatmapLayout& layout) {
  const int cell = layout.cell_pixels;
  const double bottom = origin.y + static_cast<double>(panel.rows) * cell;
  const double band = layout.slot_bottom - kSlotBottom;
  if (panel.col_labels.empty()) {
    const AxisTicks x_ticks = index_ticks(cr, panel.cols, cell, 40, true);
    for (double v : x_ticks.values) {
      const double x = std::floor(origin.x + (v + 0.5) * cell) + 0.5;
      draw_tick(cr, x, bottom + 0.5, x, bottom + 0.5 + kTickLength);
      draw_label(cr, format_tick(v, x_ticks.step), x, bottom + kTickLength + kTickGap, kTickFont,
                 HAlign::kCentre, VAlign::kTop);
    }
  } else {
    for (int c = 0; c < panel.cols; c += label_step(cell)) {
      const double x = std::floor(origin.x + (c + 0.5) * cell) + 0.5;
      draw_tick(cr, x, bottom + 0.5, x, bottom + 0.5 + kTickLength);
      const FittedLabel label =
          fit_label(cr, panel.col_labels[static_cast<size_t>(c)], kTickFont, band);
      const double length = label_width(cr, label.text, label.font);
      draw_label(cr, label.text, x, bottom + kTickLength + kTickGap + length / 2, label.font,
                 HAlign::kCentre, VAlign::kMiddle, /*vertical=*/true);
    }
  }
  if (panel.row_labels.empty()) {
    const AxisTicks y_ticks = index_ticks(cr, panel.rows, cell, 28, false);
    for (double v : y_ticks.values) {
      const double y = std::floor(origin.y + (v + 0.5) * cell) + 0.5;
      draw_tick(cr, origin.x - 0.5, y, origin.x - 0.5 - kTickLength, y);
      draw_label(cr, format_tick(v, y_ticks.step), origin.x - kTickLength - kTickGap, y,
                 kTickFont, HAlign::kRight, VAlign::kMiddle);
    }
  } else {
    const double room = layout.slot_left - kSlotLeft + 36;  // the band and the index room
    for (int r = 0; r < panel.rows; r += label_step(cell)) {
      const double y = std::floor(origin.y + (r + 0.5) * cell) + 0.5;
      draw_tick(cr, origin.x - 0.5, y, origin.x - 0.5 - kTickLength, y);
      const FittedLabel label =
          fit_label(cr, panel.row_labels[static_cast<size_t>(r)], kTickFont, room);
      draw_label(cr, label.text, origin.x - kTickLength - kTickGap, y, label.font, HAlign::kRight,
                 VAlign::kMiddle);
    }
  }
}

void draw_heatmap_axes(cairo_t* cr, const HeatmapPanel& panel, HeatmapLayout::Origin origin,
                       const HeatmapLayout& layout, const HeatmapOptions& options) {
  const int cell = layout.cell_pixels;
  const double width = static_cast<double>(panel.cols) * cell;
  const double height = static_cast<double>(panel.rows) * cell;
  const double bottom = origin.y + height;
  cairo_save(cr);
  set_colour(cr, style::kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, origin.x - 0.5, origin.y - 0.5, width + 1, height + 1);
  cairo_stroke(cr);
  draw_ticks(cr, panel, origin, layout);
  cairo_restore(cr);
  // Axis labels stay within the slot (x) and beside the cells (y), so a small heatmap
  // gets smaller or shortened labels rather than labels running into its neighbours.
  const double slot_left = origin.x - layout.slot_left;
  const double slot_right = slot_left + layout.slot_width - kSlotRight;
  const double centre = origin.x + width / 2;
  const FittedLabel x_label = fit_label(cr, options.x_label, kAxisFont,
                                        2 * std::min(centre - slot_left, slot_right - centre));
  draw_label(cr, x_label.text, centre, bottom + layout.slot_bottom - 12, x_label.font,
             HAlign::kCentre, VAlign::kBaseline);
  const FittedLabel y_label = fit_label(cr, options.y_label, kAxisFont, height + 8);
  draw_label(cr, y_label.text, slot_left + 10, origin.y + height / 2, y_label.font, HAlign::kLeft,
             VAlign::kMiddle, /*vertical=*/true);
}

// The panel title, centred over the cells but kept inside the panel's slot.
void draw_panel_title(cairo_t* cr, const HeatmapPanel& panel, HeatmapLayout::Origin origin,
                      const HeatmapLayout& layout) {
  const double slot_left = origin.x - layout.slot_left;
  const double slot_right = slot_left + layout.slot_width - kSlotRight;
  const FittedLabel title = fit_label(cr, panel.title, {style::kPanelTitleSize, true, style::kText},
                                      slot_right - slot_left);
  const double title_width = label_width(cr, title.text, title.font);
  const double centre = origin.x + static_cast<double>(panel.cols) * layout.cell_pixels / 2;
  const double left = std::clamp(centre - title_width / 2, slot_left, slot_right - title_width);
  draw_label(cr, title.text, left, origin.y - 10, title.font, HAlign::kLeft, VAlign::kBaseline);
}

void draw_colour_bar(cairo_t* cr, const HeatmapLayout& layout, Range scale,
                     const std::string& value_label) {
  const int grid_height = std::max(layout.grid_rows * layout.slot_height, kMinGridHeight);
  const int bar_height = std::clamp(grid_height - kSlotTitle - kSlotBottom, 180, 480);
  const int left = layout.image.width - kColourBarBand + kColourBarLeftGap;
  const int top = layout.header_height + kSlotTitle;
  cairo_save(cr);
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
  for (int k = 0; k < bar_height; ++k) {  // one pixel row per step, largest at the top
    set_colour(cr, viridis(1.0 - (k + 0.5) / bar_height));
    cairo_rectangle(cr, left, top + k, kColourBarWidth, 1);
    cairo_fill(cr);
  }
  cairo_restore(cr);

  cairo_save(cr);
  set_colour(cr, style::kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left - 0.5, top - 0.5, kColourBarWidth + 1, bar_height + 1);
  cairo_stroke(cr);
  const double right = left + kColourBarWidth;
  const AxisTicks ticks = readable_ticks(cr, scale, bar_height, 50, false, false);
  double widest = 0;
  for (double v : ticks.values) {
    const double y = std::floor(top + (scale.hi - v) / (scale.hi - scale.lo) * bar_height) + 0.5;
    cairo_move_to(cr, right + 0.5, y);
    cairo_line_to(cr, right + 0.5 + kTickLength, y);
    cairo_stroke(cr);
    const std::string label = format_tick(v, ticks.step);
    draw_label(cr, label, right + kTickLength + kTickGap, y, kTickFont, HAlign::kLeft,
               VAlign::kMiddle);
    widest = std::max(widest, label_width(cr, label, kTickFont));
  }
  cairo_restore(cr);
  draw_label(cr, value_label, right + kTickLength + kTickGap + widest + 10, top + bar_height / 2.0,
             kAxisFont, HAlign::kLeft, VAlign::kMiddle, /*vertical=*/true);
}

}  // namespace

void write_heatmap_png(const std::string& path, const std::vector<HeatmapPanel>& panels,
                       const HeatmapOptions& options) {
  const HeatmapLayout layout = heatmap_layout(panels, options);
  const Range scale = colour_scale(panels);
  PngCanvas canvas(layout.image.width, layout.image.height);
  cairo_t* cr = canvas.cr();
  draw_figure_title(cr, options.title, layout.image.width, layout.header_height, kOuterMargin);
  for (size_t i = 0; i < panels.size(); ++i) {
    const HeatmapLayout::Origin origin = layout.heatmap_origins[i];
    draw_panel_title(cr, panels[i], origin, layout);
    draw_cells(cr, panels[i], origin, layout.cell_pixels, scale);
    draw_heatmap_axes(cr, panels[i], origin, layout, options);
  }
  draw_colour_bar(cr, layout, scale, options.value_label);
  canvas.write_png(path);
}

}  // namespace tsserve::plot
