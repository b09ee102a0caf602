#include "server/codec/v1_json/actuals_json.h"

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "server/codec/json/json_numbers.h"
#include "server/codec/json/json_reading.h"
#include "server/codec/json/json_writer.h"
#include "server/codec/json/reused_json_parser.h"
#include "server/codec/v1_json/json_timestamps.h"
#include "server/request/actuals_report.h"

namespace tsserve::server {
namespace {

// One column of observations; null (a gap) reads as NaN, which is counted, not scored.
// *read counts the report's values so far, refused past kMaxReportedPoints as they come.
Status read_observations(json_od::value& value, const std::string& path,
                         std::vector<double>* column, int64_t* read) {
  return for_each_json_element(
      value, path, "an array of numbers or nulls (gaps)",
      [&](json_od::value& item, const JsonElementPath& at) -> Status {
        if (++*read > kMaxReportedPoints) {
          return invalid_argument(at.text() + ": more than " + std::to_string(kMaxReportedPoints) +
                                  " values in one report (timestamps x columns); send them in "
                                  "several reports");
        }
        json_od::json_type type;
        if (auto error = item.type().get(type)) return json_malformed(error, at.text());
        if (type == json_od::json_type::null) {
          column->push_back(std::numeric_limits<double>::quiet_NaN());
          return Status();
        }
        double number = 0;
        const JsonNumberError error = parse_json_double(item.raw_json_token(), &number);
        if (type != json_od::json_type::number || error != JsonNumberError::kNone) {
          return invalid_argument(at.text() + ": expected a number or null");
        }
        column->push_back(number);
        return Status();
      });
}

}  // namespace

Status parse_actuals_json_request(std::string& body, v1::ReportActualsRequest* request) {
  ReusedJsonParser parser;
  json_od::document document;
  json_od::object root;
  TSSERVE_RETURN_IF_ERROR(open_json_object(body, parser.get(), &document, &root,
                                           "a JSON object (a report of actuals)"));
  bool key = false, timestamps = false, actuals = false, text = false;
  std::vector<std::vector<double>> columns;
  JsonNames names;
  int64_t values_read = 0;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view name, json_od::value& value) -> Status {
        if (name == "series_key") {
          TSSERVE_RETURN_IF_ERROR(first_time(&key, "", name));
          return read_json_string(value, "series_key", request->mutable_series_key());
        }
        if (name == "timestamps") {
          TSSERVE_RETURN_IF_ERROR(first_time(&timestamps, "", name));
          std::vector<std::int64_t> seconds;
          TSSERVE_RETURN_IF_ERROR(read_json_timestamps(value, "timestamps", &seconds, &text));
          request->mutable_timestamps()->Add(seconds.begin(), seconds.end());
          return Status();
        }
        if (name == "actuals") {
          TSSERVE_RETURN_IF_ERROR(first_time(&actuals, "", name));
          json_od::object object;
          if (auto error = value.get_object().get(object)) {
            return json_expected(error, "actuals", "an object of columns: {\"name\": [numbers]}");
          }
          return for_each_json_field(
              object, "actuals", [&](std::string_view column, json_od::value& values) -> Status {
                TSSERVE_RETURN_IF_ERROR(names.add("actuals", column));
                if (request->variable_names_size() == kMaxReportedVariables) {
                  return invalid_argument(json_member("actuals", column) + ": more than " +
                                          std::to_string(kMaxReportedVariables) +
                                          " columns; a report names at most that many variables");
                }
                request->add_variable_names(std::string(column));
                columns.emplace_back();
                return read_observations(values, json_member("actuals", column), &columns.back(),
                                         &values_read);
              });
        }
        return invalid_argument(std::string(name) +
                                ": unknown field; a report has series_key, timestamps and actuals");
      }));
  TSSERVE_RETURN_IF_ERROR(json_ends_after_object(document));
  if (!key) return invalid_argument("series_key: missing; the key the forecasts were issued with");
  if (!timestamps) return invalid_argument("timestamps: missing; one per observation");
  if (!actuals) return invalid_argument("actuals: missing; the observations by column");
  const auto points = static_cast<std::size_t>(request->timestamps_size());
  for (std::size_t n = 0; n < columns.size(); ++n) {
    if (columns[n].size() != points) {
      return invalid_argument(json_member("actuals", request->variable_names(static_cast<int>(n))) +
                              ": " + std::to_string(columns[n].size()) + " values for " +
                              std::to_string(points) + " timestamps; one value per timestamp");
    }
  }
  // The message holds [T, N] row-major.
  for (std::size_t t = 0; t < points; ++t) {
    for (const std::vector<double>& column : columns) request->add_values(column[t]);
  }
  return {};
}

std::string write_actuals_json_response(const v1::ReportActualsResponse& response) {
  JsonWriter json;
  json.begin_object();
  json.key("matched").integer(response.matched());
  json.key("unmatched").begin_object();
  json.key("unknown_key").integer(response.unmatched_unknown_key());
  json.key("not_finite").integer(response.unmatched_not_finite());
  json.key("unknown_variable").integer(response.unmatched_unknown_variable());
  json.key("no_forecast").integer(response.unmatched_no_forecast());
  json.key("already_reported").integer(response.unmatched_already_reported());
  json.end_object();
  json.end_object();
  return json.take();
}

}  // namespace tsserve::server
