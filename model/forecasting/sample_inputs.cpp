#include "tsserve/model/sample_inputs.h"

#include <ATen/ATen.h>

#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

std::string shape_of(const at::Tensor& t) {
  return t.defined() ? c10::str(t.sizes(), " ", t.scalar_type(), " on ", t.device().str())
                     : std::string("none");
}

bool is_cpu_float(const at::Tensor& t) {
  return t.scalar_type() == at::kFloat && t.device().is_cpu();
}

}  // namespace

std::pair<at::Tensor, at::Tensor> checked_sample_inputs(const at::Tensor& series,
                                                        const at::Tensor& calendar,
                                                        const SampleInputShape& shape) {
  const std::string T = std::to_string(shape.seq_len);
  const bool variables_ok =
      series.defined() && series.dim() == 3 &&
      (shape.variables > 0 ? series.size(1) == shape.variables : series.size(1) >= 1);
  if (!variables_ok || series.size(2) != shape.seq_len || !is_cpu_float(series)) {
    const std::string variables =
        shape.variables > 0 ? std::to_string(shape.variables) : std::string("variables >= 1");
    throw ModelError(shape.owner + " expects float32 CPU series [samples, " + variables + ", " + T +
                     "], got " + shape_of(series));
  }
  const int64_t samples = series.size(0);
  const int64_t C = shape.calendar_tokens;
  if (C > 0) {
    if (!calendar.defined() || calendar.dim() != 3 || calendar.size(0) != samples ||
        calendar.size(1) != C || calendar.size(2) != shape.seq_len || !is_cpu_float(calendar)) {
      throw ModelError(shape.owner + " expects float32 CPU calendar rows [" +
                       std::to_string(samples) + ", " + std::to_string(C) + ", " + T + "], got " +
                       shape_of(calendar));
    }
  } else if (calendar.defined()) {
    throw ModelError(shape.owner + " has no calendar tokens, but calendar rows were given");
  }
  return {series.contiguous(), C > 0 ? calendar.contiguous() : at::Tensor()};
}

}  // namespace tsserve::model
