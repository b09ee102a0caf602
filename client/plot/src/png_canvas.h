#pragma once
// A white ARGB image with a cairo context on it, written to a PNG file. Internal to
// tsserve_plot.

#include <cairo.h>

#include <memory>
#include <string>

#include "tsserve/plot/colormap.h"

namespace tsserve::plot {

class PngCanvas {
 public:
  // Throws std::runtime_error when cairo cannot allocate the image.
  PngCanvas(int width, int height);
  PngCanvas(const PngCanvas&) = delete;
  PngCanvas& operator=(const PngCanvas&) = delete;

  cairo_t* cr() const { return cr_.get(); }
  int width() const { return width_; }
  int height() const { return height_; }

  // Throws std::runtime_error naming the path and the reason (from the OS where it is
  // the OS that refused) when drawing failed or the file cannot be written.
  void write_png(const std::string& path) const;

 private:
  struct SurfaceDeleter {
    void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
  };
  struct ContextDeleter {
    void operator()(cairo_t* c) const { cairo_destroy(c); }
  };
  int width_;
  int height_;
  std::unique_ptr<cairo_surface_t, SurfaceDeleter> surface_;
  std::unique_ptr<cairo_t, ContextDeleter> cr_;
};

inline void set_colour(cairo_t* cr, const Rgb& c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

}  // namespace tsserve::plot
