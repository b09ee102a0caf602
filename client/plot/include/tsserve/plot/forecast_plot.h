#pragma once
// History and forecast of each variable as a PNG: one panel per variable, stacked.
//
//   +------------------------------------------------------------------+
//   | title                                      -- history -- forecast |  header, 48 px
//   | OT                                                               |
//   |  12 +-----------------------------------:----------------------+ |
//   |     |   history (blue)                  : forecast (orange)    | |  one panel,
//   |   8 +-----------------------------------:----------------------+ |  panel_height px
//   |    -336        -200        -100         0          50            |
//   |  ... one panel per variable ...                                  |
//   |        steps relative to the forecast start (negative: history)  |  footer, 36 px
//   +------------------------------------------------------------------+
//
// The x axis counts steps from the first forecast point: the last history point is at
// -1, the first forecast point at 0 (marked by a dashed line). Non-finite values (NaN,
// inf) are drawn as gaps in the line; a lone finite point between gaps as a dot.

#include <string>
#include <vector>

#include "tsserve/plot/image_size.h"

namespace tsserve::plot {

// A prediction interval around the forecast, drawn as a translucent band (so nested bands
// at several levels darken towards the forecast line).
struct ForecastBand {
  double level = 0;            // e.g. 0.8; named in the legend
  std::vector<double> lower;   // as many points as the forecast; non-finite: a gap
  std::vector<double> upper;
};

struct ForecastPanel {
  std::string title;             // e.g. "OT"
  std::vector<double> history;   // the last observed points, oldest first
  std::vector<double> forecast;  // the predicted points, drawn right after the history
  std::vector<ForecastBand> bands{};  // optional; each sized like `forecast`
};

struct ForecastPlotOptions {
  int width = 1200;              // px, 320..4000
  int panel_height = 260;        // px per panel, 120..4000 (shrunk to fit, see below)
  std::string title;             // above the panels; may be empty
  int history_points_shown = 0;  // the last k history points; 0 = all
  // Below the x axis; empty: "steps relative to the forecast start (negative: history)".
  std::string x_label;
};

inline constexpr int kForecastHeaderPixels = 48;  // figure title and legend
inline constexpr int kForecastFooterPixels = 36;  // the x axis label
inline constexpr int kMinForecastPanelHeight = 120;

// The image size, computed without drawing:
//   width  = options.width
//   height = 48 + n * h + 36, n = panel_count,
//   h = options.panel_height, or floor((4000 - 84) / n) where that is smaller (so the
//       image stays within kMaxImageSide).
// Throws std::invalid_argument, naming the field, for options out of range, for no
// panels, and for more panels than fit at kMinForecastPanelHeight (32).
ImageSize forecast_image_size(size_t panel_count, const ForecastPlotOptions& options);

// Draws the panels and writes the PNG to path (overwritten).
// Throws std::invalid_argument for bad input (as forecast_image_size, for a panel
// with neither history nor forecast points, and for a band not sized like its forecast), naming the panel by index and title;
// std::runtime_error when the file cannot be written, with the OS's reason.
void write_forecast_png(const std::string& path, const std::vector<ForecastPanel>& panels,
                        const ForecastPlotOptions& options);

}  // namespace tsserve::plot
