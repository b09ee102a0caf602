#pragma once
// TimeXer's name among the families and what its config derives: which variables are
// endogenous (patched, forecast) and which tokens are covariates (embedded whole, attended
// to by each endogenous variable's global token). No LibTorch.
//
// TSLib's forward picks the layout by `features`:
// - "MS" (and "S"): TSLib's forecast(). The target is a sample's last variable (TSLib's
//   loader puts it last), alone endogenous; the other N - 1 variables are covariates.
// - "M": TSLib's forecast_multi(). Every variable is endogenous and a covariate too.
// Then, with calendar tokens, each time-mark series (TSLib's x_mark) is a covariate token
// after the variables'.

#include <cstdint>
#include <string>
#include <vector>

#include "tsserve/model/model_config.h"
#include "tsserve/model/time_features.h"

namespace tsserve::model {

inline constexpr char kTimeXerFamily[] = "TimeXer";

// The calendar features TimeXer embeds as covariate tokens, in token order; empty for
// another family and for a TimeXer without calendar tokens.
std::vector<TimeFeature> timexer_calendar_features(const ModelConfig& config);

// Whether every variable is forecast ("M"), rather than the last alone ("MS", "S").
bool timexer_forecasts_every_variable(const ModelConfig& config);

// The endogenous variables of a sample of `variables`: all of them with "M", else 1.
int64_t timexer_endogenous_count(const ModelConfig& config, int64_t variables);

// The covariate tokens of a sample of `variables`: its covariate variables ("M": all N,
// "MS": the first N - 1), then the calendar tokens.
int64_t timexer_covariate_count(const ModelConfig& config, int64_t variables);

// Non-overlapping patches of the endogenous series (TSLib's unfold, step patch_len): the
// last seq_len % patch_len points are in no patch.
inline int64_t timexer_patch_count(const ModelConfig& config) {
  return config.seq_len / config.patch_len;
}

// The endogenous tokens of each variable: its patches and its global token.
inline int64_t timexer_token_count(const ModelConfig& config) {
  return timexer_patch_count(config) + 1;
}

}  // namespace tsserve::model
