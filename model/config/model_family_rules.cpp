#include "tsserve/model/model_family_rules.h"

#include "tsserve/model/named_registry.h"

namespace tsserve::model {
namespace {

NamedRegistry<ModelFamilyRules>& registry() {
  static NamedRegistry<ModelFamilyRules> families;
  return families;
}

}  // namespace

void register_model_family(ModelFamilyRules rules) {
  std::string name = rules.name;
  registry().add(std::move(name), std::move(rules), "model family");
}

std::vector<const ModelFamilyRules*> model_family_rules() { return registry().by_name(); }

const ModelFamilyRules* find_model_family(const std::string& name) { return registry().find(name); }

std::string registered_family_names() {
  std::string names;
  for (const ModelFamilyRules* rules : model_family_rules()) {
    names += (names.empty() ? "\"" : ", \"") + rules->name + "\"";
  }
  return names;
}

}  // namespace tsserve::model
