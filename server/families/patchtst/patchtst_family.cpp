#include "server/families/patchtst/patchtst_family.h"

#include "server/families/patchtst/patchtst_batches.h"
#include "server/families/serve_forecaster.h"
#include "tsserve/model/checkpoint_loader.h"

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

}  // namespace

ModelFamilyDefinition patchtst_family() {
  return {model::ModelFamily::kPatchTST, describe_patchtst, load_patchtst};
}

}  // namespace tsserve::server
