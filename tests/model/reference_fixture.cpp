#include "reference_fixture.h"

#include <gtest/gtest.h>
#include <torch/serialize.h>

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

ReferenceFixture load_reference_fixture(const std::string& case_name) {
  const std::string path = std::string(TSSERVE_FIXTURE_DIR) + "/" + case_name + ".pt";
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw std::runtime_error(path + " is missing: run the make_model_fixtures test first");
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

double relative_error(const at::Tensor& actual, const at::Tensor& expected) {
  if (actual.sizes() != expected.sizes()) {
    ADD_FAILURE() << "shape " << actual.sizes() << " != expected " << expected.sizes();
    return 1e30;
  }
  const at::Tensor a = actual.to(at::kDouble);
  const at::Tensor e = expected.to(at::kDouble);
  if (!at::isfinite(a).all().item<bool>()) {
    ADD_FAILURE() << "result has non-finite values";
    return 1e30;
  }
  const double scale = std::max(1.0, e.abs().max().item<double>());
  return (a - e).abs().max().item<double>() / scale;
}

}  // namespace tsserve::testing
