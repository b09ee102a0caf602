#include "tsserve/plot/colormap.h"

#include <array>
#include <cmath>

namespace tsserve::plot {
namespace {

struct Anchor {
  double t;
  Rgb colour;
};

// Entries 0, 16, 32, ..., 224, then 232, 240, 248 and 255 of matplotlib's viridis
// (mpl-colormaps by van der Walt and Smith, CC0); the yellow end bends most, hence the
// closer anchors there. Spot checks against the full 256-entry table: interpolation is
// within 0.007 per channel (about two 8-bit steps), invisible on a heatmap.
// clang-format off
constexpr std::array<Anchor, 19> kViridis{{
    {0 / 255.0,   {0.267004, 0.004874, 0.329415}},
    {16 / 255.0,  {0.282327, 0.094955, 0.417331}},
    {32 / 255.0,  {0.278826, 0.175490, 0.483397}},
    {48 / 255.0,  {0.258965, 0.251537, 0.524736}},
    {64 / 255.0,  {0.229739, 0.322361, 0.545706}},
    {80 / 255.0,  {0.199430, 0.387607, 0.554642}},
    {96 / 255.0,  {0.172719, 0.448791, 0.557885}},
    {112 / 255.0, {0.149039, 0.508051, 0.557250}},
    {128 / 255.0, {0.127568, 0.566949, 0.550556}},
    {144 / 255.0, {0.120638, 0.625828, 0.533488}},
    {160 / 255.0, {0.157851, 0.683765, 0.501686}},
    {176 / 255.0, {0.246070, 0.738910, 0.452024}},
    {192 / 255.0, {0.369214, 0.788888, 0.382914}},
    {208 / 255.0, {0.515992, 0.831158, 0.294279}},
    {224 / 255.0, {0.678489, 0.863742, 0.189503}},
    {232 / 255.0, {0.762373, 0.876424, 0.137064}},
    {240 / 255.0, {0.845561, 0.887322, 0.099702}},
    {248 / 255.0, {0.926106, 0.897330, 0.104071}},
    {255 / 255.0, {0.993248, 0.906157, 0.143936}},
}};
// clang-format on

}  // namespace

Rgb viridis(double t) {
  if (!(t > 0)) {
    return kViridis.front().colour;  // also NaN
  }
  if (t >= 1) {
    return kViridis.back().colour;
  }
  size_t upper = 1;
  while (kViridis[upper].t < t) {
    ++upper;
  }
  const Anchor& a = kViridis[upper - 1];
  const Anchor& b = kViridis[upper];
  const double f = (t - a.t) / (b.t - a.t);
  return {a.colour.r + f * (b.colour.r - a.colour.r), a.colour.g + f * (b.colour.g - a.colour.g),
          a.colour.b + f * (b.colour.b - a.colour.b)};
}

}  // namespace tsserve::plot
