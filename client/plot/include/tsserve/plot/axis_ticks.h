#pragma once
// Axis ticks at "nice" numbers and their labels, shared by both kinds of plot.

#include <string>
#include <vector>

namespace tsserve::plot {

struct AxisTicks {
  double step = 1;             // 1, 2 or 5 x 10^k
  std::vector<double> values;  // every multiple of step in [lo, hi], ascending
};

// Ticks for the range [lo, hi] with a step of 1, 2 or 5 x 10^k chosen so that about
// `target` intervals cover the range (matplotlib's and R's pretty() idea). With
// integer_only, the step is at least 1 (patch indices, time steps).
// REQUIRES: lo and hi finite, lo < hi, target >= 1.
AxisTicks nice_ticks(double lo, double hi, int target, bool integer_only = false);

// A tick label as short as the step allows: "0.25", "-3", "1200", "1.5e6", "2e-5".
// Trailing zeros never appear and "-0" prints as "0".
std::string format_tick(double value, double step);

}  // namespace tsserve::plot
