#pragma once
// A case produced by tests/reference/make_fixtures.py (the independent PyTorch
// reference): its config, the module's parameters, inputs and expected outputs. Read with
// LibTorch's own torch::pickle_load, so the comparison does not go through tsserve's
// checkpoint reader.

#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
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

// The folder of the fixtures: $TSSERVE_FIXTURE_DIR when set (fixtures generated elsewhere,
// e.g. by a run of the generators without the dataset), otherwise the build's.
std::string fixture_dir();

// Why the generator did not write `case_name` (a case made from the dataset, which was
// missing: its <case>.skipped marker, tests/reference/dataset_skip.py), or nullopt.
std::optional<std::string> fixture_skip_reason(const std::string& case_name);

// In a test body: skips the test, with the generator's reason, when `case_name` was not
// generated for want of the dataset.
#define TSSERVE_SKIP_IF_FIXTURE_SKIPPED(case_name)                                         \
  if (const auto tsserve_skip_reason = ::tsserve::testing::fixture_skip_reason(case_name)) \
  GTEST_SKIP() << *tsserve_skip_reason

// How close a result must be to its reference: every element within
// atol + rtol * |expected| (numpy.allclose's rule), atol in the output's own units.
struct Tolerance {
  double atol;
  double rtol;
};

// Every element of `actual` finite and within `tolerance` of `expected` (same shape); the
// failure names how many elements are out, and the worst one's index, values and bar.
::testing::AssertionResult all_close(const at::Tensor& actual, const at::Tensor& expected,
                                     Tolerance tolerance);

// The parity bar of the project against the PyTorch reference: 1e-5 of the output's own
// scale S = max|expected|, stated as an absolute tolerance (atol = 1e-5 S, rtol 0). Float32
// rounding in a sum grows with the size of its terms, not with the element the sum lands
// in, so an element near zero carries the rounding of the whole scale: hence atol, not
// rtol. No floor: a forecast of scale 4e-3 gets atol 4e-8, not 1e-5 (0.25 % of it).
constexpr double kParityFraction = 1e-5;
Tolerance parity_tolerance(const at::Tensor& expected, double fraction = kParityFraction);

// all_close(actual, expected, parity_tolerance(expected, fraction)).
::testing::AssertionResult matches_reference(const at::Tensor& actual, const at::Tensor& expected,
                                             double fraction = kParityFraction);

// max|a - b|, for tests that assert two results really differ.
double max_abs_difference(const at::Tensor& a, const at::Tensor& b);

}  // namespace tsserve::testing
