// Requests built from CSV windows, responses read back and written as table/CSV/JSON.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "tsserve/client/forecast_call.h"
#include "tsserve/client/forecast_output.h"

namespace tsserve::client {
namespace {

CsvWindow two_variables() {
  CsvWindow window;
  window.columns = {"HUFL", "OT"};
  window.values = {{1, 2, 3}, {4, 5, 6}};
  window.row_labels = {"2016-07-01 00:00:00", "2016-07-01 01:00:00", "2016-07-01 02:00:00"};
  window.label_column = "date";
  return window;
}

TEST(ForecastCallTest, RequestCarriesSeriesNamesTimesAndOptions) {
  ForecastOptions options;
  options.attention.enabled = true;
  options.attention.average_heads = false;
  options.attention.layers = {1};
  options.raw_tensors = true;
  const v1::ForecastRequest request = build_forecast_request(two_variables(), options);
  EXPECT_EQ(request.layout(), v1::SERIES_LAYOUT_VARIABLES_BY_TIME);
  const TensorData series = read_tensor(request.series());
  EXPECT_EQ(series.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(series.values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(request.series().values().empty());  // raw bytes only
  EXPECT_EQ(request.output_encoding(), v1::TENSOR_ENCODING_RAW);
  EXPECT_EQ(request.variable_names_size(), 2);
  EXPECT_EQ(request.timestamps_size(), 3);
  EXPECT_EQ(request.timestamps(2) - request.timestamps(1), 3600);
  EXPECT_TRUE(request.attention().enabled());
  EXPECT_FALSE(request.attention().average_heads());
  EXPECT_EQ(request.attention().layers_size(), 1);
}

v1::ForecastResponse response_with_heads() {
  v1::ForecastResponse response;
  write_tensor({{2, 2}, {10, 11, 20, 21}}, false, response.mutable_forecast());
  response.set_model_name("m");
  response.set_model_version("3");
  auto* map = response.add_attention();
  map->set_layer(1);
  map->set_variable(1);
  write_tensor({{2, 1, 2}, {0.25f, 0.75f, 0.5f, 0.5f}}, true, map->mutable_weights());
  return response;
}

TEST(ForecastCallTest, ResponseSplitsPerVariableAndPerHead) {
  const ForecastResult result = read_forecast_response(response_with_heads(), {"HUFL", "OT"});
  EXPECT_EQ(result.forecast, (std::vector<std::vector<double>>{{10, 11}, {20, 21}}));
  ASSERT_EQ(result.attention.size(), 2u);
  EXPECT_EQ(result.attention[1].head, 1);
  EXPECT_EQ(result.attention[1].layer, 1);
  EXPECT_EQ(result.attention[1].weights, (std::vector<float>{0.5f, 0.5f}));
  EXPECT_THROW(read_forecast_response(response_with_heads(), {"only one"}), std::runtime_error);
}

TEST(ForecastCallTest, ATargetOnlyResponseNamesItsOneVariable) {
  v1::ForecastResponse response;
  write_tensor({{1, 2}, {30, 31}}, false, response.mutable_forecast());
  response.add_forecast_variables(2);  // features "MS": the last of the three sent
  const ForecastResult result = read_forecast_response(response, {"HUFL", "HULL", "OT"});
  EXPECT_EQ(result.variables, (std::vector<std::string>{"OT"}));
  EXPECT_EQ(result.variable_columns, (std::vector<size_t>{2}));
  EXPECT_EQ(result.forecast, (std::vector<std::vector<double>>{{30, 31}}));
  response.set_forecast_variables(0, 3);  // not one of the request's
  EXPECT_THROW(read_forecast_response(response, {"HUFL", "HULL", "OT"}), std::runtime_error);
}

TEST(ForecastOutputTest, TableCsvAndJsonAgree) {
  ForecastResult result = read_forecast_response(response_with_heads(), {"HUFL", "OT"});
  result.step_labels = {"2016-07-01 03:00:00", "2016-07-01 04:00:00"};
  std::ostringstream csv, json, table;
  write_forecast(csv, result, OutputFormat::kCsv);
  EXPECT_EQ(csv.str(), "date,HUFL,OT\n2016-07-01 03:00:00,10,20\n2016-07-01 04:00:00,11,21\n");
  write_forecast(json, result, OutputFormat::kJson);
  const auto parsed = nlohmann::json::parse(json.str());
  EXPECT_EQ(parsed["forecast"]["OT"], (std::vector<double>{20, 21}));
  EXPECT_EQ(parsed["steps"][1], "2016-07-01 04:00:00");
  EXPECT_EQ(parsed["model"], "m");
  write_forecast(table, result, OutputFormat::kTable);
  EXPECT_NE(table.str().find("2016-07-01 04:00:00     11.0000     21.0000"), std::string::npos)
      << table.str();
  EXPECT_EQ(output_format_for_path("x.json"), OutputFormat::kJson);
  EXPECT_THROW(output_format_for_path("x.txt"), std::invalid_argument);
  EXPECT_THROW(parse_output_format("yaml"), std::invalid_argument);
}

TEST(ForecastOutputTest, IntervalsAreReadAndPrintedBesideEachVariable) {
  v1::ForecastResponse response = response_with_heads();
  auto* interval = response.add_intervals();
  interval->set_level(0.8);
  write_tensor({{2, 2}, {9, 10, 18, 19}}, false, interval->mutable_lower());
  write_tensor({{2, 2}, {11, 12, 22, 23}}, true, interval->mutable_upper());
  ForecastResult result = read_forecast_response(response, {"HUFL", "OT"});
  ASSERT_EQ(result.intervals.size(), 1u);
  EXPECT_EQ(result.intervals[0].lower, (std::vector<std::vector<double>>{{9, 10}, {18, 19}}));
  EXPECT_EQ(result.intervals[0].upper, (std::vector<std::vector<double>>{{11, 12}, {22, 23}}));
  std::ostringstream csv, json;
  write_forecast(csv, result, OutputFormat::kCsv);
  EXPECT_EQ(csv.str(),
            "step,HUFL,HUFL lo80,HUFL hi80,OT,OT lo80,OT hi80\n1,10,9,11,20,18,22\n2,11,10,12,21,19,23\n");
  write_forecast(json, result, OutputFormat::kJson);
  const auto parsed = nlohmann::json::parse(json.str());
  EXPECT_EQ(parsed["intervals"][0]["level"], 0.8);
  EXPECT_EQ(parsed["intervals"][0]["upper"]["OT"], (std::vector<double>{22, 23}));
  // A bound shaped unlike the forecast is a malformed response, named.
  write_tensor({{1, 2}, {1, 2}}, false, response.mutable_intervals(0)->mutable_lower());
  try {
    read_forecast_response(response, {"HUFL", "OT"});
    ADD_FAILURE() << "read a malformed interval";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("intervals[0].lower"), std::string::npos) << e.what();
  }
}

TEST(ForecastCallTest, RequestCarriesIntervalLevels) {
  ForecastOptions options;
  options.interval_levels = {0.8, 0.95};
  const v1::ForecastRequest request = build_forecast_request({{1, 2}, {1, 2}}, {}, {}, options);
  EXPECT_EQ(std::vector<double>(request.interval_levels().begin(), request.interval_levels().end()),
            (std::vector<double>{0.8, 0.95}));
}

}  // namespace
}  // namespace tsserve::client
