#include "plot_frame.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "label_drawing.h"
#include "png_canvas.h"
#include "tsserve/plot/axis_ticks.h"

namespace tsserve::plot {
namespace {

constexpr double kTickLength = 4;
constexpr double kTickGap = 3;           // between a tick mark and its label
constexpr double kMinLabelSpacing = 14;  // px between neighbouring x labels

const Font kTickFont{style::kTickLabelSize, false, style::kTickText};

void stroke_line(cairo_t* cr, double x0, double y0, double x1, double y1) {
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y1);
  cairo_stroke(cr);
}

// Lines one pixel wide look crisp on pixel centres.
double crisp(double coordinate) { return std::round(coordinate - 0.5) + 0.5; }

}  // namespace

Range padded(double lo, double hi, double fraction) {
  if (lo == hi) {
    const double half = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
    return {lo - half, hi + half};
  }
  const double pad = (hi - lo) * fraction;
  return {lo - pad, hi + pad};
}

AxisTicks readable_ticks(cairo_t* cr, Range range, double length, double pixels_per_tick,
                         bool integer_only, bool horizontal_labels) {
  auto labels_clear = [&](const AxisTicks& ticks) {
    const double spacing = ticks.step / (range.hi - range.lo) * length;
    double needed = 2 * style::kTickLabelSize;  // vertical labels: their height
    if (horizontal_labels) {
      needed = 0;
      for (double v : ticks.values) {
        needed = std::max(needed, label_width(cr, format_tick(v, ticks.step), kTickFont));
      }
      needed += kMinLabelSpacing;
    }
    return spacing >= needed;
  };
  const int wanted = std::max(2, static_cast<int>(length / pixels_per_tick));
  int target = wanted;
  AxisTicks ticks = nice_ticks(range.lo, range.hi, target, integer_only);
  while (target > 1 && !labels_clear(ticks)) {
    ticks = nice_ticks(range.lo, range.hi, --target, integer_only);
  }
  // One tick alone gives no scale (a short axis over an awkward range, 6.7..13.3 asked
  // for 2 intervals gets only 10): take denser ticks while their labels still clear.
  for (int denser = wanted + 1; ticks.values.size() < 2 && denser <= 2 * wanted + 2; ++denser) {
    const AxisTicks candidate = nice_ticks(range.lo, range.hi, denser, integer_only);
    if (candidate.values.size() >= 2 && labels_clear(candidate)) {
      ticks = candidate;
    }
  }
  return ticks;
}

void PlotFrame::clip(cairo_t* cr) const {
  cairo_rectangle(cr, left, top, width, height);
  cairo_clip(cr);
}

void draw_grid_and_ticks(cairo_t* cr, const PlotFrame& frame, bool integer_x) {
  const AxisTicks x_ticks = readable_ticks(cr, frame.x, frame.width, 110, integer_x, true);
  const AxisTicks y_ticks = readable_ticks(cr, frame.y, frame.height, 45, false, false);
  const double bottom = frame.top + frame.height;
  const double right = frame.left + frame.width;
  cairo_save(cr);
  cairo_set_line_width(cr, 1);
  set_colour(cr, style::kGrid);
  for (double v : x_ticks.values) {
    stroke_line(cr, crisp(frame.px(v)), frame.top, crisp(frame.px(v)), bottom);
  }
  for (double v : y_ticks.values) {
    stroke_line(cr, frame.left, crisp(frame.py(v)), right, crisp(frame.py(v)));
  }
  set_colour(cr, style::kFrame);
  for (double v : x_ticks.values) {
    const double x = crisp(frame.px(v));
    stroke_line(cr, x, bottom, x, bottom + kTickLength);
    draw_label(cr, format_tick(v, x_ticks.step), x, bottom + kTickLength + kTickGap, kTickFont,
               HAlign::kCentre, VAlign::kTop);
  }
  for (double v : y_ticks.values) {
    const double y = crisp(frame.py(v));
    stroke_line(cr, frame.left - kTickLength, y, frame.left, y);
    draw_label(cr, format_tick(v, y_ticks.step), frame.left - kTickLength - kTickGap, y, kTickFont,
               HAlign::kRight, VAlign::kMiddle);
  }
  cairo_restore(cr);
}

void draw_frame_border(cairo_t* cr, const PlotFrame& frame) {
  cairo_save(cr);
  set_colour(cr, style::kFrame);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, crisp(frame.left), crisp(frame.top), std::round(frame.width),
                  std::round(frame.height));
  cairo_stroke(cr);
  cairo_restore(cr);
}

}  // namespace tsserve::plot
