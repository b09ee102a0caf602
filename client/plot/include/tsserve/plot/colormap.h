#pragma once
// The colours the plots use, public so callers and tests can name them.

namespace tsserve::plot {

// Components in [0, 1], as cairo takes them.
struct Rgb {
  double r = 0;
  double g = 0;
  double b = 0;
};

// Viridis (perceptually uniform, readable in grey and by colour-blind viewers): t in
// [0, 1] from dark purple (0) to yellow (1); t outside [0, 1] is clamped, NaN gives the
// bottom colour. Interpolated linearly between 19 anchors of matplotlib's 256-entry table.
Rgb viridis(double t);

// The forecast plot's series colours (matplotlib's tab:blue and tab:orange: apart for
// every common kind of colour blindness).
inline constexpr Rgb kHistoryColour{0x1f / 255.0, 0x77 / 255.0, 0xb4 / 255.0};
inline constexpr Rgb kForecastColour{0xff / 255.0, 0x7f / 255.0, 0x0e / 255.0};

}  // namespace tsserve::plot
