#pragma once
// The model families tsserve serves: one definition each, registered by its folder. A
// definition says how a config of its family becomes the codecs' view of the model
// (ModelShape) and a ServedModel (its forecaster, from model/, and its batch processors);
// the rest of the server holds those and never a family's name. A new family is a folder
// server/families/<family>/ with its batch processor and definition (its forecaster is
// model/families/<family>/'s), and its name in TSSERVE_FAMILIES (the top CMakeLists.txt).
//
// No LibTorch in this header: the wiring (app/) reads the shape before it loads.

#include <string>
#include <vector>

#include "server/families/model_family_definition.h"
#include "server/request/model_shape.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

// Every family served, by name.
std::vector<const ModelFamilyDefinition*> model_families();

// The definition of `family`. Every family the model library registers has one
// (std::logic_error otherwise: a family folder linked on one side only).
const ModelFamilyDefinition& model_family(const std::string& family);

// The codecs' view of a model of any family: the config's sizes, scaler and calibration,
// and what its family's describe() adds.
ModelShape model_shape_of(const model::ModelConfig& config);

}  // namespace tsserve::server
