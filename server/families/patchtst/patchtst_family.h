#pragma once
// PatchTST (Nie et al., ICLR 2023) as a served family: channel independent, so every
// variable of every request is a row of its own, and its attention maps are per variable
// over its P patches.

#include "server/families/model_family_definition.h"

namespace tsserve::server {

ModelFamilyDefinition patchtst_family();

}  // namespace tsserve::server
