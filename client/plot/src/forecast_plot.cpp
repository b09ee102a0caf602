#include "tsserve/plot/forecast_plot.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "label_drawing.h"
#include "plot_frame.h"
#include "png_canvas.h"

namespace tsserve::plot {
namespace {

// Inside each panel: the title band above the plot area, tick labels below it, and the
// y tick labels to its left.
constexpr double kPlotLeft = 80;
constexpr double kPlotRightMargin = 28;
constexpr double kPanelTitleBand = 30;
constexpr double kTickBand = 34;
constexpr double kLineWidth = 1.8;
constexpr double kFullTurn = 6.283185307179586;

std::string panel_name(size_t index, const std::string& title) {
  return "panels[" + std::to_string(index) + "] (\"" + title + "\")";
}

void validate(const std::vector<ForecastPanel>& panels, const ForecastPlotOptions& options) {
  forecast_image_size(panels.size(), options);
  for (size_t i = 0; i < panels.size(); ++i) {
    if (panels[i].history.empty() && panels[i].forecast.empty()) {
      throw std::invalid_argument("forecast plot: " + panel_name(i, panels[i].title) +
                                  " has no history and no forecast points; each panel needs "
                                  "at least one");
    }
    for (size_t b = 0; b < panels[i].bands.size(); ++b) {
      const ForecastBand& band = panels[i].bands[b];
      if (band.lower.size() != panels[i].forecast.size() ||
          band.upper.size() != panels[i].forecast.size()) {
        throw std::invalid_argument("forecast plot: " + panel_name(i, panels[i].title) +
                                    " bands[" + std::to_string(b) + "] has " +
                                    std::to_string(band.lower.size()) + " lower and " +
                                    std::to_string(band.upper.size()) +
                                    " upper points; expected the forecast's " +
                                    std::to_string(panels[i].forecast.size()));
      }
    }
  }
}

// The value range over the finite points shown, padded by 5% so lines clear the frame.
Range value_range(const std::vector<double>& a, const std::vector<double>& b, bool& any_finite) {
  double lo = INFINITY;
  double hi = -INFINITY;
  for (const auto* values : {&a, &b}) {
    for (double v : *values) {
      if (!std::isfinite(v)) {
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  any_finite = lo <= hi;
  if (!any_finite) {
    return {0, 1};
  }
  return padded(lo, hi, 0.05);
}

// Each band as translucent fills in the forecast's colour, one polygon per run of steps
// where both bounds are finite. Drawn before the lines, so they stay on top.
void draw_bands(cairo_t* cr, const PlotFrame& frame, const std::vector<ForecastBand>& bands,
                const Rgb& colour) {
  cairo_save(cr);
  frame.clip(cr);
  cairo_set_source_rgba(cr, colour.r, colour.g, colour.b, 0.18);
  for (const ForecastBand& band : bands) {
    const size_t n = band.lower.size();
    size_t i = 0;
    while (i < n) {
      if (!std::isfinite(band.lower[i]) || !std::isfinite(band.upper[i])) {
        ++i;
        continue;
      }
      size_t end = i;
      while (end < n && std::isfinite(band.lower[end]) && std::isfinite(band.upper[end])) ++end;
      cairo_move_to(cr, frame.px(static_cast<double>(i)), frame.py(band.upper[i]));
      for (size_t k = i + 1; k < end; ++k) cairo_line_to(cr, frame.px(static_cast<double>(k)), frame.py(band.upper[k]));
      for (size_t k = end; k-- > i;) cairo_line_to(cr, frame.px(static_cast<double>(k)), frame.py(band.lower[k]));
      cairo_close_path(cr);
      cairo_fill(cr);
      i = end;
    }
  }
  cairo_restore(cr);
}

// One line per run of finite values; a run of one point is a dot so it stays visible.
void draw_series(cairo_t* cr, const PlotFrame& frame, double first_x,
                 const std::vector<double>& values, const Rgb& colour) {
  cairo_save(cr);
  frame.clip(cr);
  set_colour(cr, colour);
  cairo_set_line_width(cr, kLineWidth);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  size_t i = 0;
  while (i < values.size()) {
    if (!std::isfinite(values[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < values.size() && std::isfinite(values[end])) {
      ++end;
    }
    if (end - i == 1) {
      cairo_arc(cr, frame.px(first_x + i), frame.py(values[i]), kLineWidth * 1.2, 0, kFullTurn);
      cairo_fill(cr);
    } else {
      cairo_move_to(cr, frame.px(first_x + i), frame.py(values[i]));
      for (size_t k = i + 1; k < end; ++k) {
        cairo_line_to(cr, frame.px(first_x + k), frame.py(values[k]));
      }
      cairo_stroke(cr);
    }
    i = end;
  }
  cairo_restore(cr);
}

void draw_forecast_start(cairo_t* cr, const PlotFrame& frame) {
  if (frame.x.lo > 0 || frame.x.hi < 0) {
    return;
  }
  cairo_save(cr);
  set_colour(cr, style::kMarker);
  cairo_set_line_width(cr, 1.2);
  const double dashes[] = {5, 4};
  cairo_set_dash(cr, dashes, 2, 0);
  const double x = std::round(frame.px(0)) + 0.5;  // a crisp one-pixel column
  cairo_move_to(cr, x, frame.top);
  cairo_line_to(cr, x, frame.top + frame.height);
  cairo_stroke(cr);
  cairo_restore(cr);
}

void draw_panel(cairo_t* cr, const ForecastPanel& panel, const ForecastPlotOptions& options,
                double top, double panel_height, double image_width) {
  const size_t shown =
      options.history_points_shown == 0
          ? panel.history.size()
          : std::min(panel.history.size(), static_cast<size_t>(options.history_points_shown));
  const std::vector<double> history(panel.history.end() - static_cast<std::ptrdiff_t>(shown),
                                    panel.history.end());
  const double first_x = -static_cast<double>(history.size());
  const double last_x = panel.forecast.empty() ? -1.0 : panel.forecast.size() - 1.0;

  PlotFrame frame;
  frame.left = kPlotLeft;
  frame.top = top + kPanelTitleBand;
  frame.width = image_width - kPlotLeft - kPlotRightMargin;
  frame.height = panel_height - kPanelTitleBand - kTickBand;
  frame.x = first_x < last_x ? Range{first_x, last_x} : Range{first_x - 1, last_x + 1};
  bool any_finite = false;
  std::vector<double> forecast_and_bands = panel.forecast;  // the range holds the bands too
  for (const ForecastBand& band : panel.bands) {
    forecast_and_bands.insert(forecast_and_bands.end(), band.lower.begin(), band.lower.end());
    forecast_and_bands.insert(forecast_and_bands.end(), band.upper.begin(), band.upper.end());
  }
  frame.y = value_range(history, forecast_and_bands, any_finite);

  const FittedLabel title =
      fit_label(cr, panel.title, {style::kPanelTitleSize, true, style::kText}, frame.width);
  draw_label(cr, title.text, frame.left, top + kPanelTitleBand - 9, title.font, HAlign::kLeft,
             VAlign::kBaseline);

  draw_grid_and_ticks(cr, frame, /*integer_x=*/true);
  draw_forecast_start(cr, frame);
  draw_bands(cr, frame, panel.bands, kForecastColour);
  draw_series(cr, frame, first_x, history, kHistoryColour);
  draw_series(cr, frame, 0, panel.forecast, kForecastColour);
  if (!any_finite) {
    draw_label(cr, "no finite values", frame.left + frame.width / 2, frame.top + frame.height / 2,
               {style::kAxisLabelSize, false, style::kMuted}, HAlign::kCentre, VAlign::kMiddle);
  }
  draw_frame_border(cr, frame);
}

void draw_legend_entry(cairo_t* cr, double x, double y, const Rgb& colour,
                       const std::string& text) {
  cairo_save(cr);
  set_colour(cr, colour);
  cairo_set_line_width(cr, 2.5);
  cairo_move_to(cr, x, y);
  cairo_line_to(cr, x + 26, y);
  cairo_stroke(cr);
  cairo_restore(cr);
  draw_label(cr, text, x + 32, y, {style::kAxisLabelSize, false, style::kText}, HAlign::kLeft,
             VAlign::kMiddle);
}

void draw_header(cairo_t* cr, const std::string& title, double image_width) {
  const Font legend_font{style::kAxisLabelSize, false, style::kText};
  const double entry_gap = 24;
  const double history_width = 32 + label_width(cr, "history", legend_font);
  const double forecast_width = 32 + label_width(cr, "forecast", legend_font);
  const double legend_left =
      image_width - kPlotRightMargin - history_width - entry_gap - forecast_width;
  const double middle = kForecastHeaderPixels / 2.0 + 2;
  draw_legend_entry(cr, legend_left, middle, kHistoryColour, "history");
  draw_legend_entry(cr, legend_left + history_width + entry_gap, middle, kForecastColour,
                    "forecast");
  const FittedLabel fitted = fit_label(cr, title, {style::kFigureTitleSize, true, style::kText},
                                       legend_left - kPlotLeft - 24);
  draw_label(cr, fitted.text, kPlotLeft, middle, fitted.font, HAlign::kLeft, VAlign::kMiddle);
}

}  // namespace

ImageSize forecast_image_size(size_t panel_count, const ForecastPlotOptions& options) {
  auto out_of_range = [](const std::string& field, long value, int lo, int hi) {
    return std::invalid_argument("forecast plot: " + field + " is " + std::to_string(value) +
                                 "; expected " + std::to_string(lo) + ".." + std::to_string(hi) +
                                 " px");
  };
  if (options.width < 320 || options.width > kMaxImageSide) {
    throw out_of_range("width", options.width, 320, kMaxImageSide);
  }
  if (options.panel_height < kMinForecastPanelHeight || options.panel_height > kMaxImageSide) {
    throw out_of_range("panel_height", options.panel_height, kMinForecastPanelHeight,
                       kMaxImageSide);
  }
  if (options.history_points_shown < 0) {
    throw std::invalid_argument("forecast plot: history_points_shown is " +
                                std::to_string(options.history_points_shown) +
                                "; expected 0 (all) or a positive count");
  }
  if (panel_count == 0) {
    throw std::invalid_argument("forecast plot: panels is empty; expected one panel per variable");
  }
  const int bands = kForecastHeaderPixels + kForecastFooterPixels;
  const size_t most = static_cast<size_t>((kMaxImageSide - bands) / kMinForecastPanelHeight);
  if (panel_count > most) {
    throw std::invalid_argument("forecast plot: " + std::to_string(panel_count) +
                                " panels do not fit in " + std::to_string(kMaxImageSide) +
                                " px at " + std::to_string(kMinForecastPanelHeight) +
                                " px each; at most " + std::to_string(most));
  }
  const int n = static_cast<int>(panel_count);
  const int panel_height = std::min(options.panel_height, (kMaxImageSide - bands) / n);
  return {options.width, bands + n * panel_height};
}

void write_forecast_png(const std::string& path, const std::vector<ForecastPanel>& panels,
                        const ForecastPlotOptions& options) {
  validate(panels, options);
  const ImageSize size = forecast_image_size(panels.size(), options);
  const int panel_height = (size.height - kForecastHeaderPixels - kForecastFooterPixels) /
                           static_cast<int>(panels.size());
  PngCanvas canvas(size.width, size.height);
  cairo_t* cr = canvas.cr();
  draw_header(cr, options.title, size.width);
  for (size_t i = 0; i < panels.size(); ++i) {
    draw_panel(cr, panels[i], options,
               kForecastHeaderPixels + static_cast<double>(i) * panel_height, panel_height,
               size.width);
  }
  const double plot_centre = kPlotLeft + (size.width - kPlotLeft - kPlotRightMargin) / 2;
  draw_label(cr,
             options.x_label.empty() ? "steps relative to the forecast start (negative: history)"
                                     : options.x_label,
             plot_centre,
             size.height - kForecastFooterPixels / 2.0,
             {style::kAxisLabelSize, false, style::kText}, HAlign::kCentre, VAlign::kMiddle);
  canvas.write_png(path);
}

}  // namespace tsserve::plot
