#include "server/runtime/served_model.h"

#include "server/runtime/batch_processors.h"
#include "server/runtime/itransformer_batches.h"
#include "server/runtime/itransformer_runner.h"
#include "server/runtime/model_loading.h"
#include "server/runtime/model_runner.h"

namespace tsserve::server {
namespace {

int64_t tensor_bytes(const torch::nn::Module& module) {
  int64_t bytes = 0;
  for (const at::Tensor& tensor : module.parameters(/*recurse=*/true))
    bytes += static_cast<int64_t>(tensor.numel() * tensor.element_size());
  for (const at::Tensor& tensor : module.buffers(/*recurse=*/true))
    bytes += static_cast<int64_t>(tensor.numel() * tensor.element_size());
  return bytes;
}

}  // namespace

std::unique_ptr<ServedModel> ServedModel::load(const ModelOptions& options,
                                               const RunnerOptions& runner_options) {
  std::unique_ptr<ServedModel> served(new ServedModel());
  if (served_model_config(options).family == model::ModelFamily::kITransformer) {
    model::ITransformer model = load_itransformer_model(options);
    served->resident_bytes_ = tensor_bytes(*model);
    served->itransformer_ = std::make_unique<ITransformerRunner>(model, runner_options);
    served->itransformer_kernels_.name = "torch";
    if (runner_options.cpu_kernels == model::CpuKernels::kFused) {
      served->itransformer_kernels_.fallback_reason =
          "the fused CPU kernels cover PatchTST only; iTransformer runs on LibTorch";
    }
  } else {
    model::PatchTST model = load_model(options);
    served->resident_bytes_ = tensor_bytes(*model);
    served->patchtst_ = std::make_unique<ModelRunner>(model, runner_options);
  }
  return served;
}

ServedModel::~ServedModel() = default;

const model::ModelConfig& ServedModel::config() const {
  return patchtst_ ? patchtst_->config() : itransformer_->config();
}

const std::string& ServedModel::device_name() const {
  return patchtst_ ? patchtst_->device_name() : itransformer_->device_name();
}

int ServedModel::threads() const {
  return patchtst_ ? patchtst_->threads() : itransformer_->threads();
}

const ServingKernels& ServedModel::kernels() const {
  return patchtst_ ? patchtst_->kernels() : itransformer_kernels_;
}

DynamicBatcher::Processor ServedModel::forecast_processor(BatchObserver* observer) const {
  return patchtst_ ? server::forecast_processor(*patchtst_, observer)
                   : itransformer_forecast_processor(*itransformer_, observer);
}

DynamicBatcher::Processor ServedModel::encode_processor(BatchObserver* observer) const {
  return patchtst_ ? server::encode_processor(*patchtst_, observer)
                   : server::encode_processor(*itransformer_, observer);
}

}  // namespace tsserve::server
