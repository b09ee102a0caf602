#pragma once
// What a served model family is (one per folder of server/families/): how a config of the
// family becomes the codecs' view of the model (ModelShape) and a loaded forecaster with
// its batch processors (what a ServedModel holds). Each family's folder registers its own
// (FamilyDefinitionRegistrar); model_families.h finds them.
//
// No LibTorch in this header.

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "server/batching/dynamic_batcher.h"
#include "server/request/model_shape.h"
#include "server/runtime/batch_observer.h"
#include "tsserve/model/forecaster.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

// Makes a batch processor that reports to `observer`.
using ProcessorFactory = std::function<DynamicBatcher::Processor(BatchObserver* observer)>;

// A family's loaded forecaster and the factories of its Forecast and Encode processors,
// which hold a reference to that forecaster (serve_forecaster.h makes one).
struct LoadedFamily {
  std::unique_ptr<model::Forecaster> forecaster;
  ProcessorFactory forecast;
  ProcessorFactory encode;
};

struct ModelFamilyDefinition {
  // TSLib's name of the family, as the model library registers it (model_family_rules.h).
  std::string family;
  // Fills what the codecs need of this family (how a request's variables and timestamps
  // reach the model, the attention maps' sides); model_shape_of fills the rest.
  void (*describe)(const model::ModelConfig& config, ModelShape* shape);
  // Loads `checkpoint` as `config` says (parsed once by the caller, the server's options
  // applied; `config_origin` names its file in messages), moves it to the device and warms
  // it up. Throws model::ModelError (or std::exception) with a message for the operator.
  LoadedFamily (*load)(const std::string& checkpoint, const model::ModelConfig& config,
                       const std::string& config_origin, const model::ForecasterOptions& options);
};

// Adds a family's definition; a second of the same name is a std::logic_error. Called by a
// family's registrar, before main.
void register_family_definition(ModelFamilyDefinition definition);

// Registers `definition` when constructed: one static instance in the family's folder,
// whose library the build links whole (server/families/CMakeLists.txt).
struct FamilyDefinitionRegistrar {
  explicit FamilyDefinitionRegistrar(ModelFamilyDefinition definition) {
    register_family_definition(std::move(definition));
  }
};

}  // namespace tsserve::server
