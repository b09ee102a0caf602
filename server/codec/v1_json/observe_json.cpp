#include "server/codec/v1_json/observe_json.h"

#include <string_view>
#include <vector>

#include "server/codec/common/observation_rules.h"
#include "server/codec/json/json_numbers.h"
#include "server/codec/json/json_reading.h"
#include "server/codec/json/json_writer.h"
#include "server/codec/json/reused_json_parser.h"
#include "server/codec/v1_json/forecast_json_response.h"
#include "server/codec/v1_json/json_request_fields.h"
#include "server/codec/v1_json/json_timestamps.h"
#include "tsserve/status/status_code_names.h"

namespace tsserve::server {
namespace {

constexpr char kFields[] =
    "an observation has timestamps, values, forecast, intervals, model, model_version, scaler "
    "and request_id";

// One column of new points, as doubles (nulls refused: the window holds no gaps).
Status read_points(json_od::value& value, const std::string& path, std::vector<double>* column) {
  return for_each_json_element(
      value, path, "an array of numbers (the column's new points, oldest first)",
      [&](json_od::value& point, const JsonElementPath& at) -> Status {
        json_od::json_type type;
        if (auto error = point.type().get(type)) return json_malformed(error, at.text());
        double number = 0;
        if (type != json_od::json_type::number ||
            parse_json_double(point.raw_json_token(), &number) != JsonNumberError::kNone) {
          return invalid_argument(at.text() + (type == json_od::json_type::null
                                                   ? ": null; fill gaps before sending"
                                                   : ": expected a number"));
        }
        column->push_back(number);
        return Status();
      });
}

// {"name": [numbers], ...} -> names and values [T, N] row-major.
Status read_values(json_od::value& value, Observation* observation) {
  json_od::object object;
  if (auto error = value.get_object().get(object)) {
    return json_expected(error, "values", "an object of columns: {\"name\": [numbers], ...}");
  }
  std::vector<std::vector<double>> columns;
  JsonNames names;
  TSSERVE_RETURN_IF_ERROR(for_each_json_field(
      object, "values", [&](std::string_view name, json_od::value& column) -> Status {
        TSSERVE_RETURN_IF_ERROR(names.add("values", name));
        observation->variable_names.emplace_back(name);
        columns.emplace_back();
        return read_points(column, json_member("values", name), &columns.back());
      }));
  if (columns.empty()) {
    return invalid_argument("values: no columns; give at least one, {\"name\": [numbers]}");
  }
  for (std::size_t n = 1; n < columns.size(); ++n) {
    if (columns[n].size() != columns[0].size()) {
      return invalid_argument(json_member("values", observation->variable_names[n]) + ": " +
                              std::to_string(columns[n].size()) + " points where " +
                              json_member("values", observation->variable_names[0]) + " has " +
                              std::to_string(columns[0].size()) +
                              "; every column has one point per timestamp");
    }
  }
  observation->values.reserve(columns.size() * columns[0].size());
  for (std::size_t t = 0; t < columns[0].size(); ++t) {
    for (const std::vector<double>& column : columns) observation->values.push_back(column[t]);
  }
  return Status();
}

void write_point(JsonWriter& json, const v1::ObservedPoint& point) {
  json.begin_object();
  json.key("value").number(point.value());
  json.key("scored").boolean(point.scored());
  if (point.scored()) {
    json.key("forecast").number(point.forecast());
    json.key("step").integer(point.step());
    json.key("score").number(point.score());
    json.key("anomaly").boolean(point.anomaly());
    json.key("intervals").begin_array();
    for (const v1::IntervalFlag& interval : point.intervals()) {
      json.begin_object();
      json.key("level").number(interval.level());
      json.key("lower").number(interval.lower());
      json.key("upper").number(interval.upper());
      json.key("outside").boolean(interval.outside());
      json.end_object();
    }
    json.end_array();
  }
  json.end_object();
}

}  // namespace

Status parse_observe_json_request(std::string& body, const std::string& series_key,
                                  ObserveJsonRequest* request) {
  ReusedJsonParser parser;
  json_od::document document;
  json_od::object root;
  TSSERVE_RETURN_IF_ERROR(
      open_json_object(body, parser.get(), &document, &root, "a JSON object (an observation)"));
  Observation& observation = request->observation;
  observation.series_key = series_key;
  bool timestamps = false, values = false, forecast = false, intervals = false, model = false,
       version = false, scaler = false, id = false;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view name, json_od::value& value) -> Status {
        if (name == "timestamps") {
          TSSERVE_RETURN_IF_ERROR(first_time(&timestamps, "", name));
          return read_json_timestamps(value, "timestamps", &observation.timestamps,
                                      &request->text_timestamps);
        }
        if (name == "values") {
          TSSERVE_RETURN_IF_ERROR(first_time(&values, "", name));
          return read_values(value, &observation);
        }
        if (name == "forecast") {
          TSSERVE_RETURN_IF_ERROR(first_time(&forecast, "", name));
          bool flag = false;
          TSSERVE_RETURN_IF_ERROR(read_json_bool(value, "forecast", &flag));
          observation.forecast = flag;
          return Status();
        }
        if (name == "intervals") {
          TSSERVE_RETURN_IF_ERROR(first_time(&intervals, "", name));
          return read_json_levels(value, "intervals", &observation.interval_levels);
        }
        if (name == "model") {
          TSSERVE_RETURN_IF_ERROR(first_time(&model, "", name));
          return read_json_string(value, "model", &observation.model);
        }
        if (name == "model_version") {
          TSSERVE_RETURN_IF_ERROR(first_time(&version, "", name));
          return read_json_string(value, "model_version", &observation.model_version);
        }
        if (name == "scaler") {
          TSSERVE_RETURN_IF_ERROR(first_time(&scaler, "", name));
          return read_json_scaler_mode(value, "scaler", &observation.scaler_mode);
        }
        if (name == "request_id") {
          TSSERVE_RETURN_IF_ERROR(first_time(&id, "", name));
          return read_json_string(value, "request_id", &observation.request_id);
        }
        return invalid_argument(std::string(name) + ": unknown field; " + kFields);
      }));
  TSSERVE_RETURN_IF_ERROR(json_ends_after_object(document));
  if (!timestamps) return invalid_argument("timestamps: missing; one per new point");
  if (!values)
    return invalid_argument("values: missing; the new points by column, {\"OT\": [...]}");
  const std::size_t columns = observation.variable_names.size();
  const std::size_t points = observation.values.size() / columns;
  if (points != observation.timestamps.size()) {
    return invalid_argument("values: " + std::to_string(points) + " points per column for " +
                            std::to_string(observation.timestamps.size()) +
                            " timestamps; one point per timestamp");
  }
  return Status();
}

