#pragma once
// A plot area on the image and the data ranges it shows: the mapping from data to
// pixels, the grid, the ticks and their labels. Internal to tsserve_plot.

#include <cairo.h>

#include "tsserve/plot/axis_ticks.h"

namespace tsserve::plot {

struct Range {
  double lo = 0;
  double hi = 1;
};

// [lo, hi] widened by fraction of its span on each side; a single value (lo == hi) gets
// a span of 10% of its magnitude (1 when it is 0), so a flat line sits mid-height.
Range padded(double lo, double hi, double fraction);

struct PlotFrame {
  double left = 0;  // the plot area in image pixels
  double top = 0;
  double width = 0;
  double height = 0;
  Range x;  // data shown across and up the plot area
  Range y;

  double px(double data_x) const { return left + (data_x - x.lo) / (x.hi - x.lo) * width; }
  double py(double data_y) const { return top + height - (data_y - y.lo) / (y.hi - y.lo) * height; }
  void clip(cairo_t* cr) const;  // REQUIRES: inside cairo_save / cairo_restore
};

// Light grid lines at the ticks of both axes, tick marks, and their labels (y: left of
// the area, x: below it). Ticks never crowd: the step grows until the labels clear.
void draw_grid_and_ticks(cairo_t* cr, const PlotFrame& frame, bool integer_x);

// The densest nice ticks over range, about one per pixels_per_tick along an axis of
// length px, whose labels do not overlap (horizontal labels: by their widths; labels
// stacked vertically: by their height).
AxisTicks readable_ticks(cairo_t* cr, Range range, double length, double pixels_per_tick,
                         bool integer_only, bool horizontal_labels);

void draw_frame_border(cairo_t* cr, const PlotFrame& frame);

}  // namespace tsserve::plot
