#include "tsserve/plot/axis_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tsserve::plot {
namespace {

double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  if (fraction < 1.5) {
    return magnitude;
  }
  if (fraction < 3.0) {
    return 2 * magnitude;
  }
  if (fraction < 7.0) {
    return 5 * magnitude;
  }
  return 10 * magnitude;
}

// Decimal exponent of the step's least significant digit (5e-3 -> -3, 20 -> 1).
int step_exponent(double step) { return static_cast<int>(std::floor(std::log10(step) + 1e-9)); }

std::string strip_trailing_zeros(std::string mantissa) {
  if (mantissa.find('.') == std::string::npos) {
    return mantissa;
  }
  while (mantissa.back() == '0') {
    mantissa.pop_back();
  }
  if (mantissa.back() == '.') {
    mantissa.pop_back();
  }
  return mantissa;
}

}  // namespace

AxisTicks nice_ticks(double lo, double hi, int target, bool integer_only) {
  AxisTicks ticks;
  ticks.step = nice_step((hi - lo) / std::max(target, 1));
  if (integer_only) {
    ticks.step = std::max(ticks.step, 1.0);
  }
  // Tolerance so that a bound that is a multiple up to rounding still gets its tick.
  const double slack = ticks.step * 1e-9;
  const double first = std::ceil((lo - slack) / ticks.step);
  const double last = std::floor((hi + slack) / ticks.step);
  for (double k = first; k <= last; ++k) {
    // k * step rather than a running sum, so no error accumulates; exact zero stays zero.
    const double value = k * ticks.step;
    ticks.values.push_back(k == 0 ? 0.0 : value);
  }
  return ticks;
}

std::string format_tick(double value, double step) {
  if (value == 0 || std::abs(value) < step * 1e-6) {
    return "0";
  }
  const int step_exp = step_exponent(step);
  const int value_exp = static_cast<int>(std::floor(std::log10(std::abs(value)) + 1e-9));
  char buffer[64];
  if (value_exp >= 6 || step_exp <= -5) {
    // Scientific: enough mantissa digits to tell neighbouring ticks apart.
    const int digits = std::clamp(value_exp - step_exp, 0, 8);
    std::snprintf(buffer, sizeof buffer, "%.*e", digits, value);
    std::string text(buffer);
    const size_t e = text.find('e');
    std::string mantissa = strip_trailing_zeros(text.substr(0, e));
    const int exponent = std::stoi(text.substr(e + 1));
    return mantissa + "e" + std::to_string(exponent);
  }
  const int decimals = std::max(0, -step_exp);
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return strip_trailing_zeros(buffer);
}

}  // namespace tsserve::plot
