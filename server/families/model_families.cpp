#include "server/families/model_families.h"

#include <stdexcept>

#include "server/families/encoder_decoder/encoder_decoder_family.h"
#include "server/families/itransformer/itransformer_family.h"
#include "server/families/patchtst/patchtst_family.h"

namespace tsserve::server {

const std::vector<ModelFamilyDefinition>& model_families() {
  static const std::vector<ModelFamilyDefinition> families = {
      patchtst_family(),
      itransformer_family(),
      informer_family(),
      transformer_family(),
  };
  return families;
}

const ModelFamilyDefinition& model_family(model::ModelFamily family) {
  for (const ModelFamilyDefinition& definition : model_families()) {
    if (definition.family == family) return definition;
  }
  // Every ModelFamily has a definition in the table above: reaching here is a bug.
  throw std::logic_error("model family \"" + model::to_string(family) +
                         "\" is known to the model library but not served by this server");
}

ModelShape model_shape_of(const model::ModelConfig& config) {
  ModelShape shape;
  shape.name = config.name;
  shape.version = config.version;
  shape.family = model::to_string(config.family);
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
