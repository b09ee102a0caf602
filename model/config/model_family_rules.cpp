#include "tsserve/model/model_family_rules.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace tsserve::model {
namespace {

// Constructed on first use, so a registrar running before this file's statics is safe.
// Written only before main (registrars); read-only after.
std::vector<std::unique_ptr<const ModelFamilyRules>>& registry() {
  static std::vector<std::unique_ptr<const ModelFamilyRules>> families;
  return families;
}

}  // namespace

void register_model_family(ModelFamilyRules rules) {
  if (find_model_family(rules.name) != nullptr) {
    throw std::logic_error("model family \"" + rules.name + "\" is registered twice");
  }
  registry().push_back(std::make_unique<const ModelFamilyRules>(std::move(rules)));
}

std::vector<const ModelFamilyRules*> model_family_rules() {
  std::vector<const ModelFamilyRules*> families;
  for (const auto& rules : registry()) families.push_back(rules.get());
  std::sort(families.begin(), families.end(),
            [](const ModelFamilyRules* a, const ModelFamilyRules* b) { return a->name < b->name; });
  return families;
}

const ModelFamilyRules* find_model_family(const std::string& name) {
  for (const auto& rules : registry()) {
    if (rules->name == name) return rules.get();
  }
  return nullptr;
}

std::string registered_family_names() {
  std::string names;
  for (const ModelFamilyRules* rules : model_family_rules()) {
    names += (names.empty() ? "\"" : ", \"") + rules->name + "\"";
  }
  return names;
}

}  // namespace tsserve::model
