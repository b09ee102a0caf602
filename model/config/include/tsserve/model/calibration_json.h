#pragma once
// The config's "calibration" block (calibration.h) to and from JSON:
//
//   "calibration": {
//     "method": "split conformal: |residual| quantile, rank ceil((n+1)*level) of n",
//     "space": "scaled",
//     "dataset": "ETTh1.csv", "split": "8640/2880/2880",
//     "rows": [8304, 11520], "windows": 2785,
//     "levels": [0.5, 0.8, 0.9, 0.95, 0.99],
//     "quantiles": [[[q(level 0, step 0, column 0), ...columns], ...pred_len], ...levels]
//   }
//
// Quantiles are written to 7 significant digits (float's precision; the model computes in
// float), which keeps a 5-level, 96-step, 7-column block near 40 KB.

#include <nlohmann/json.hpp>
#include <string>

#include "tsserve/model/calibration.h"

namespace tsserve::model {

// Reads the block; the shape checks against the model are calibration_error's. Throws
// ModelError "model config ORIGIN: 'calibration...' ..." naming the key at fault.
Calibration calibration_from_json(const nlohmann::json& block, const std::string& origin);

nlohmann::ordered_json calibration_to_json(const Calibration& calibration);

// `root` as JSON with 2-space indents, except that an array holding only numbers stays on
// one line (a quantile row, the scaler's means): the block is then ~500 short lines, not
// one line per number. Parses back to the same JSON.
std::string dump_config(const nlohmann::ordered_json& root);

// `value` rounded to 7 significant digits (JSON then prints it short).
double round_to_float_digits(double value);

}  // namespace tsserve::model
