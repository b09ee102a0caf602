#pragma once
// Runs the loaded model on its device: the one place the server touches LibTorch.
//
// Inputs and outputs are CPU tensors; the runner moves them to and from the device and
// runs under inference mode. Forward calls may come from several batcher workers at once
// (the model holds no mutable state in eval mode, so instances share its weights).
//
// Errors: the constructor throws model::ModelError for a device it cannot use (e.g. cuda
// with a CPU-only LibTorch); forward calls let LibTorch's exceptions through, and the
// batch processors turn them into INTERNAL for the batch's requests.

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "tsserve/model/patchtst.h"

namespace tsserve::server {

struct RunnerOptions {
  // "cpu", "cuda", "cuda:N", or "auto" (cuda when LibTorch sees a GPU, else cpu).
  std::string device = "cpu";
  // LibTorch intra-op threads. Process-wide in LibTorch, so the last runner made wins.
  int threads = 1;
  // Largest batch the warm-up runs, so first requests do not pay for allocations.
  int64_t warm_up_rows = 64;
};

struct ForecastRows {
  at::Tensor forecast;                // [R, pred_len], CPU, in the rows' (scaled) units
  std::vector<at::Tensor> attention;  // per layer [R, H, P, P], CPU; empty unless asked
};

class ModelRunner {
 public:
  // Moves `model` to the device, sets the threads and warms up (forecast at 1 and
  // warm_up_rows rows, encode at patch_count tokens). Throws model::ModelError.
  ModelRunner(model::PatchTST model, const RunnerOptions& options);

  // rows [R, seq_len] float32 CPU.
  ForecastRows forecast(const at::Tensor& rows, bool need_attention) const;

  // tokens [B, L, d_model] float32 CPU -> output [B, L, d_model] CPU; attention per layer
  // [B, H, L, L] when asked.
  model::EncoderOutput encode(const at::Tensor& tokens, bool need_attention) const;

  const model::ModelConfig& config() const { return model_->config(); }
  // "cpu" or "cuda:N".
  const std::string& device_name() const { return device_name_; }
  int threads() const { return threads_; }

 private:
  // mutable: LibTorch's forward() is non-const, though eval-mode forwards change nothing.
  mutable model::PatchTST model_;
  at::Device device_;
  std::string device_name_;
  int threads_;
};

// Parses a device option; throws model::ModelError naming the option and the choices, or
// saying that this LibTorch build has no CUDA.
at::Device parse_device(const std::string& text);

}  // namespace tsserve::server
