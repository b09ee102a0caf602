#pragma once
// The model families tsserve serves: one definition each, in one table
// (model_families.cpp). A definition says how a config of its family becomes the codecs'
// view of the model (ModelShape) and a loaded runtime (FamilyRuntime); the rest of the
// server holds those two and never a family's name. A new family is a folder
// server/families/<family>/ with its runner and batch processor, plus one line in the
// table.
//
// No LibTorch in this header: the wiring (app/) reads the shape before it loads.

#include <memory>
#include <string>
#include <vector>

#include "server/request/model_shape.h"
#include "server/runtime/family_runtime.h"
#include "server/runtime/runner_options.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

struct ModelFamilyDefinition {
  model::ModelFamily family;
  // Fills what the codecs need of this family (how a request's variables and timestamps
  // reach the model, the attention maps' sides); model_shape_of fills the rest.
  void (*describe)(const model::ModelConfig& config, ModelShape* shape);
  // Loads `checkpoint` as `config` says (parsed once by the caller, the server's options
  // applied; `config_origin` names its file in messages), moves it to the device and warms
  // it up. Throws model::ModelError (or std::exception) with a message for the operator.
  std::unique_ptr<FamilyRuntime> (*load)(const std::string& checkpoint,
                                         const model::ModelConfig& config,
                                         const std::string& config_origin,
                                         const RunnerOptions& options);
};

// Every family served, in registration order.
const std::vector<ModelFamilyDefinition>& model_families();

// The definition of `family`; throws model::ModelError when this server has none.
const ModelFamilyDefinition& model_family(model::ModelFamily family);

// The codecs' view of a model of any family: the config's sizes, scaler and calibration,
// and what its family's describe() adds.
ModelShape model_shape_of(const model::ModelConfig& config);

}  // namespace tsserve::server
