#pragma once
// iTransformer (Liu et al., ICLR 2024) as a served family: its tokens are the variables
// (then one per calendar feature), so a request's unit is a sample of N variables that
// attend to each other, its maps are per sample and layer over those N + C tokens, and
// timestamps become the calendar tokens.

#include "server/families/model_family_definition.h"

namespace tsserve::server {

ModelFamilyDefinition itransformer_family();

}  // namespace tsserve::server
