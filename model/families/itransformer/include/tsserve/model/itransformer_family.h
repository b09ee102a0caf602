#pragma once
// The iTransformer's name among the families and what its config derives (its rules,
// registered by itransformer_family.cpp: the calendar checks, the summary's tokens, its
// checkpoint marker). No LibTorch.

#include <vector>

#include "tsserve/model/model_config.h"
#include "tsserve/model/time_features.h"

namespace tsserve::model {

inline constexpr char kITransformerFamily[] = "iTransformer";

// The calendar features an iTransformer embeds as extra tokens, in token order; empty for
// another family and for an iTransformer without calendar tokens.
std::vector<TimeFeature> calendar_features(const ModelConfig& config);

}  // namespace tsserve::model
