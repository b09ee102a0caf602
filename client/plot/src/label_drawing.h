#pragma once
// Text on a cairo context, placed by an anchor point and an alignment. Internal to
// tsserve_plot.

#include <cairo.h>

#include <string>

#include "plot_style.h"

namespace tsserve::plot {

struct Font {
  double size = style::kTickLabelSize;
  bool bold = false;
  Rgb colour = style::kText;
};

// Where the anchor sits on the label: horizontally at its left / centre / right,
// vertically at its top / middle / baseline (middle and top use the height of the
// digits, so a row of tick labels lines up whatever letters they hold).
enum class HAlign { kLeft, kCentre, kRight };
enum class VAlign { kTop, kMiddle, kBaseline };

// Vertical labels read bottom to top (a quarter turn anticlockwise) and are centred on y
// along their length; h places their height around x as the image shows it (kLeft: x is
// their left edge); v does not apply to them.
void draw_label(cairo_t* cr, const std::string& text, double x, double y, const Font& font,
                HAlign h, VAlign v, bool vertical = false);

double label_width(cairo_t* cr, const std::string& text, const Font& font);

// The label as it can be drawn within max_width: the font shrinks down to
// style::kMinTitleSize, then the text is cut with an ellipsis.
struct FittedLabel {
  std::string text;
  Font font;
};
FittedLabel fit_label(cairo_t* cr, const std::string& text, Font font, double max_width);

// A figure's title across the top of an image `image_width` wide, centred in a header
// `header_height` tall, `margin` from the left (fitted to the width); nothing when empty.
void draw_figure_title(cairo_t* cr, const std::string& title, double image_width,
                       double header_height, double margin);

}  // namespace tsserve::plot
