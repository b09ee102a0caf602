#pragma once
// What every family's forecaster answers alike (its config, device, threads, kernels and
// bytes), over its LibTorch model placed on its device, so each family writes only its
// forecast calls, its choice of kernels and its warm-up. PatchTSTForecaster derives from
// PlacedForecaster<PatchTST>, and so on.

#include <cstdint>
#include <string>
#include <utility>

#include "tsserve/model/forecaster.h"
#include "tsserve/model/placement.h"

namespace tsserve::model {

template <typename Model>
class PlacedForecaster : public Forecaster {
 public:
  const ModelConfig& config() const final { return model_->config(); }
  const std::string& device_name() const final { return placement_.device_name; }
  int threads() const final { return placement_.threads; }
  const ServingKernels& kernels() const final { return kernels_; }
  int64_t resident_bytes() const final { return resident_bytes_; }

 protected:
  // Moves `model` to options.device in eval mode and sets the threads (place()). Throws
  // ModelError.
  PlacedForecaster(Model model, const ForecasterOptions& options)
      : resident_bytes_(module_bytes(*model)),
        model_(std::move(model)),
        placement_(place(*model_, options)) {}

  at::Device device() const { return placement_.device; }

 private:
  int64_t resident_bytes_;  // measured before the model moves to its device

 protected:
  // mutable: LibTorch's forward() is non-const, though eval-mode forwards change nothing.
  mutable Model model_;
  ServingKernels kernels_;  // the family's constructor says which forward serves

 private:
  Placement placement_;
};

}  // namespace tsserve::model
