#include "server/families/itransformer/itransformer_family.h"

#include "server/families/itransformer/itransformer_batches.h"
#include "server/families/itransformer/itransformer_runner.h"
#include "server/runtime/encode_batches.h"
#include "server/runtime/module_bytes.h"
#include "tsserve/model/checkpoint_loader.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {
namespace {

class ITransformerRuntime final : public FamilyRuntime {
 public:
  ITransformerRuntime(model::ITransformer model, const RunnerOptions& options)
      : resident_bytes_(module_bytes(*model)), runner_(std::move(model), options) {
    kernels_.name = "torch";
    if (options.cpu_kernels == model::CpuKernels::kFused) {
      kernels_.fallback_reason =
          "the fused CPU kernels cover PatchTST only; iTransformer runs on LibTorch";
    }
  }

  const model::ModelConfig& config() const override { return runner_.config(); }
  const std::string& device_name() const override { return runner_.device_name(); }
  int threads() const override { return runner_.threads(); }
  const ServingKernels& kernels() const override { return kernels_; }
  int64_t resident_bytes() const override { return resident_bytes_; }
  DynamicBatcher::Processor forecast_processor(BatchObserver* observer) const override {
    return itransformer_forecast_processor(runner_, observer);
  }
  DynamicBatcher::Processor encode_processor(BatchObserver* observer) const override {
    return server::encode_processor(runner_, observer);
  }

 private:
  int64_t resident_bytes_;
  ITransformerRunner runner_;
  ServingKernels kernels_;
};

void describe_itransformer(const model::ModelConfig& config, ModelShape* shape) {
  shape->unit = SampleUnit::kSample;
  shape->any_variable_count = config.any_variable_count;
  shape->calendar = config.calendar_features();
  shape->time_inputs = shape->calendar.empty() ? TimeInputs::kNone : TimeInputs::kFeatureTokens;
  shape->map_sides.clear();  // a map spans the sample's N variables and C calendar tokens
}

std::unique_ptr<FamilyRuntime> load_itransformer(const std::string& checkpoint,
                                                 const model::ModelConfig& config,
                                                 const std::string& config_origin,
                                                 const RunnerOptions& options) {
  if (!config.any_variable_count && config.enc_in < 1) {
    throw model::ModelError("model config " + config_origin +
                            ": 'enc_in' must give the variables this iTransformer was trained "
                            "on (>= 1), got " +
                            std::to_string(config.enc_in) +
                            "; requests must carry that many, unless 'any_variable_count' is "
                            "true");
  }
  return std::make_unique<ITransformerRuntime>(
      model::load_itransformer(checkpoint, config, config_origin), options);
}

}  // namespace

ModelFamilyDefinition itransformer_family() {
  return {model::ModelFamily::kITransformer, describe_itransformer, load_itransformer};
}

}  // namespace tsserve::server
