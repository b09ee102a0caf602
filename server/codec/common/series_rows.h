#pragma once
// A Forecast request's series -> the model's input rows, whatever protocol carried it:
// the checks on its geometry, the scaler, and the one pass that gathers the last T points
// of each variable while checking that every value is finite. tsserve.v1
// (forecast_request_decoder) and the Open Inference Protocol (oip_request_decoder) differ
// only in where they find the numbers and how they name the fields; both end here, so a
// request is validated and turned into rows by one piece of code.

#include <cstdint>
#include <string>

#include "server/codec/common/name_list.h"
#include "server/codec/common/scaler_matching.h"
#include "server/codec/common/series_geometry.h"
#include "server/codec/common/tensor_codec.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// B >= 1, N >= 1, B * N <= limits.max_series_rows, T_in >= T (= g.used); INVALID_ARGUMENT
// naming the field and the expectation otherwise.
Status check_series_geometry(const SeriesGeometry& g, const SeriesNames& names,
                             const RequestLimits& limits);

// `names` (field `field`): empty, or `variables` unique names; INVALID_ARGUMENT otherwise.
Status check_variable_names(NameList names, int64_t variables,
                            const char* field = "variable_names");

// Gathers `series` (laid out as `g`; structurally valid) into out->rows [B * N, T], scaled
// by `scaler` (matched for the N variables of one sample, the same for every sample), and
// sets out->series_rows (B * N), samples, input_points_used, scaler_applied, scaler_column
// (one per row), variables_by_time and variable_names. INVALID_ARGUMENT naming the first
// value in row-major order of the series as sent that is not finite, or that scaling
// pushes beyond float range (the skipped points are checked too), or then one the model
// cannot normalise (check_input_magnitude, input_magnitude.h). REQUIRES:
// check_series_geometry(g).ok(), `variable_names` empty or N names.
Status gather_series(const TensorView& series, const SeriesGeometry& g, const SeriesNames& names,
                     NameList variable_names, const ModelShape& model, ScalerMatch scaler,
                     ForecastInput* out);

}  // namespace tsserve::server
