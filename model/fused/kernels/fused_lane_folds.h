#pragma once
// A vector's lanes folded to one float in one fixed order (the first lane first), for the
// row sums of the fused iTransformer kernels: the same bits whichever row is folded.

#include "fused_vector.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

inline float lane_sum(vf v) {
  float sum = v[0];
  for (int l = 1; l < kLanes; ++l) sum += v[l];
  return sum;
}

inline float lane_max(vf v) {
  float top = v[0];
  for (int l = 1; l < kLanes; ++l) top = v[l] > top ? v[l] : top;
  return top;
}

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
