#pragma once
// A PNG read back with cairo, for pixel checks; and where the tests write their images.

#include <cairo.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "tsserve/plot/colormap.h"

namespace tsserve::plot::testing {

struct Rgb8 {
  int r = 0;
  int g = 0;
  int b = 0;
  bool operator==(const Rgb8& o) const { return r == o.r && g == o.g && b == o.b; }
  bool operator<(const Rgb8& o) const { return r != o.r ? r < o.r : g != o.g ? g < o.g : b < o.b; }
};

inline Rgb8 to_rgb8(const Rgb& c) {
  return {static_cast<int>(std::lround(c.r * 255)), static_cast<int>(std::lround(c.g * 255)),
          static_cast<int>(std::lround(c.b * 255))};
}

// Within tolerance per channel (cairo's conversion to 8 bits may round the other way).
inline bool near(const Rgb8& a, const Rgb8& b, int tolerance = 2) {
  return std::abs(a.r - b.r) <= tolerance && std::abs(a.g - b.g) <= tolerance &&
         std::abs(a.b - b.b) <= tolerance;
}

class DecodedPng {
 public:
  explicit DecodedPng(const std::string& path)
      : surface_(cairo_image_surface_create_from_png(path.c_str())) {
    if (cairo_surface_status(surface_) != CAIRO_STATUS_SUCCESS) {
      const std::string reason = cairo_status_to_string(cairo_surface_status(surface_));
      cairo_surface_destroy(surface_);
      throw std::runtime_error("cannot decode " + path + ": " + reason);
    }
  }
  ~DecodedPng() { cairo_surface_destroy(surface_); }
  DecodedPng(const DecodedPng&) = delete;
  DecodedPng& operator=(const DecodedPng&) = delete;

  int width() const { return cairo_image_surface_get_width(surface_); }
  int height() const { return cairo_image_surface_get_height(surface_); }

  // Our images are opaque, so cairo's premultiplied ARGB is plain RGB.
  Rgb8 at(int x, int y) const {
    const unsigned char* row = cairo_image_surface_get_data(surface_) +
                               static_cast<size_t>(y) * cairo_image_surface_get_stride(surface_);
    uint32_t pixel;
    std::memcpy(&pixel, row + 4 * static_cast<size_t>(x), sizeof pixel);
    return {static_cast<int>((pixel >> 16) & 0xff), static_cast<int>((pixel >> 8) & 0xff),
            static_cast<int>(pixel & 0xff)};
  }

 private:
  cairo_surface_t* surface_;
};

inline std::string output_path(const std::string& name) {
  std::filesystem::create_directories(TSSERVE_PLOT_TEST_OUT);
  return std::string(TSSERVE_PLOT_TEST_OUT) + "/" + name;
}

}  // namespace tsserve::plot::testing
