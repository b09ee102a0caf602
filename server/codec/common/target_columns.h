#pragma once
// A request's target and its covariates by name, for a model that forecasts a target from
// covariates (ModelShape::forecast_variables > 0: TSLib's features "MS", a TimeXer or an
// Informer or Transformer trained so): the columns put in the order the model reads them,
// the target last, as TSLib's loader ordered them in training.
//
// - With a scaler (the dataset's columns, in training order): the request's columns must
//   be exactly the scaler's, in any order; they are put in the scaler's order, so its last
//   column (the model's target) is the target. A `target` naming another column is
//   refused: the weights forecast that one column alone.
// - Without a scaler: a `target` names the column to forecast, moved last; the others keep
//   the request's order. Without one, the last column is the target.
// - A model that forecasts every variable (features "M") refuses a `target`.
// Refusals are INVALID_ARGUMENT naming the field ("target", "series") and the expectation.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/codec/common/forecast_request_view.h"
#include "server/request/model_shape.h"
#include "server/status/status.h"

namespace tsserve::server {

struct TargetFields {
  const char* target = "target";
  const char* series = "series";
};

// Arranges `request`'s columns (and their values) as above; attention's variable indices
// follow their columns. `request_index` (when not null) gets the request's index of each
// column in its new place, or is left empty when nothing moved
// (ForecastInput::request_variables). Leaves `request` as it was on a refusal.
Status arrange_target_columns(const std::optional<std::string>& target, const ModelShape& model,
                              PlainForecastRequest* request,
                              std::vector<int32_t>* request_index = nullptr,
                              const TargetFields& fields = {});

}  // namespace tsserve::server
