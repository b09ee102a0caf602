#pragma once
// Batch invariance by construction on LibTorch's CPU operators.
//
// A batched LibTorch forward is not row-invariant on every CPU, even with one GEMM shape
// per row (row_linear.h): which kernel OpenBLAS or an ATen loop runs, and where its vector
// tails and thread chunks fall, may depend on the whole batch's shape. On AVX-512 CPUs
// OpenBLAS's own kernels changed the bundled iTransformer's last bits between a batch of 1
// and a batch of 48, where its AVX2 kernels did not; no test on one machine can show that
// every kernel of every CPU behaves. So on the CPU the batch-invariant path runs each unit
// of a batch (a PatchTST row, an iTransformer sample, an Encode sequence) as a pass of its
// own over a fresh copy of its input: the same operators, shapes, memory alignment and
// thread count as that unit gets alone, whatever else shares the batch, on every ISA and
// BLAS. A GPU runs the batch at once, and the promise is not made there.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

namespace tsserve::model {

// True when a batch of `input` runs unit by unit: batch_invariant, on a CPU tensor of at
// least one unit.
bool runs_unit_by_unit(bool batch_invariant, const at::Tensor& input);

// Unit `unit` (index in dim 0) of `batch` as a fresh contiguous [1, ...] tensor, laid out
// as that unit alone would be. An undefined tensor gives an undefined one.
at::Tensor unit_input(const at::Tensor& batch, int64_t unit);

// Runs pass(u) for u in [0, units), each returning a list of [1, ...] tensors (the same
// count for every unit), and joins them position by position along dim 0.
std::vector<at::Tensor> run_unit_by_unit(
    int64_t units, const std::function<std::vector<at::Tensor>(int64_t unit)>& pass);

// run_unit_by_unit for a forecast (RowForecast, SampleForecast): pass(u) gives unit u's
// forecast, encoder_output and per-layer attention, each [1, ...].
template <class Forecast, class Pass>
Forecast forecast_unit_by_unit(int64_t units, const Pass& pass) {
  std::vector<at::Tensor> joined = run_unit_by_unit(units, [&](int64_t unit) {
    Forecast one = pass(unit);
    std::vector<at::Tensor> parts{std::move(one.forecast), std::move(one.encoder_output)};
    for (at::Tensor& layer : one.attention) parts.push_back(std::move(layer));
    return parts;
  });
  Forecast out{};
  out.forecast = std::move(joined[0]);
  out.encoder_output = std::move(joined[1]);
  out.attention.assign(std::make_move_iterator(joined.begin() + 2),
                       std::make_move_iterator(joined.end()));
  return out;
}

}  // namespace tsserve::model
