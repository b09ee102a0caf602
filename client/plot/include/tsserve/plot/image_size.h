#pragma once

namespace tsserve::plot {

// No plot is larger than this on either side: a picture for a screen or a report, and
// a bound on memory (4000 x 4000 ARGB is 64 MB).
inline constexpr int kMaxImageSide = 4000;

struct ImageSize {
  int width = 0;
  int height = 0;
};

}  // namespace tsserve::plot
