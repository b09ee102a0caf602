#pragma once
// The heatmap figure's fixed distances in px (documented with heatmap_layout in
// tsserve/plot/heatmap_plot.h; keep the two in step). Internal to tsserve_plot.

#include <cstddef>

namespace tsserve::plot {

inline constexpr int kOuterMargin = 16;
inline constexpr int kTitledHeader = 48;
inline constexpr int kUntitledHeader = 16;
inline constexpr int kSlotLeft = 72;       // y axis label and tick labels
inline constexpr int kSlotRight = 24;      // gap to the next heatmap
inline constexpr int kMinSlotWidth = 200;  // room for the panel title
inline constexpr int kSlotTitle = 30;      // panel title above the cells
inline constexpr int kSlotBottom = 50;     // x tick labels and x axis label below the cells
inline constexpr int kColourBarBand = 128;
inline constexpr int kLabelCharPixels = 7;  // label_band: px per character of a tick label
inline constexpr int kMinGridHeight = 260;  // room for the colour bar
inline constexpr int kMaxCellPixels = 64;
// A slot is at least 200 x 81 px, so no more than 19 x 48 = 912 heatmaps fit in
// 4000 x 4000 px; the bound also keeps the layout arithmetic far from int overflow.
inline constexpr size_t kMaxHeatmapPanels = 912;
inline constexpr double kAutoHeatmapSide = 240;  // px an auto-sized heatmap aims for

}  // namespace tsserve::plot
