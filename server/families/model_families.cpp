#include "server/families/model_families.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace tsserve::server {

namespace {

// Constructed on first use (registrars run before main, in no set order); read-only after.
std::vector<std::unique_ptr<const ModelFamilyDefinition>>& registry() {
  static std::vector<std::unique_ptr<const ModelFamilyDefinition>> definitions;
  return definitions;
}

}  // namespace

void register_family_definition(ModelFamilyDefinition definition) {
  for (const auto& known : registry()) {
    if (known->family == definition.family) {
      throw std::logic_error("model family \"" + definition.family + "\" is served twice");
    }
  }
  registry().push_back(std::make_unique<const ModelFamilyDefinition>(std::move(definition)));
}

std::vector<const ModelFamilyDefinition*> model_families() {
  std::vector<const ModelFamilyDefinition*> definitions;
  for (const auto& definition : registry()) definitions.push_back(definition.get());
  std::sort(definitions.begin(), definitions.end(),
            [](const auto* a, const auto* b) { return a->family < b->family; });
  return definitions;
}

const ModelFamilyDefinition& model_family(const std::string& family) {
  for (const auto& definition : registry()) {
    if (definition->family == family) return *definition;
  }
  // The model library registered the family (its config parsed) but no server folder did.
  throw std::logic_error("model family \"" + family +
                         "\" is known to the model library but not served by this server");
}

ModelShape model_shape_of(const model::ModelConfig& config) {
  ModelShape shape;
  shape.name = config.name;
  shape.version = config.version;
  shape.family = config.family;
  shape.seq_len = config.seq_len;
  shape.pred_len = config.pred_len;
  shape.d_model = config.d_model;
  shape.n_heads = config.n_heads;
  shape.e_layers = config.e_layers;
  shape.enc_in = config.enc_in;
  shape.features = model::to_string(config.features);
  if (config.scaler) {
    shape.scaler_columns = config.scaler->columns;
    shape.scaler_mean = config.scaler->mean;
    shape.scaler_std = config.scaler->std;
  }
  if (config.calibration) shape.calibration = *config.calibration;
  model_family(config.family).describe(config, &shape);
  return shape;
}

}  // namespace tsserve::server