Status check_observe_json_request(ObserveJsonRequest* request) {
  // The columns of values are the variables and their names.
  return check_observation(ObservationFields{"values", "values"}, &request->observation);
}

std::string write_observe_json_response(const ObserveJsonRequest& request,
                                        const v1::ObserveResponse& response) {
  const Observation& asked = request.observation;
  JsonWriter json;
  json.begin_object();
  json.key("series_key").string(response.series_key());
  json.key("model").string(response.model_name());
  json.key("version").string(response.model_version());
  json.key("request_id").string(response.request_id());
  json.key("window_points").integer(response.window_points());
  json.key("anomalies").integer(response.anomalies());
  json.key("timestamps").begin_array();
  for (const std::int64_t seconds : asked.timestamps) {
    if (request.text_timestamps) {
      json.string(iso8601_utc(seconds));
    } else {
      json.integer(seconds);
    }
  }
  json.end_array();
  // points are [T, N] time-major: column n holds points n, n + N, ...
  const auto columns = static_cast<int>(asked.variable_names.size());
  json.key("points").begin_object();
  for (int n = 0; n < columns; ++n) {
    json.key(asked.variable_names[static_cast<std::size_t>(n)]).begin_array();
    for (int i = n; i < response.points_size(); i += columns) write_point(json, response.points(i));
    json.end_array();
  }
  json.end_object();
  if (response.has_forecast()) {
    // The forecast's columns are the request's names: the window forecast names them so.
    ForecastJsonRequest forecast;
    forecast.text_timestamps = request.text_timestamps;
    forecast.columns = asked.variable_names;
    json.key("forecast").raw_value(write_forecast_json_response(forecast, response.forecast()));
  }
  if (response.forecast_code() != 0) {
    json.key("forecast_error").begin_object();
    json.key("code").string(status_code_name(response.forecast_code()));
    json.key("message").string(response.forecast_message());
    json.end_object();
  }
  json.end_object();
  return json.take();
}

}  // namespace tsserve::server
