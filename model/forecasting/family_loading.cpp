#include "tsserve/model/family_loading.h"

#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"
#include "tsserve/model/named_registry.h"

namespace tsserve::model {
namespace {

NamedRegistry<FamilyLoading>& registry() {
  static NamedRegistry<FamilyLoading> families;
  return families;
}

}  // namespace

void register_family_loading(FamilyLoading loading) {
  std::string name = loading.name;
  registry().add(std::move(name), std::move(loading), "the loading of model family");
}

const FamilyLoading& family_loading(const std::string& name) {
  if (const FamilyLoading* loading = registry().find(name)) return *loading;
  throw ModelError("model family \"" + name + "\" has no checkpoint loader in this build (" +
                   registered_family_names() + " do)");
}

void check_config_against_weights(const StateDict& state, const ModelConfig& config,
                                  const std::string& origin, const std::string& context) {
  config.validate();  // the products a family's shapes compute assume sizes in range
  family_loading(config.family).check_shapes(ShapeCheck(state, origin, context), config);
}

}  // namespace tsserve::model
