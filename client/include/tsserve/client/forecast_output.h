#pragma once
// A forecast written for people (an aligned table) or programs (CSV, JSON).

#include <ostream>
#include <string>

#include "tsserve/client/forecast_call.h"

namespace tsserve::client {

enum class OutputFormat { kTable, kCsv, kJson };

// "table", "csv", "json"; throws std::invalid_argument naming the accepted values.
OutputFormat parse_output_format(const std::string& text);
// From a file name's extension (.csv, .json); throws std::invalid_argument otherwise.
OutputFormat output_format_for_path(const std::string& path);

// Table and CSV: one row per forecast step (labelled by time when known), one column per
// variable, each followed, when intervals were asked for, by "NAME loP" and "NAME hiP"
// per level (P: the level in percent). JSON: {"model", "version", "request_id", "variables", "steps" (times or
// 1..F), "forecast": {name: [F values]}, "timing": {...}, "scaler_applied",
// "input_points_used"}, and "intervals": [{"level", "lower": {name: [F]}, "upper": ...}]
// when asked for.
void write_forecast(std::ostream& out, const ForecastResult& result, OutputFormat format);

}  // namespace tsserve::client
