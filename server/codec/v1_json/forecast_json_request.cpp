#include "server/codec/v1_json/forecast_json_request.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/codec/json/json_numbers.h"
#include "server/codec/json/json_reading.h"
#include "server/codec/json/reused_json_parser.h"
#include "server/codec/v1_json/json_request_fields.h"
#include "server/codec/v1_json/json_timestamps.h"

namespace tsserve::server {
namespace {

constexpr char kFields[] =
    "a forecast request has series, timestamps, intervals, attention, scaler, series_key and "
    "request_id";

// One column's numbers, appended to `values`; `length` is how many. `body`: the text the
// document reads, for the one-pass scan of the numbers.
Status read_column(json_od::value& value, std::string_view body, const std::string& path,
                   google::protobuf::RepeatedField<float>* values, std::size_t* length) {
  *length = 0;
  // One scan per thread, its vectors reused from column to column (given back after a
  // huge column, as the parser's buffers are).
  thread_local JsonFloatArray scan;
  scan.clear();
  bool scanned = false;
  const Status status = scan_json_floats(value, body, path, 0, &scan, &scanned);
  if (status.ok() && scanned) {
    values->Add(scan.values.begin(), scan.values.end());
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
        values->Add(number);
        ++*length;
        return Status();
      });
}

Status read_series(json_od::value& value, std::string_view body, v1::ForecastRequest* message) {
  json_od::object columns;
  if (auto error = value.get_object().get(columns)) {
    return json_expected(error, "series", "an object of columns: {\"name\": [numbers], ...}");
  }
  v1::Tensor* series = message->mutable_series();
  std::size_t points = 0;
  std::string first;
  JsonNames names;
  TSSERVE_RETURN_IF_ERROR(for_each_json_field(
      columns, "series", [&](std::string_view name, json_od::value& column) -> Status {
        TSSERVE_RETURN_IF_ERROR(names.add("series", name));
        const std::string at = json_member("series", name);
        std::size_t length = 0;
        TSSERVE_RETURN_IF_ERROR(read_column(column, body, at, series->mutable_values(), &length));
        if (message->variable_names_size() == 0) {
          points = length;
          first = at;
        } else if (length != points) {
          return invalid_argument(at + ": " + std::to_string(length) + " points where " + first +
                                  " has " + std::to_string(points) +
                                  "; every column has one point per timestamp");
        }
        message->add_variable_names(std::string(name));
        return Status();
      }));
  if (message->variable_names_size() == 0) {
    return invalid_argument("series: no columns; give at least one, {\"name\": [numbers]}");
  }
  series->add_shape(message->variable_names_size());
  series->add_shape(static_cast<std::int64_t>(points));
  message->set_layout(v1::SERIES_LAYOUT_VARIABLES_BY_TIME);
  return {};
}

Status read_integers(json_od::value& value, const std::string& path,
                     google::protobuf::RepeatedField<std::int32_t>* out) {
  return for_each_json_element(
      value, path, "an array of indices", [&](json_od::value& item, const JsonElementPath& at) {
        std::int64_t index = 0;
        if (parse_json_int64(item.raw_json_token(), &index) != JsonNumberError::kNone ||
            index < 0 || index > INT32_MAX) {
          return invalid_argument(at.text() + ": expected an index, an integer >= 0");
        }
        out->Add(static_cast<std::int32_t>(index));
        return Status();
      });
}

// attention.variables name columns; they become indices once every column is known.
Status read_attention(json_od::value& value, v1::AttentionOptions* options,
                      std::vector<std::string>* variables) {
  json_od::object object;
  if (auto error = value.get_object().get(object)) {
    return json_expected(error, "attention",
                         "an object: {\"layers\", \"average_heads\", "
                         "\"variables\", \"decoder\"}, each optional");
  }
  options->set_enabled(true);
  bool layers = false, average = false, named = false, decoder = false;
  return for_each_json_field(
      object, "attention", [&](std::string_view key, json_od::value& item) -> Status {
        const std::string at = json_member("attention", key);
        if (key == "layers") {
          TSSERVE_RETURN_IF_ERROR(first_time(&layers, "attention", key));
          return read_integers(item, at, options->mutable_layers());
        }
        if (key == "average_heads") {
          TSSERVE_RETURN_IF_ERROR(first_time(&average, "attention", key));
          bool flag = false;
          TSSERVE_RETURN_IF_ERROR(read_json_bool(item, at, &flag));
          options->set_average_heads(flag);
          return Status();
        }
        if (key == "decoder") {
          TSSERVE_RETURN_IF_ERROR(first_time(&decoder, "attention", key));
          bool flag = false;
          TSSERVE_RETURN_IF_ERROR(read_json_bool(item, at, &flag));
          options->set_decoder(flag);
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
Status resolve_variables(const std::vector<std::string>& names, v1::ForecastRequest* message) {
  if (names.empty()) return {};
  std::unordered_map<std::string_view, int> column;
  column.reserve(static_cast<std::size_t>(message->variable_names_size()));
  for (int n = 0; n < message->variable_names_size(); ++n) {
    column.emplace(message->variable_names(n), n);  // names are unique (read_series)
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto found = column.find(names[i]);
    if (found == column.end()) {
      return invalid_argument(json_element("attention.variables", i) + ": \"" + names[i] +
                              "\" is not a column of series");
    }
    message->mutable_attention()->add_variables(found->second);
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
  v1::ForecastRequest& message = request->message;
  bool series = false, timestamps = false, intervals = false, attention = false, scaler = false,
       key = false, id = false;
  std::vector<std::string> attention_variables;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view name, json_od::value& value) -> Status {
        if (name == "series") {
          TSSERVE_RETURN_IF_ERROR(first_time(&series, "", name));
          return read_series(value, body, &message);
        }
        if (name == "timestamps") {
          TSSERVE_RETURN_IF_ERROR(first_time(&timestamps, "", name));
          return read_json_timestamps(value, "timestamps", request->message.mutable_timestamps(),
                                      &request->text_timestamps);
        }
        if (name == "intervals") {
          TSSERVE_RETURN_IF_ERROR(first_time(&intervals, "", name));
          return read_json_levels(value, "intervals", message.mutable_interval_levels());
        }
        if (name == "attention") {
          TSSERVE_RETURN_IF_ERROR(first_time(&attention, "", name));
          return read_attention(value, message.mutable_attention(), &attention_variables);
        }
        if (name == "scaler") {
          TSSERVE_RETURN_IF_ERROR(first_time(&scaler, "", name));
          v1::ScalerMode mode = v1::SCALER_MODE_UNSPECIFIED;
          TSSERVE_RETURN_IF_ERROR(read_json_scaler_mode(value, "scaler", &mode));
          message.set_scaler_mode(mode);
          return Status();
        }
        if (name == "series_key") {
          TSSERVE_RETURN_IF_ERROR(first_time(&key, "", name));
          return read_json_string(value, "series_key", message.mutable_series_key());
        }
        if (name == "request_id") {
          TSSERVE_RETURN_IF_ERROR(first_time(&id, "", name));
          return read_json_string(value, "request_id", message.mutable_request_id());
        }
        return invalid_argument(std::string(name) + ": unknown field; " + kFields);
      }));
  TSSERVE_RETURN_IF_ERROR(json_ends_after_object(document));
  if (!series) {
    return invalid_argument("series: missing; give the history by column, {\"OT\": [...]}");
  }
  return resolve_variables(attention_variables, &message);
}

Status in_forecast_json_terms(const Status& status) {
  static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
      {"interval_levels", "intervals"}, {"scaler_mode", "scaler"}, {"variable_names", "series"}};
  for (const auto& [message_field, json_field] : kRenamed) {
    const std::string& message = status.message();
    if (message.compare(0, message_field.size(), message_field) == 0) {
      return {status.code(), std::string(json_field) + message.substr(message_field.size())};
    }
  }
  return status;
}

}  // namespace tsserve::server
