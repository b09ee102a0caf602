#include "tsserve/plot/bar_plot.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "label_drawing.h"
#include "plot_frame.h"
#include "png_canvas.h"
#include "tsserve/plot/axis_ticks.h"

namespace tsserve::plot {
namespace {

constexpr int kOuterMargin = 16;
constexpr int kLabelGap = 16;        // between the longest label and the bars
constexpr int kRightPad = 24;        // after the longest bar
constexpr int kPanelTitleBand = 30;  // above the first bar
constexpr int kAxisBand = 46;        // below the last bar: ticks and the value label
constexpr int kCharacterPixels = 7;  // the label band's width per character (12 px font)

std::string panel_name(size_t index, const std::string& title) {
  return "panels[" + std::to_string(index) + "] (\"" + title + "\")";
}

void validate(const std::vector<BarPanel>& panels, const BarOptions& options) {
  const std::string where = "bar plot: ";
  if (panels.empty()) throw std::invalid_argument(where + "panels is empty; expected at least one");
  if (options.columns < 0) {
    throw std::invalid_argument(where + "columns is " + std::to_string(options.columns) +
                                "; expected a positive count, or 0 for auto");
  }
  for (size_t i = 0; i < panels.size(); ++i) {
    const BarPanel& p = panels[i];
    if (p.values.empty()) {
      throw std::invalid_argument(where + panel_name(i, p.title) +
                                  ": no values; expected one bar at least");
    }
    if (p.labels.size() != p.values.size()) {
      throw std::invalid_argument(where + panel_name(i, p.title) + ": " +
                                  std::to_string(p.labels.size()) + " labels for " +
                                  std::to_string(p.values.size()) + " values; expected one each");
    }
  }
}

// The largest finite value of every panel, the scale's end (1 when there is none > 0).
double scale_end(const std::vector<BarPanel>& panels) {
  double top = 0;
  for (const BarPanel& p : panels) {
    for (float v : p.values) {
      if (std::isfinite(v)) top = std::max(top, static_cast<double>(v));
    }
  }
  return top > 0 ? top : 1.0;
}

void fill_rect(cairo_t* cr, double x, double y, double w, double h, Rgb colour) {
  cairo_set_source_rgb(cr, colour.r, colour.g, colour.b);
  cairo_rectangle(cr, x, y, w, h);
  cairo_fill(cr);
}

void draw_panel(cairo_t* cr, const BarPanel& panel, const BarLayout::Origin& origin,
                const BarLayout& layout, double end, const std::string& value_label) {
  const FittedLabel title = fit_label(cr, panel.title, {style::kPanelTitleSize, true, style::kText},
                                      layout.slot_width - 2.0 * kOuterMargin);
  draw_label(cr, title.text, origin.x - layout.label_band + kOuterMargin,
             origin.y - kPanelTitleBand / 2.0, title.font, HAlign::kLeft, VAlign::kMiddle);
  const Font tick{style::kTickLabelSize, false, style::kTickText};
  const Rgb bar = viridis(0.35);
  for (size_t i = 0; i < panel.values.size(); ++i) {
    const double top = origin.y + static_cast<double>(i) * kBarPixels;
    draw_label(cr, panel.labels[i], origin.x - 6, top + kBarPixels / 2.0, tick, HAlign::kRight,
               VAlign::kMiddle);
    const float v = panel.values[i];
    if (std::isfinite(v) && v > 0) {
      fill_rect(cr, origin.x, top + 3, v / end * kBarLengthPixels, kBarPixels - 6, bar);
    }
  }
  const double bottom = origin.y + static_cast<double>(panel.values.size()) * kBarPixels;
  PlotFrame frame{static_cast<double>(origin.x),
                  static_cast<double>(origin.y),
                  static_cast<double>(kBarLengthPixels),
                  bottom - origin.y,
                  {0, end},
                  {0, 1}};
  const AxisTicks ticks = readable_ticks(cr, frame.x, frame.width, 60, false, true);
  cairo_set_source_rgb(cr, style::kFrame.r, style::kFrame.g, style::kFrame.b);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, origin.x + 0.5, origin.y);
  cairo_line_to(cr, origin.x + 0.5, bottom);
  cairo_line_to(cr, origin.x + kBarLengthPixels, bottom + 0.5);
  cairo_stroke(cr);
  for (double v : ticks.values) {
    const double x = frame.px(v);
    cairo_move_to(cr, std::round(x) + 0.5, bottom);
    cairo_line_to(cr, std::round(x) + 0.5, bottom + 4);
    cairo_stroke(cr);
    draw_label(cr, format_tick(v, ticks.step), x, bottom + 7, tick, HAlign::kCentre, VAlign::kTop);
  }
  draw_label(cr, value_label, origin.x + kBarLengthPixels / 2.0, bottom + 30,
             {style::kAxisLabelSize, false, style::kText}, HAlign::kCentre, VAlign::kTop);
}

}  // namespace

BarLayout bar_layout(const std::vector<BarPanel>& panels, const BarOptions& options) {
  validate(panels, options);
  BarLayout layout;
  const int n = static_cast<int>(panels.size());
  layout.columns = options.columns > 0 ? std::min(options.columns, n) : std::min(n, 2);
  layout.grid_rows = (n + layout.columns - 1) / layout.columns;
  size_t longest = 0;
  size_t bars = 0;
  for (const BarPanel& p : panels) {
    bars = std::max(bars, p.values.size());
    for (const std::string& label : p.labels) longest = std::max(longest, label.size());
  }
  layout.label_band = static_cast<int>(longest) * kCharacterPixels + kLabelGap;
  layout.slot_width = layout.label_band + kBarLengthPixels + kRightPad;
  layout.slot_height = kPanelTitleBand + static_cast<int>(bars) * kBarPixels + kAxisBand;
  layout.header_height = options.title.empty() ? 16 : 48;
  layout.image = {2 * kOuterMargin + layout.columns * layout.slot_width,
                  layout.header_height + layout.grid_rows * layout.slot_height + kOuterMargin};
  if (layout.image.width > kMaxImageSide || layout.image.height > kMaxImageSide) {
    throw std::invalid_argument("bar plot: " + std::to_string(n) + " panels of up to " +
                                std::to_string(bars) + " bars need " +
                                std::to_string(layout.image.width) + " x " +
                                std::to_string(layout.image.height) + " px; at most " +
                                std::to_string(kMaxImageSide) + " on a side");
  }
  for (int i = 0; i < n; ++i) {
    const int column = i % layout.columns;
    const int row = i / layout.columns;
    layout.bar_origins.push_back(
        {kOuterMargin + column * layout.slot_width + layout.label_band,
         layout.header_height + row * layout.slot_height + kPanelTitleBand});
  }
  return layout;
}

void write_bar_png(const std::string& path, const std::vector<BarPanel>& panels,
                   const BarOptions& options) {
  const BarLayout layout = bar_layout(panels, options);
  const double end = scale_end(panels);
  PngCanvas canvas(layout.image.width, layout.image.height);
  cairo_t* cr = canvas.cr();
  draw_figure_title(cr, options.title, layout.image.width, layout.header_height, kOuterMargin);
  for (size_t i = 0; i < panels.size(); ++i) {
    draw_panel(cr, panels[i], layout.bar_origins[i], layout, end, options.value_label);
  }
  canvas.write_png(path);
}

}  // namespace tsserve::plot
