#include "label_drawing.h"

#include "png_canvas.h"

namespace tsserve::plot {
namespace {

void select_font(cairo_t* cr, const Font& font) {
  cairo_select_font_face(cr, style::kFontFamily, CAIRO_FONT_SLANT_NORMAL,
                         font.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, font.size);
}

double digit_height(cairo_t* cr) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, "0", &extents);
  return extents.height;
}

// Drops whole UTF-8 characters from the end (never half of one).
void pop_utf8_character(std::string& text) {
  while (!text.empty()) {
    const unsigned char last = static_cast<unsigned char>(text.back());
    text.pop_back();
    if ((last & 0xC0) != 0x80) {
      return;  // not a continuation byte: character complete
    }
  }
}

}  // namespace

void draw_label(cairo_t* cr, const std::string& text, double x, double y, const Font& font,
                HAlign h, VAlign v, bool vertical) {
  if (text.empty()) {
    return;
  }
  cairo_save(cr);
  select_font(cr, font);
  set_colour(cr, font.colour);
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  // Offsets in the label's own frame: along the text (dx) and across it (dy, baseline).
  double dx = 0;
  if (h == HAlign::kCentre) {
    dx = -extents.x_advance / 2;
  }
  if (h == HAlign::kRight) {
    dx = -extents.x_advance;
  }
  double dy = 0;
  if (v == VAlign::kTop) {
    dy = digit_height(cr);
  }
  if (v == VAlign::kMiddle) {
    dy = digit_height(cr) / 2;
  }
  cairo_translate(cr, x, y);
  if (vertical) {
    // After the rotation the text's up points to the image's left: glyphs fill image x
    // from x + across - digit height to x + across.
    constexpr double kQuarterTurn = 1.5707963267948966;
    cairo_rotate(cr, -kQuarterTurn);
    double across = digit_height(cr) / 2;
    if (h == HAlign::kLeft) {
      across = digit_height(cr);
    }
    if (h == HAlign::kRight) {
      across = 0;
    }
    cairo_move_to(cr, -extents.x_advance / 2, across);
  } else {
    cairo_move_to(cr, dx, dy);
  }
  cairo_show_text(cr, text.c_str());
  cairo_restore(cr);
}

double label_width(cairo_t* cr, const std::string& text, const Font& font) {
  cairo_save(cr);
  select_font(cr, font);
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  cairo_restore(cr);
  return extents.x_advance;
}

FittedLabel fit_label(cairo_t* cr, const std::string& text, Font font, double max_width) {
  while (font.size > style::kMinTitleSize && label_width(cr, text, font) > max_width) {
    font.size -= 1;
  }
  if (label_width(cr, text, font) <= max_width) {
    return {text, font};
  }
  std::string cut = text;
  while (!cut.empty() && label_width(cr, cut + "\u2026", font) > max_width) {
    pop_utf8_character(cut);
  }
  return {cut + "\u2026", font};
}

void draw_figure_title(cairo_t* cr, const std::string& title, double image_width,
                       double header_height, double margin) {
  if (title.empty()) return;
  const FittedLabel fitted =
      fit_label(cr, title, {style::kFigureTitleSize, true, style::kText}, image_width - 2 * margin);
  draw_label(cr, fitted.text, margin + 8, header_height / 2.0 + 2, fitted.font, HAlign::kLeft,
             VAlign::kMiddle);
}

}  // namespace tsserve::plot
