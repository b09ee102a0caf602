#include "server/runtime/model_runner.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>

#include "tsserve/model/fused_forward.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {
namespace {

at::Tensor to_cpu(const at::Tensor& t) { return t.device().is_cpu() ? t : t.cpu(); }

}  // namespace

at::Device parse_device(const std::string& text) {
  if (text == "cpu") return at::Device(at::kCPU);
  const bool cuda_available = torch::cuda::is_available();
  if (text == "auto") return cuda_available ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (text == "cuda" || text.rfind("cuda:", 0) == 0) {
    if (!cuda_available) {
      throw model::ModelError("device \"" + text +
                              "\": this LibTorch build has no CUDA support or sees no GPU "
                              "(use --device cpu, or auto to pick cuda only when present)");
    }
    int index = 0;
    if (text.size() > 5) {
      const std::string digits = text.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
        throw model::ModelError("device \"" + text + "\": expected cuda:N with N a GPU index");
      }
      index = std::stoi(digits);
    }
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (index >= count) {
      throw model::ModelError("device \"" + text + "\": only " + std::to_string(count) +
                              " GPU(s) visible");
    }
    return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw model::ModelError("device \"" + text + "\": expected cpu, cuda, cuda:N or auto");
}

bool runs_on_cuda(const std::string& device) { return parse_device(device).is_cuda(); }

ModelRunner::ModelRunner(model::PatchTST model, const RunnerOptions& options)
    : model_(std::move(model)), device_(parse_device(options.device)), threads_(options.threads) {
  if (options.threads < 1) throw model::ModelError("threads must be at least 1");
  tsserve::model::set_intra_op_threads(options.threads);
  device_name_ = device_.str();
  model_->to(device_);
  model_->eval();
  forecaster_ = std::make_unique<model::RowForecaster>(model_, options.cpu_kernels);
  kernels_.fallback_reason = forecaster_->fallback_reason();
  kernels_.name = forecaster_->uses_fused_kernels()
                      ? std::string("fused-") + model::fused_instruction_set()
                      : "torch";

  const auto& config = model_->config();
  c10::InferenceMode guard;
  for (int64_t rows : {int64_t{1}, std::max<int64_t>(1, options.warm_up_rows)}) {
    forecast(at::zeros({rows, config.seq_len}));
    attention_maps(at::zeros({rows, config.seq_len}));
  }
  encode(at::zeros({1, config.patch_count(), config.d_model}), true);
}

at::Tensor ModelRunner::forecast(const at::Tensor& rows) const {
  c10::InferenceMode guard;
  // The fused kernels read the CPU rows in place; the LibTorch path moves them over.
  const at::Tensor input = forecaster_->uses_fused_kernels() ? rows : rows.to(device_);
  return to_cpu(forecaster_->forecast_rows(input).forecast);
}

std::vector<at::Tensor> ModelRunner::attention_maps(const at::Tensor& rows) const {
  c10::InferenceMode guard;
  model::RowForecast out = model_->forecast_rows(rows.to(device_), true);
  std::vector<at::Tensor> maps;
  for (const auto& layer : out.attention) maps.push_back(to_cpu(layer));
  return maps;
}

model::EncoderOutput ModelRunner::encode(const at::Tensor& tokens, bool need_attention) const {
  c10::InferenceMode guard;
  model::EncoderOutput out = model_->encode(tokens.to(device_), {}, need_attention);
  out.output = to_cpu(out.output);
  for (auto& layer : out.weights) layer = to_cpu(layer);
  return out;
}

}  // namespace tsserve::server
