#pragma once
// The line between a series the model can normalise and one it cannot: each variable's
// last T points, in the model's space (after the dataset scaler), must not exceed the
// magnitude model::largest_normalisable_magnitude(T) (tsserve/model/normalisation_limit.h
// derives it), or the instance normalisation overflows float32 and the forecast is not a
// number. Both protocols check it in gather_series (series_rows.h), after the gather.

#include <string>

#include "server/codec/common/name_list.h"
#include "server/codec/common/scaler_matching.h"
#include "server/codec/common/series_geometry.h"
#include "server/codec/common/tensor_codec.h"
#include "server/request/model_shape.h"
#include "server/status/status.h"

namespace tsserve::server {

// OK when every value of `rows` ([g.rows(), g.used], the model's input gathered from
// `series`) has magnitude <= the model's limit for T = g.used. Otherwise INVALID_ARGUMENT
// naming the first such value in row-major order of the series as sent: its field and
// position, its variable (by name when `variable_names` gives them, else by index), the
// value (and its scaled value, when `scaler` applied), and the largest magnitude accepted
// (in the data's units too, when scaled). REQUIRES: every value of `rows` is finite.
Status check_input_magnitude(const TensorView& series, const SeriesGeometry& g,
                             const SeriesNames& names, NameList variable_names,
                             const ModelShape& model, const ScalerMatch& scaler, const float* rows);

}  // namespace tsserve::server
