#pragma once
// The JSON API's live accuracy (GET /v1/accuracy): per served model version, the forecast
// error by horizon bucket (MAE and MSE in the model's space, as the published figures are)
// and each interval level's coverage against its nominal level, from the counters the
// server keeps for /metrics (accuracy_snapshot.h). Totals since the version was first
// scored; a figure with no point behind it is null. Written in the HTTP door, not in
// codec/v1_json: the figures come from accuracy/, a layer above the codecs.
//
//   {"counting": true,
//    "versions": [{"model": "m", "version": "1",
//                  "horizons": [{"steps": "1-24", "points": 168, "mae": 0.41, "mse": 0.33}, ...],
//                  "intervals": [{"level": 0.8, "horizons": [{"steps": "1-24",
//                                 "points": 168, "coverage": 0.79}, ...]}]}]}
//
// "counting" is false, and "versions" empty, when the server runs without metrics.

#include <optional>
#include <string>
#include <vector>

#include "server/accuracy/accuracy_snapshot.h"

namespace tsserve::server {

std::string write_accuracy_json(const std::optional<std::vector<VersionAccuracy>>& accuracy);

}  // namespace tsserve::server
