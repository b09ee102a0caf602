#pragma once
// Linear layers whose result for one row does not depend on the other rows.
//
// One big GEMM over all rows gives results that differ in the last bits with the row
// count (OpenBLAS picks blocking by shape), so a forecast would change with the load the
// server is under. A batched matmul with one fixed-shape GEMM per row is bitwise stable
// and costs about the same here (see DESIGN.md, "Determinism").

#include <ATen/core/Tensor.h>

namespace tsserve::model {

// x: [R, ..., in]; weight: [out, in] (or a kernel-1 Conv1d weight [out, in, 1]);
// bias: [out] or undefined. Returns [R, ..., out] = x W^T + b.
// batch_invariant = false uses one GEMM over all rows (slightly faster, not bitwise
// stable across batch compositions; within 1e-6 relative).
at::Tensor row_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                      bool batch_invariant = true);

}  // namespace tsserve::model
