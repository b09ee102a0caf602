#pragma once
// Split-conformal prediction intervals around a Forecast (tsserve/model/calibration.h):
// which of the model's calibrated levels a request asks for, and the band arithmetic.
//
// The band at level a for forecast row r (calibration column c: calibration_column) and
// step h is
//   forecast[r][h] -+ quantile(a, h, c)
// in the model's (scaled) space; store_forecast() (forecast_values.h) then writes it in the
// request's units and layout exactly as it writes the forecast, so the band there is
// unscale(forecast -+ q) = forecast_units -+ q * std[c]. Both protocols answer with it.

#include <string>
#include <vector>

#include "server/request/interval_band.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// Resolves `levels` (as the request sent them, `field` naming them in messages) into
// indices of model.calibration.levels, in the request's order, into *out. Checks, in order:
//  - INVALID_ARGUMENT: a level outside (0, 1) (NaN included), or a level given twice;
//  - FAILED_PRECONDITION: the model has no calibration (naming tsserve-calibrate's
//    command); the scaler was not applied (input.scaler_applied false: the quantiles are
//    per scaler column, in its space); an iTransformer sample whose N is not the calibrated
//    column count (its forecasts depend on which variables come together); a forecast
//    row the calibration does not cover (an "MS" target that is not the scaler's last
//    column);
//  - INVALID_ARGUMENT: a level the model was not calibrated at, listing those it was (an
//    exact match: interpolating between calibrated quantiles has no coverage guarantee).
// Empty `levels`: OK with *out empty. REQUIRES: `input` decoded (series_rows, samples,
// scaler_applied, scaler_column set).
Status resolve_interval_levels(const std::vector<double>& levels, const ForecastInput& input,
                               const ModelShape& model, const std::string& field,
                               std::vector<int32_t>* out);

// The calibration column of forecast row `forecast_row`: its scaler column, counted from
// the first the calibration covers (every column, or the scaler's last K for a model that
// forecasts only its K targets: TSLib's "MS"); -1 when the calibration does not cover it.
// REQUIRES: input.scaler_applied; model.calibration not empty.
int64_t calibration_column(const ForecastInput& input, const ModelShape& model,
                           int64_t forecast_row);

// The widths of the band at model.calibration.levels[level_index], one per forecast value
// ([forecast_rows, F]): the band is band_around(level, forecast, widths).
// REQUIRES: as interval_band.
std::vector<double> interval_widths(const ForecastInput& input, const ModelShape& model,
                                    int32_t level_index);

// The band at model.calibration.levels[level_index] around `forecast`.
// REQUIRES: resolve_interval_levels gave level_index for this input, and forecast holds
// input.forecast_rows() * model.pred_len values (check_forecast_output).
IntervalBand interval_band(const ForecastInput& input, const ModelShape& model,
                           const std::vector<float>& forecast, int32_t level_index);

}  // namespace tsserve::server
