#include "server/families/patchtst/patchtst_family.h"

#include "server/families/patchtst/patchtst_batches.h"
#include "server/families/patchtst/patchtst_runner.h"
#include "server/runtime/encode_batches.h"
#include "server/runtime/module_bytes.h"
#include "tsserve/model/checkpoint_loader.h"

namespace tsserve::server {
namespace {

class PatchTSTRuntime final : public FamilyRuntime {
 public:
  PatchTSTRuntime(model::PatchTST model, const RunnerOptions& options)
      : resident_bytes_(module_bytes(*model)), runner_(std::move(model), options) {}

  const model::ModelConfig& config() const override { return runner_.config(); }
  const std::string& device_name() const override { return runner_.device_name(); }
  int threads() const override { return runner_.threads(); }
  const ServingKernels& kernels() const override { return runner_.kernels(); }
  int64_t resident_bytes() const override { return resident_bytes_; }
  DynamicBatcher::Processor forecast_processor(BatchObserver* observer) const override {
    return patchtst_forecast_processor(runner_, observer);
  }
  DynamicBatcher::Processor encode_processor(BatchObserver* observer) const override {
    return server::encode_processor(runner_, observer);
  }

 private:
  int64_t resident_bytes_;
  PatchTSTRunner runner_;
};

void describe_patchtst(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kVariableRow;
  shape->patch_len = config.patch_len;
  shape->stride = config.stride;
  shape->patch_count = config.patch_count();
  shape->map_sides.assign(static_cast<size_t>(config.e_layers), config.patch_count());
}

std::unique_ptr<FamilyRuntime> load_patchtst(const std::string& checkpoint,
                                             const model::ModelConfig& config,
                                             const std::string& config_origin,
                                             const RunnerOptions& options) {
  return std::make_unique<PatchTSTRuntime>(model::load_patchtst(checkpoint, config, config_origin),
                                           options);
}

}  // namespace

ModelFamilyDefinition patchtst_family() {
  return {model::ModelFamily::kPatchTST, describe_patchtst, load_patchtst};
}

}  // namespace tsserve::server
