#include "tsserve/model/instance_norm.h"

#include <ATen/ATen.h>

namespace tsserve::model {
namespace {

constexpr double kEps = 1e-5;

}  // namespace

NormalisedSeries normalise_over_time(const at::Tensor& series) {
  const int64_t time = series.dim() - 1;
  NormalisedSeries out;
  out.mean = series.mean(time, true);
  const at::Tensor centred = series - out.mean;
  out.stdev = at::sqrt(at::var(centred, time, /*unbiased=*/false, /*keepdim=*/true) + kEps);
  out.values = centred / out.stdev;
  return out;
}

at::Tensor NormalisedSeries::denormalise(const at::Tensor& y) const { return y * stdev + mean; }

}  // namespace tsserve::model
