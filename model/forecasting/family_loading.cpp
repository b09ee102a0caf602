#include "tsserve/model/family_loading.h"

#include <memory>
#include <stdexcept>

#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"

namespace tsserve::model {
namespace {

// Constructed on first use (registrars run before main, in no set order); read-only after.
std::vector<std::unique_ptr<const FamilyLoading>>& registry() {
  static std::vector<std::unique_ptr<const FamilyLoading>> families;
  return families;
}

}  // namespace

void register_family_loading(FamilyLoading loading) {
  for (const auto& known : registry()) {
    if (known->name == loading.name) {
      throw std::logic_error("model family \"" + loading.name + "\" registers its loading twice");
    }
  }
  registry().push_back(std::make_unique<const FamilyLoading>(std::move(loading)));
}

const FamilyLoading& family_loading(const std::string& name) {
  for (const auto& known : registry()) {
    if (known->name == name) return *known;
  }
  throw ModelError("model family \"" + name + "\" has no checkpoint loader in this build (" +
                   registered_family_names() + " do)");
}

void check_config_against_weights(const StateDict& state, const ModelConfig& config,
                                  const std::string& origin, const std::string& context) {
  config.validate();  // the products a family's shapes compute assume sizes in range
  family_loading(config.family).check_shapes(ShapeCheck(state, origin, context), config);
}

}  // namespace tsserve::model
