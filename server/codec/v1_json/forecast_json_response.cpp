#include "server/codec/v1_json/forecast_json_response.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "server/codec/json/json_writer.h"
#include "server/codec/v1_json/json_timestamps.h"

namespace tsserve::server {
namespace {

// {"name": [F floats], ...} of a [K, F] tensor whose rows are the request's columns (all
// N, or those response.forecast_variables lists: a model forecasting its target alone).
void write_columns(JsonWriter& json, const std::vector<std::string>& names,
                   const v1::ForecastResponse& response, const v1::Tensor& tensor) {
  json.begin_object();
  const bool subset = response.forecast_variables_size() > 0;
  const int columns = subset ? response.forecast_variables_size() : static_cast<int>(names.size());
  const std::size_t points =
      columns == 0 ? 0 : static_cast<std::size_t>(tensor.values_size()) / columns;
  for (int n = 0; n < columns; ++n) {
    json.key(names[static_cast<std::size_t>(subset ? response.forecast_variables(n) : n)]);
    json.numbers(tensor.values().data() + static_cast<std::size_t>(n) * points, points);
  }
  json.end_object();
}

// The floats of `tensor` from `offset`, nested as its shape from dimension `dim` on.
std::size_t write_nested(JsonWriter& json, const v1::Tensor& tensor, int dim, std::size_t offset) {
  const auto extent = static_cast<std::size_t>(tensor.shape(dim));
  if (dim + 1 == tensor.shape_size()) {
    json.numbers(tensor.values().data() + offset, extent);
    return offset + extent;
  }
  json.begin_array();
  for (std::size_t i = 0; i < extent; ++i) offset = write_nested(json, tensor, dim + 1, offset);
  json.end_array();
  return offset;
}

std::string level_key(double level) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, level).ptr;
  return std::string(digits, end);
}

void write_attention(JsonWriter& json, const std::vector<std::string>& names,
                     const v1::ForecastResponse& response) {
  json.key("attention").begin_array();
  for (const v1::AttentionMap& map : response.attention()) {
    json.begin_object();
    json.key("stack").string(map.stack());
    json.key("layer").integer(map.layer());
    json.key("variable");
    // A TimeXer's covariate map is its endogenous variable's, whose name it gets.
    const bool per_sample =
        (map.token_names_size() > 0 && map.stack() != "covariates") || map.row_steps_size() > 0;
    if (!per_sample && static_cast<std::size_t>(map.variable()) < names.size()) {
      json.string(names[static_cast<std::size_t>(map.variable())]);
    } else {
      json.null();  // a map per sample covers every variable (iTransformer, Informer, ...)
    }
    json.key("heads_averaged").boolean(map.heads_averaged());
    json.key("weights");
    if (map.weights().shape_size() == 0) {
      json.begin_array().end_array();
    } else {
      write_nested(json, map.weights(), 0, 0);
    }
    if (map.token_names_size() > 0) {
      json.key("token_names").begin_array();
      for (const std::string& name : map.token_names()) json.string(name);
      json.end_array();
    }
    if (map.row_steps_size() > 0) {
      json.key("row_steps").begin_array();
      for (int32_t step : map.row_steps()) json.integer(step);
      json.end_array();
      json.key("column_steps").begin_array();
      for (int32_t step : map.column_steps()) json.integer(step);
      json.end_array();
    }
    json.end_object();
  }
  json.end_array();
}

}  // namespace

std::string write_forecast_json_response(const ForecastJsonRequest& request,
                                         const v1::ForecastResponse& response) {
  const std::vector<std::string>& names = request.columns;
  JsonWriter json;
  json.begin_object();
  json.key("model").string(response.model_name());
  json.key("version").string(response.model_version());
  json.key("request_id").string(response.request_id());
  json.key("forecast");
  write_columns(json, names, response, response.forecast());
  if (response.forecast_timestamps_size() > 0) {
    json.key("timestamps").begin_array();
    for (std::int64_t seconds : response.forecast_timestamps()) {
      if (request.text_timestamps) {
        json.string(iso8601_utc(seconds));
      } else {
        json.integer(seconds);
      }
    }
    json.end_array();
  }
  if (!response.forecast_timestamps_note().empty()) {
    json.key("timestamps_note").string(response.forecast_timestamps_note());
  }
  if (response.intervals_size() > 0) {
    json.key("intervals").begin_object();
    for (const v1::PredictionInterval& band : response.intervals()) {
      json.key(level_key(band.level())).begin_object();
      json.key("lower");
      write_columns(json, names, response, band.lower());
      json.key("upper");
      write_columns(json, names, response, band.upper());
      json.end_object();
    }
    json.end_object();
  }
  if (request.attention.enabled) write_attention(json, names, response);
  json.key("scaler_applied").boolean(response.scaler_applied());
  json.key("input_points_used").integer(response.input_points_used());
  json.key("forecast_stored").boolean(response.forecast_stored());
  json.key("timing").begin_object();
  json.key("queue_seconds").number(response.timing().queue_seconds());
  json.key("compute_seconds").number(response.timing().compute_seconds());
  json.key("batch_rows").integer(response.timing().batch_rows());
  json.end_object();
  json.end_object();
  return json.take();
}

}  // namespace tsserve::server
