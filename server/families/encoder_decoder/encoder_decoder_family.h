#pragma once
// TSLib's encoder-decoder forecasters as served families: Informer (ProbSparse attention,
// distilling) and the vanilla Transformer (Full attention), one forecaster for both
// (model::EncoderDecoder). A request's unit is a sample of enc_in variables with
// timestamps: the model reads the time marks of the input steps and of the forecast's
// steps continued from them. Its attention maps are per sample and encoder layer, over
// time steps (the layers' lengths shrink with distilling).
//
// Served: features "M" with c_out = enc_in (a forecast per input variable), "S" (one
// variable) and "MS" (N variables in, the target out: the sample's last variable, as
// TSLib's loader puts the target last; ModelShape::forecast_variables = 1). "M" with
// c_out != enc_in is refused at load: which variables its columns are goes unsaid.

#include "server/families/model_family_definition.h"

namespace tsserve::server {

ModelFamilyDefinition informer_family();
ModelFamilyDefinition transformer_family();

}  // namespace tsserve::server
