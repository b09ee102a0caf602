#pragma once
// The normalisation both families apply to each input series before the network and undo
// after it (PatchTST's RevIN without affine, iTransformer's "non-stationary" one): subtract
// the mean over time, divide by sqrt(biased variance + 1e-5), the epsilon inside the root.

#include <ATen/core/Tensor.h>

namespace tsserve::model {

struct NormalisedSeries {
  at::Tensor values;  // (series - mean) / stdev, the input's shape
  at::Tensor mean;    // the input's shape with the last dim 1
  at::Tensor stdev;   // the input's shape with the last dim 1

  // y * stdev + mean: back to the input's units (y broadcasts over the last dim).
  at::Tensor denormalise(const at::Tensor& y) const;
};

// Statistics over the last dim (time). Each series' result does not depend on the others.
NormalisedSeries normalise_over_time(const at::Tensor& series);

}  // namespace tsserve::model
