#include "tsserve/model/row_linear.h"

#include <ATen/ATen.h>

namespace tsserve::model {

at::Tensor row_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                      bool batch_invariant) {
  // A kernel-1 Conv1d weight [out, in, 1] is a Linear weight with a trailing unit dim.
  const at::Tensor w = weight.dim() == 3 ? weight.squeeze(-1) : weight;
  if (!batch_invariant) return at::linear(x, w, bias);

  const int64_t rows = x.size(0);
  const int64_t in = w.size(1);
  const int64_t out = w.size(0);
  auto out_sizes = x.sizes().vec();
  out_sizes.back() = out;

  const at::Tensor x3 = x.reshape({rows, -1, in});
  // Expanding the weight costs no memory; bmm then runs the same GEMM shape per row.
  const at::Tensor wt = w.t().unsqueeze(0).expand({rows, in, out});
  at::Tensor y;
  if (bias.defined()) {
    y = at::baddbmm(bias.view({1, 1, out}).expand({rows, x3.size(1), out}), x3, wt);
  } else {
    y = at::bmm(x3, wt);
  }
  return y.view(out_sizes);
}

}  // namespace tsserve::model
