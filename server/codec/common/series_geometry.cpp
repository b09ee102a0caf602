#include "server/codec/common/series_geometry.h"

namespace tsserve::server {

int64_t SeriesGeometry::row_of(int64_t flat) const {
  const int64_t block = variables * points;
  const int64_t within = flat % block;
  return (flat / block) * variables + (by_variable ? within / points : within % variables);
}

int64_t SeriesGeometry::point_of(int64_t flat) const {
  const int64_t within = flat % (variables * points);
  return by_variable ? within % points : within / variables;
}

}  // namespace tsserve::server
