#pragma once
// The model families tsserve serves: one definition each, in one table
// (model_families.cpp). A definition says how a config of its family becomes the codecs'
// view of the model (ModelShape) and a ServedModel (its forecaster, from model/, and its
// batch processors); the rest of the server holds those and never a family's name. A new
// family is a folder server/families/<family>/ with its batch processor and definition
// (its forecaster is model/families/<family>/'s), plus one line in the table.
//
// No LibTorch in this header: the wiring (app/) reads the shape before it loads.

#include <vector>

#include "server/families/model_family_definition.h"
#include "server/request/model_shape.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server {

// Every family served, in registration order.
const std::vector<ModelFamilyDefinition>& model_families();

// The definition of `family`; every ModelFamily has one (std::logic_error otherwise: a bug).
const ModelFamilyDefinition& model_family(model::ModelFamily family);

// The codecs' view of a model of any family: the config's sizes, scaler and calibration,
// and what its family's describe() adds.
ModelShape model_shape_of(const model::ModelConfig& config);

}  // namespace tsserve::server
