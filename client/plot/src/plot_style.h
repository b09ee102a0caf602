#pragma once
// The look shared by both kinds of plot: one font family, a few sizes, a few greys.
// Internal to tsserve_plot.

#include "tsserve/plot/colormap.h"

namespace tsserve::plot::style {

// DejaVu Sans is in fonts-dejavu-core (deploy/install-deps.sh); fontconfig substitutes
// a sans-serif font where it is missing.
inline constexpr const char* kFontFamily = "DejaVu Sans";

inline constexpr double kFigureTitleSize = 18;
inline constexpr double kPanelTitleSize = 14;
inline constexpr double kAxisLabelSize = 13;
inline constexpr double kTickLabelSize = 12;
inline constexpr double kMinTitleSize = 9;  // long titles shrink to this, then are cut

inline constexpr Rgb kText{0.13, 0.13, 0.13};
inline constexpr Rgb kTickText{0.27, 0.27, 0.27};
inline constexpr Rgb kFrame{0.35, 0.35, 0.35};
inline constexpr Rgb kGrid{0.90, 0.90, 0.90};
inline constexpr Rgb kMarker{0.45, 0.45, 0.45};  // the forecast-start line
inline constexpr Rgb kMuted{0.55, 0.55, 0.55};   // "no finite values" notes

}  // namespace tsserve::plot::style
