#include "reference_fixture.h"

#include <gtest/gtest.h>
#include <torch/serialize.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tsserve::testing {

const at::Tensor& ReferenceFixture::input(const std::string& name) const {
  auto it = inputs.find(name);
  if (it == inputs.end()) throw std::runtime_error("fixture has no input '" + name + "'");
  return it->second;
}

const at::Tensor& ReferenceFixture::output(const std::string& name) const {
  auto it = outputs.find(name);
  if (it == outputs.end()) throw std::runtime_error("fixture has no output '" + name + "'");
  return it->second;
}

std::string fixture_dir() {
  const char* dir = std::getenv("TSSERVE_FIXTURE_DIR");
  return dir != nullptr && *dir != '\0' ? dir : TSSERVE_FIXTURE_DIR;
}

std::optional<std::string> fixture_skip_reason(const std::string& case_name) {
  std::ifstream marker(fixture_dir() + "/" + case_name + ".skipped");
  if (!marker) return std::nullopt;
  std::string reason;
  std::getline(marker, reason);
  return reason;
}

ReferenceFixture load_reference_fixture(const std::string& case_name) {
  const std::string path = fixture_dir() + "/" + case_name + ".pt";
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const std::optional<std::string> skipped = fixture_skip_reason(case_name);
    throw std::runtime_error(
        path + " is missing: " + (skipped ? *skipped : "run the make_*fixtures tests first"));
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  const c10::IValue root = torch::pickle_load(bytes);

  ReferenceFixture fixture;
  for (const auto& entry : root.toGenericDict()) {
    const std::string key = entry.key().toStringRef();
    if (key == "config") {
      fixture.config = nlohmann::json::parse(entry.value().toStringRef());
    } else if (key.rfind("param.", 0) == 0) {
      fixture.params.emplace_back(key.substr(6), entry.value().toTensor());
    } else if (key.rfind("in.", 0) == 0) {
      fixture.inputs.emplace(key.substr(3), entry.value().toTensor());
    } else if (key.rfind("out.", 0) == 0) {
      fixture.outputs.emplace(key.substr(4), entry.value().toTensor());
    }
  }
  return fixture;
}

namespace {

// 6 significant digits: gtest's messages print doubles in full (5.0000000000000002e-05).
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

::testing::AssertionResult all_close(const at::Tensor& actual, const at::Tensor& expected,
                                     Tolerance tolerance) {
  if (actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure()
           << "shape " << actual.sizes() << " != expected " << expected.sizes();
  }
  const at::Tensor a = actual.detach().cpu().to(at::kDouble).reshape({-1});
  const at::Tensor e = expected.detach().cpu().to(at::kDouble).reshape({-1});
  if (!at::isfinite(a).all().item<bool>()) {
    return ::testing::AssertionFailure() << "result has non-finite values";
  }
  if (a.numel() == 0) return ::testing::AssertionSuccess();
  const at::Tensor excess = (a - e).abs() - (tolerance.atol + tolerance.rtol * e.abs());
  const int64_t worst = excess.argmax().item<int64_t>();
  if (excess[worst].item<double>() <= 0) return ::testing::AssertionSuccess();
  const double got = a[worst].item<double>();
  const double want = e[worst].item<double>();
  return ::testing::AssertionFailure()
         << (excess > 0).sum().item<int64_t>() << " of " << a.numel() << " elements beyond atol "
         << number(tolerance.atol) << " + rtol " << number(tolerance.rtol)
         << " x |expected|; worst at flat index " << worst << ": " << number(got) << " vs expected "
         << number(want) << ", |difference| " << number(std::abs(got - want)) << " (max|expected| "
         << number(e.abs().max().item<double>()) << ")";
}

Tolerance parity_tolerance(const at::Tensor& expected, double fraction) {
  const double scale = expected.numel() == 0 ? 0.0 : expected.abs().max().item<double>();
  return {fraction * scale, 0.0};
}

::testing::AssertionResult matches_reference(const at::Tensor& actual, const at::Tensor& expected,
                                             double fraction) {
  return all_close(actual, expected, parity_tolerance(expected, fraction));
}

double max_abs_difference(const at::Tensor& a, const at::Tensor& b) {
  return (a.detach().cpu().to(at::kDouble) - b.detach().cpu().to(at::kDouble))
      .abs()
      .max()
      .item<double>();
}

}  // namespace tsserve::testing
