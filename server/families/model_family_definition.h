#pragma once
// What a served model family is (one per folder of server/families/): how a config of the
// family becomes the codecs' view of the model (ModelShape) and a loaded ServedModel (its
// forecaster and batch processors). Each family's header returns one; model_families.cpp
// lists them.
//
// No LibTorch in this header.

#include <memory>
#include <string>

#include "server/families/served_model.h"
#include "server/request/model_shape.h"
#include "tsserve/model/forecaster.h"
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
  std::unique_ptr<ServedModel> (*load)(const std::string& checkpoint,
                                       const model::ModelConfig& config,
                                       const std::string& config_origin,
                                       const model::ForecasterOptions& options);
};

}  // namespace tsserve::server
