#pragma once
// A case produced by tests/reference/make_fixtures.py (the independent PyTorch
// reference): its config, the module's parameters, inputs and expected outputs. Read with
// LibTorch's own torch::pickle_load, so the comparison does not go through tsserve's
// checkpoint reader.

#include <ATen/core/Tensor.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tsserve/model/state_dict.h"

namespace tsserve::testing {

struct ReferenceFixture {
  nlohmann::json config;
  model::StateDict params;  // module-relative state_dict names
  std::map<std::string, at::Tensor> inputs;
  std::map<std::string, at::Tensor> outputs;

  const at::Tensor& input(const std::string& name) const;
  const at::Tensor& output(const std::string& name) const;
  bool has_input(const std::string& name) const { return inputs.count(name) > 0; }
};

ReferenceFixture load_reference_fixture(const std::string& case_name);

// max|actual - expected| / max(1, max|expected|): the error relative to the output scale.
double relative_error(const at::Tensor& actual, const at::Tensor& expected);

// The parity bar of the project: 1e-5 relative to the output scale.
constexpr double kParityTolerance = 1e-5;

}  // namespace tsserve::testing
