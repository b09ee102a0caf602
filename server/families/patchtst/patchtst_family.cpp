// PatchTST (Nie et al., ICLR 2023) as a served family: channel independent, so every
// variable of every request is a row of its own, and its attention maps are per variable
// over its P patches.

#include "tsserve/model/patchtst_family.h"

#include "server/families/model_family_definition.h"
#include "server/families/patchtst/patchtst_batches.h"
#include "server/families/serve_forecaster.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/patchtst_forecaster.h"

namespace tsserve::server {
namespace {

void describe_patchtst(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kVariableRow;
  shape->patch_len = config.patch_len;
  shape->stride = config.stride;
  shape->patch_count = config.patch_count();
  shape->map_sides.assign(static_cast<size_t>(config.e_layers), config.patch_count());
}

LoadedFamily load_patchtst(const std::string& checkpoint, const model::ModelConfig& config,
                           const std::string& config_origin,
                           const model::ForecasterOptions& options) {
  return serve_forecaster(std::make_unique<model::PatchTSTForecaster>(
                              model::load_patchtst(checkpoint, config, config_origin), options),
                          patchtst_forecast_processor);
}

const FamilyDefinitionRegistrar kPatchTST({model::kPatchTSTFamily, describe_patchtst,
                                           load_patchtst});

}  // namespace

}  // namespace tsserve::server
