#pragma once
// A request's ScalerMode (request/scaler_mode.h): whether, and with which column for each
// variable, the model's dataset scaler applies to a Forecast request.

#include <cstdint>
#include <string>
#include <vector>

#include "server/codec/common/name_list.h"
#include "server/request/model_shape.h"
#include "server/request/scaler_mode.h"
#include "server/status/status.h"

namespace tsserve::server {

struct ScalerMatch {
  bool applied = false;
  // When applied: the scaler column of each variable (index into scaler_mean/std).
  std::vector<int32_t> column;
};

// How messages name the scaler's fields and modes: tsserve.v1's by default. Another
// protocol passes its own, so that a refusal names what its client actually sent (the
// Open Inference Protocol's parameters["scaler_mode"] = "required", not tsserve.v1's
// enum).
struct ScalerFields {
  const char* scaler_mode = "scaler_mode";
  const char* required = "SCALER_MODE_REQUIRED";  // the REQUIRED mode, as its client writes it
  const char* none = "SCALER_MODE_NONE";
  const char* variable_names = "variable_names";
  const char* series = "series";
};

// Matches a request's N = `variables` series (named by `variable_names`, empty or N
// unique names, already checked) against `model`'s scaler as `scaler_mode` says:
//  - kAuto: applied when the model has a scaler and either every name is a
//    column (variable n takes the column of its name) or there are no names and N equals
//    the column count (variable n takes column n); otherwise not applied. Names that are
//    not all columns never fall back to the positional match.
//  - kNone: not applied.
//  - kRequired: applied as in auto, or FAILED_PRECONDITION when the model has no scaler,
//    INVALID_ARGUMENT naming the first unknown name, or the counts when there are no names.
// Messages name the fields as `fields` says.
Status match_scaler(ScalerMode scaler_mode, NameList variable_names, int64_t variables,
                    const ModelShape& model, ScalerMatch* out, const ScalerFields& fields = {});

}  // namespace tsserve::server
