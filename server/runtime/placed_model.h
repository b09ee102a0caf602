#pragma once
// A family's model on its device: what every runner holds and answers alike (its config,
// device and threads), so each runner adds only its own forward calls. Runners derive
// from PlacedModel<model::PatchTST>, PlacedModel<model::ITransformer>, ...

#include <string>
#include <utility>

#include "server/runtime/model_placement.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

template <typename Model>
class PlacedModel {
 public:
  // Moves `model` to options.device in eval mode and sets the threads (ModelPlacement).
  // Throws model::ModelError.
  PlacedModel(Model model, const RunnerOptions& options)
      : model_(std::move(model)), placement_(*model_, options) {}

  const model::ModelConfig& config() const { return model_->config(); }
  // "cpu" or "cuda:N".
  const std::string& device_name() const { return placement_.device_name(); }
  int threads() const { return placement_.threads(); }

 protected:
  at::Device device() const { return placement_.device(); }

  // mutable: LibTorch's forward() is non-const, though eval-mode forwards change nothing.
  mutable Model model_;

 private:
  ModelPlacement placement_;
};

}  // namespace tsserve::server
