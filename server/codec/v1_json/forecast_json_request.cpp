#include "server/codec/v1_json/forecast_json_request.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/codec/common/target_columns.h"
#include "server/codec/json/json_numbers.h"
#include "server/codec/json/json_reading.h"
#include "server/codec/json/reused_json_parser.h"
#include "server/codec/v1_json/json_request_fields.h"
#include "server/codec/v1_json/json_timestamps.h"

namespace tsserve::server {
namespace {

// The JSON's names for what the shared rules check: its series is N columns, named.
const ForecastFieldNames& json_fields() {
  static const ForecastFieldNames names = [] {
    ForecastFieldNames names;
    names.series = {{"series", 2, "[N, T_in]"}, "series by column", "\"scaler\": \"none\""};
    names.variable_names = "series";
    names.interval_levels = "intervals";
    names.scaler = {"scaler", "\"required\"", "\"none\"", "series", "series"};
    return names;
  }();
  return names;
}

constexpr char kFields[] =
    "a forecast request has series, timestamps, intervals, attention, target, scaler, "
    "series_key and request_id";

// One column's numbers, appended to `values`; `length` is how many. `body`: the text the
// document reads, for the one-pass scan of the numbers.
Status read_column(json_od::value& value, std::string_view body, const std::string& path,
                   std::vector<float>* values, std::size_t* length) {
  *length = 0;
  // One scan per thread, its vectors reused from column to column (given back after a
  // huge column, as the parser's buffers are).
  thread_local JsonFloatArray scan;
  scan.clear();
  bool scanned = false;
  const Status status = scan_json_floats(value, body, path, 0, &scan, &scanned);
  if (status.ok() && scanned) {
    values->insert(values->end(), scan.values.begin(), scan.values.end());
    *length = scan.values.size();
  }
  scan.clear_keeping(kKeptJsonCapacity);
  TSSERVE_RETURN_IF_ERROR(status);
  if (scanned) return {};
  return for_each_json_element(
      value, path, "an array of numbers (the column's points, oldest first)",
      [&](json_od::value& point, const JsonElementPath& at) -> Status {
        json_od::json_type type;
        if (auto error = point.type().get(type)) return json_malformed(error, at.text());
        if (type != json_od::json_type::number) {
          return invalid_argument(at.text() + (type == json_od::json_type::null
                                                   ? ": null; fill gaps before sending"
                                                   : ": expected a number"));
        }
        float number = 0;
        const JsonNumberError error = parse_json_float(point.raw_json_token(), &number);
        if (error != JsonNumberError::kNone) {
          return invalid_argument(at.text() + ": " + std::string(point.raw_json_token()) + " " +
                                  describe(error) + " for float32");
        }
        values->push_back(number);
        ++*length;
        return Status();
      });
}

Status read_series(json_od::value& value, std::string_view body, ForecastJsonRequest* request) {
  json_od::object columns;
  if (auto error = value.get_object().get(columns)) {
    return json_expected(error, "series", "an object of columns: {\"name\": [numbers], ...}");
  }
  std::size_t points = 0;
  std::string first;
  JsonNames names;
  TSSERVE_RETURN_IF_ERROR(for_each_json_field(
      columns, "series", [&](std::string_view name, json_od::value& column) -> Status {
        TSSERVE_RETURN_IF_ERROR(names.add("series", name));
        const std::string at = json_member("series", name);
        std::size_t length = 0;
        TSSERVE_RETURN_IF_ERROR(read_column(column, body, at, &request->values, &length));
        if (request->columns.empty()) {
          points = length;
          first = at;
        } else if (length != points) {
          return invalid_argument(at + ": " + std::to_string(length) + " points where " + first +
                                  " has " + std::to_string(points) +
                                  "; every column has one point per timestamp");
        }
        request->columns.emplace_back(name);
        return Status();
      }));
  if (request->columns.empty()) {
    return invalid_argument("series: no columns; give at least one, {\"name\": [numbers]}");
  }
  request->shape[0] = static_cast<std::int64_t>(request->columns.size());
  request->shape[1] = static_cast<std::int64_t>(points);
  return {};
}

Status read_integers(json_od::value& value, const std::string& path,
                     std::vector<std::int32_t>* out) {
  return for_each_json_element(
      value, path, "an array of indices", [&](json_od::value& item, const JsonElementPath& at) {
        std::int64_t index = 0;
        if (parse_json_int64(item.raw_json_token(), &index) != JsonNumberError::kNone ||
            index < 0 || index > INT32_MAX) {
          return invalid_argument(at.text() + ": expected an index, an integer >= 0");
        }
        out->push_back(static_cast<std::int32_t>(index));
        return Status();
      });
}

// attention.variables name columns; they become indices once every column is known.
Status read_attention(json_od::value& value, AttentionRequest* options,
                      std::vector<std::string>* variables) {
  json_od::object object;
  if (auto error = value.get_object().get(object)) {
    return json_expected(error, "attention",
                         "an object: {\"layers\", \"average_heads\", "
                         "\"variables\", \"decoder\"}, each optional");
  }
  options->enabled = true;
  bool layers = false, average = false, named = false, decoder = false;
  return for_each_json_field(
      object, "attention", [&](std::string_view key, json_od::value& item) -> Status {
        const std::string at = json_member("attention", key);
        if (key == "layers") {
          TSSERVE_RETURN_IF_ERROR(first_time(&layers, "attention", key));
          return read_integers(item, at, &options->layers);
        }
        if (key == "average_heads") {
          TSSERVE_RETURN_IF_ERROR(first_time(&average, "attention", key));
          bool flag = false;
          TSSERVE_RETURN_IF_ERROR(read_json_bool(item, at, &flag));
          options->average_heads = flag;
          return Status();
        }
        if (key == "decoder") {
          TSSERVE_RETURN_IF_ERROR(first_time(&decoder, "attention", key));
          bool flag = false;
          TSSERVE_RETURN_IF_ERROR(read_json_bool(item, at, &flag));
          options->decoder = flag;
          return Status();
        }
        if (key == "variables") {
          TSSERVE_RETURN_IF_ERROR(first_time(&named, "attention", key));
          return for_each_json_element(item, at, "an array of column names",
                                       [&](json_od::value& name, const JsonElementPath& name_at) {
                                         variables->emplace_back();
                                         return read_json_string(name, name_at, &variables->back());
                                       });
        }
        return invalid_argument(at +
                                ": unknown field; attention has layers, average_heads, "
                                "variables and decoder");
      });
}

// By a map of the columns, so that many names against many columns cost their sum.
Status resolve_variables(const std::vector<std::string>& names, ForecastJsonRequest* request) {
  if (names.empty()) return {};
  std::unordered_map<std::string_view, int> column;
  column.reserve(request->columns.size());
  for (std::size_t n = 0; n < request->columns.size(); ++n) {
    column.emplace(request->columns[n], static_cast<int>(n));  // unique (read_series)
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto found = column.find(names[i]);
    if (found == column.end()) {
      return invalid_argument(json_element("attention.variables", i) + ": \"" + names[i] +
                              "\" is not a column of series");
    }
    request->attention.variables.push_back(found->second);
  }
  return {};
}

}  // namespace

Status parse_forecast_json_request(std::string& body, ForecastJsonRequest* request) {
  ReusedJsonParser parser;
  json_od::document document;
  json_od::object root;
  TSSERVE_RETURN_IF_ERROR(
      open_json_object(body, parser.get(), &document, &root, "a JSON object (a forecast request)"));
  bool series = false, timestamps = false, intervals = false, attention = false, scaler = false,
       key = false, id = false, target = false;
  std::vector<std::string> attention_variables;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view name, json_od::value& value) -> Status {
        if (name == "series") {
          TSSERVE_RETURN_IF_ERROR(first_time(&series, "", name));
          return read_series(value, body, request);
        }
        if (name == "timestamps") {
          TSSERVE_RETURN_IF_ERROR(first_time(&timestamps, "", name));
          return read_json_timestamps(value, "timestamps", &request->timestamps,
                                      &request->text_timestamps);
        }
        if (name == "intervals") {
          TSSERVE_RETURN_IF_ERROR(first_time(&intervals, "", name));
          return read_json_levels(value, "intervals", &request->intervals);
        }
        if (name == "attention") {
          TSSERVE_RETURN_IF_ERROR(first_time(&attention, "", name));
          return read_attention(value, &request->attention, &attention_variables);
        }
        if (name == "scaler") {
          TSSERVE_RETURN_IF_ERROR(first_time(&scaler, "", name));
          return read_json_scaler_mode(value, "scaler", &request->scaler);
        }
        if (name == "target") {
          TSSERVE_RETURN_IF_ERROR(first_time(&target, "", name));
          request->target.emplace();
          return read_json_string(value, "target", &*request->target);
        }
        if (name == "series_key") {
          TSSERVE_RETURN_IF_ERROR(first_time(&key, "", name));
          return read_json_string(value, "series_key", &request->series_key);
        }
        if (name == "request_id") {
          TSSERVE_RETURN_IF_ERROR(first_time(&id, "", name));
          return read_json_string(value, "request_id", &request->request_id);
        }
        if (name == "future_covariates") {
          // Refused by name rather than as an unknown field: callers of Chronos-2 or
          // TimeGPT send them, and silence would read as "used".
          return invalid_argument(
              "future_covariates: no served family reads covariates' future values: TimeXer "
              "reads its covariates' history (columns of series), the iTransformer and TimeXer "
              "the calendar of the input steps and Informer and Transformer also that of the "
              "forecast's steps, from timestamps; send the history alone");
        }
        return invalid_argument(std::string(name) + ": unknown field; " + kFields);
      }));
  TSSERVE_RETURN_IF_ERROR(json_ends_after_object(document));
  if (!series) {
    return invalid_argument("series: missing; give the history by column, {\"OT\": [...]}");
  }
  return resolve_variables(attention_variables, request);
}

Status decode_forecast_json_request(const ForecastJsonRequest& request, const ModelShape& model,
                                    const RequestLimits& limits, ForecastInput* out) {
  if (model.forecast_variables <= 0 && !request.target) {
    return decode_plain_forecast_request(request, json_fields(), model, limits, out);
  }
  PlainForecastRequest arranged = request;  // the columns in the model's order
  std::vector<int32_t> request_index;
  TSSERVE_RETURN_IF_ERROR(arrange_target_columns(request.target, model, &arranged, &request_index));
  TSSERVE_RETURN_IF_ERROR(
      decode_plain_forecast_request(arranged, json_fields(), model, limits, out));
  out->request_variables = std::move(request_index);  // the answer names the request's columns
  return Status();
}

}  // namespace tsserve::server
