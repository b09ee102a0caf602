#include "server/families/model_families.h"

#include <stdexcept>

#include "tsserve/model/named_registry.h"

namespace tsserve::server {
namespace {

model::NamedRegistry<ModelFamilyDefinition>& registry() {
  static model::NamedRegistry<ModelFamilyDefinition> definitions;
  return definitions;
}

}  // namespace

void register_family_definition(ModelFamilyDefinition definition) {
  std::string family = definition.family;
  registry().add(std::move(family), std::move(definition), "served model family");
}

std::vector<const ModelFamilyDefinition*> model_families() { return registry().by_name(); }

const ModelFamilyDefinition& model_family(const std::string& family) {
  if (const ModelFamilyDefinition* definition = registry().find(family)) return *definition;
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
