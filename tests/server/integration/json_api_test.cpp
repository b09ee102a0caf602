// The forecasting JSON API (/v1) on loopback beside the other four doors of the same
// server: one forecast bitwise the same through all five (alone and sharing one batch),
// intervals, attention maps and timestamps as the gRPC door gives them, actuals scored,
// listing and info as gRPC says, and bad requests refused by field while the server
// serves on. The JSON sent and read is built and parsed by nlohmann-json, independently
// of the server's reader and writer.

#include <cmath>
#include <cstring>
#include <ctime>
#include <future>

#include "http_test_support.h"

namespace tsserve::server::testing {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kEtthColumns = {"HUFL", "HULL", "MUFL", "MULL",
                                               "LUFL", "LULL", "OT"};
constexpr int64_t kPoints = 336;
constexpr int64_t kHorizon = 96;
constexpr int64_t kJuly2016 = 1467331200;  // 2016-07-01T00:00:00Z

// The v1 request with the model's column names (the scaler applies by name).
v1::ForecastRequest named_forecast_request(uint64_t seed) {
  v1::ForecastRequest request = forecast_request(7, kPoints, seed);
  request.set_model("patchtst-etth1");
  for (const std::string& column : kEtthColumns) request.add_variable_names(column);
  return request;
}

// The JSON API's body of `request`: its series by column, in order; floats as doubles
// (exact, so they read back as the same float32). `extra` adds fields.
std::string forecast_json(const v1::ForecastRequest& request,
                          nlohmann::ordered_json extra = nlohmann::ordered_json::object()) {
  nlohmann::ordered_json series = nlohmann::ordered_json::object();
  for (int n = 0; n < request.variable_names_size(); ++n) {
    const float* begin = request.series().values().data() + n * kPoints;
    series[request.variable_names(n)] = std::vector<double>(begin, begin + kPoints);
  }
  nlohmann::ordered_json body = {{"series", series}};
  body.update(extra);
  return body.dump();
}

// The JSON answer's forecast as [N, F] in the request's column order.
std::vector<float> forecast_by_column(const nlohmann::json& columns) {
  std::vector<float> out;
  for (const std::string& column : kEtthColumns) {
    const std::vector<float> values = json_floats(columns.at(column));
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

// [1, F, N] (the Open Inference Protocol's layout) as [N, F].
std::vector<float> variables_by_time(const std::vector<float>& time_by_variables) {
  std::vector<float> out(time_by_variables.size());
  const std::size_t variables = kEtthColumns.size();
  const std::size_t points = time_by_variables.size() / variables;
  for (std::size_t t = 0; t < points; ++t) {
    for (std::size_t v = 0; v < variables; ++v) {
      out[v * points + t] = time_by_variables[t * variables + v];
    }
  }
  return out;
}

// UTC text of Unix seconds, by the C library (not the server's formatter).
std::string utc_text(int64_t seconds) {
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  gmtime_r(&time, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// One forecast through each of the five doors; each answer as [N, F] floats, and the
// batch rows each door reported.
struct FiveAnswers {
  std::vector<std::vector<float>> forecasts;  // v1 JSON, OIP JSON, OIP binary, gRPC v1, OIP
  std::vector<int64_t> batch_rows;
};

FiveAnswers forecast_through_five_doors(ServerHarness& harness, uint64_t seed) {
  const int port = harness.server().http_port();
  const v1::ForecastRequest v1_request = named_forecast_request(seed);
  const inference::ModelInferRequest oip_request = bundled_infer_request(seed, 7);
  // The binary extension: the JSON header without data, then the series' bytes.
  nlohmann::json header = nlohmann::json::parse(rest_json(oip_request));
  header["inputs"][0].erase("data");
  const auto& values = oip_request.inputs(0).contents().fp32_contents();
  header["inputs"][0]["parameters"] = {{"binary_data_size", values.size() * 4}};
  header["parameters"]["binary_data_output"] = true;
  const std::string binary_head = header.dump();
  const std::string binary_body =
      binary_head + little_endian_bytes(std::vector<float>(values.begin(), values.end()));

  auto v1_json = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/v1/models/patchtst-etth1/forecast", forecast_json(v1_request),
                     kJsonHeaders);
  });
  auto oip_json = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/v2/models/patchtst-etth1/infer", rest_json(oip_request),
                     kJsonHeaders);
  });
  auto oip_binary = std::async(std::launch::async, [&] {
    return http_call(port, "POST", "/v2/models/patchtst-etth1/infer", binary_body,
                     {{"Content-Type", "application/octet-stream"},
                      {"Inference-Header-Content-Length", std::to_string(binary_head.size())}});
  });
  auto grpc_v1 = std::async(std::launch::async, [&] {
    v1::ForecastResponse response;
    grpc::ClientContext context;
    const grpc::Status status = harness.stub().Forecast(&context, v1_request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  });
  auto grpc_oip = std::async(std::launch::async, [&] { return grpc_infer(harness, oip_request); });

  FiveAnswers answers;
  const HttpReply json_reply = v1_json.get();
  EXPECT_EQ(json_reply.status, 200) << json_reply.body;
  const nlohmann::json json_answer = json_body(json_reply);
  answers.forecasts.push_back(forecast_by_column(json_answer["forecast"]));
  answers.batch_rows.push_back(json_answer["timing"]["batch_rows"].get<int64_t>());

  const HttpReply rest_reply = oip_json.get();
  EXPECT_EQ(rest_reply.status, 200) << rest_reply.body;
  const nlohmann::json rest_answer = json_body(rest_reply);
  answers.forecasts.push_back(variables_by_time(json_floats(rest_answer["outputs"][0]["data"])));
  answers.batch_rows.push_back(rest_answer["parameters"]["batch_rows"].get<int64_t>());

  const HttpReply binary_reply = oip_binary.get();
  EXPECT_EQ(binary_reply.status, 200) << binary_reply.body.substr(0, 300);
  const std::size_t head_length =
      std::stoul(binary_reply.header("inference-header-content-length").value_or("0"));
  const nlohmann::json binary_answer =
      nlohmann::json::parse(binary_reply.body.substr(0, head_length));
  answers.forecasts.push_back(
      variables_by_time(floats_from_little_endian(binary_reply.body.substr(head_length))));
  answers.batch_rows.push_back(binary_answer["parameters"]["batch_rows"].get<int64_t>());

  const v1::ForecastResponse v1_response = grpc_v1.get();
  answers.forecasts.push_back(floats(v1_response.forecast()));
  answers.batch_rows.push_back(v1_response.timing().batch_rows());

  const inference::ModelInferResponse oip_response = grpc_oip.get();
  answers.forecasts.push_back(variables_by_time(output_floats(oip_response, 0)));
  answers.batch_rows.push_back(oip_response.parameters().at("batch_rows").int64_param());
  return answers;
}

const char* const kDoors[] = {"v1 JSON", "OIP REST JSON", "OIP REST binary", "gRPC v1", "gRPC OIP"};

TEST(JsonApi, OneForecastIsBitwiseTheSameThroughFiveDoorsAloneAndInOneBatch) {
  // Alone: a server that batches nothing.
  std::vector<std::vector<float>> alone;
  {
    ServerConfig config = test_config();
    config.batching.max_batch_rows = 7;
    ServerHarness harness(config);
    alone = forecast_through_five_doors(harness, 101).forecasts;
  }
  ASSERT_EQ(alone[0].size(), static_cast<std::size_t>(7 * kHorizon));
  for (std::size_t door = 1; door < alone.size(); ++door) {
    EXPECT_EQ(alone[door], alone[0]) << kDoors[door] << " differs from " << kDoors[0];
  }

  // Together: the batch closes only when it holds all 35 rows (it cannot close on time
  // first: an hour), so the five answers came from one forward pass.
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 35;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);
  const FiveAnswers together = forecast_through_five_doors(harness, 101);
  EXPECT_EQ(metric_total(harness.scrape(), "tsserve_batch_rows_count"), 1);
  for (std::size_t door = 0; door < together.forecasts.size(); ++door) {
    EXPECT_EQ(together.batch_rows[door], 35) << kDoors[door];
    EXPECT_EQ(together.forecasts[door], alone[0]) << kDoors[door] << " in a shared batch";
  }
}

TEST(JsonApi, IntervalsAttentionAndTimestampsAreTheGrpcAnswersByColumn) {
  ServerHarness harness;
  v1::ForecastRequest request = named_forecast_request(103);
  nlohmann::ordered_json texts = nlohmann::ordered_json::array();
  for (int64_t t = 0; t < kPoints; ++t) {
    request.add_timestamps(kJuly2016 + 3600 * t);
    std::string text = utc_text(kJuly2016 + 3600 * t);
    text[10] = ' ';  // as a CSV writes it: "2016-07-01 00:00:00", UTC
    texts.push_back(text.substr(0, 19));
  }
  request.add_interval_levels(0.8);
  request.add_interval_levels(0.95);
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_layers(1);
  request.mutable_attention()->add_variables(6);
  request.mutable_attention()->set_average_heads(true);
  v1::ForecastResponse expected;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Forecast(&context, request, &expected).ok());

  const std::string body = forecast_json(
      request, {{"timestamps", texts},
                {"intervals", {0.8, 0.95}},
                {"attention", {{"layers", {1}}, {"average_heads", true}, {"variables", {"OT"}}}}});
  const HttpReply reply =
      http_call(harness.server().http_port(), "POST",
                "/v1/models/patchtst-etth1/versions/1/forecast", body, kJsonHeaders);
  ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
  EXPECT_EQ(reply.header("content-type"), "application/json");
  const nlohmann::json answer = json_body(reply);
  EXPECT_EQ(answer["model"], "patchtst-etth1");
  EXPECT_EQ(answer["version"], "1");
  EXPECT_EQ(answer["scaler_applied"], true);
  EXPECT_EQ(answer["input_points_used"], kPoints);
  EXPECT_EQ(forecast_by_column(answer["forecast"]), floats(expected.forecast()));

  ASSERT_EQ(expected.forecast_timestamps_size(), kHorizon);
  ASSERT_EQ(answer["timestamps"].size(), static_cast<std::size_t>(kHorizon));
  for (int k = 0; k < kHorizon; ++k) {
    EXPECT_EQ(answer["timestamps"][k], utc_text(expected.forecast_timestamps(k))) << k;
  }
  EXPECT_EQ(answer["timestamps"][0], "2016-07-15T00:00:00Z");

  ASSERT_EQ(expected.intervals_size(), 2);
  for (const auto& band : expected.intervals()) {
    const std::string level = band.level() == 0.8 ? "0.8" : "0.95";
    EXPECT_EQ(forecast_by_column(answer["intervals"][level]["lower"]), floats(band.lower()));
    EXPECT_EQ(forecast_by_column(answer["intervals"][level]["upper"]), floats(band.upper()));
  }

  ASSERT_EQ(expected.attention_size(), 1);
  ASSERT_EQ(answer["attention"].size(), 1u);
  const nlohmann::json& map = answer["attention"][0];
  EXPECT_EQ(map["layer"], 1);
  EXPECT_EQ(map["variable"], "OT");
  EXPECT_EQ(map["heads_averaged"], true);
  const auto& weights = expected.attention(0).weights();
  ASSERT_EQ(weights.shape_size(), 2);
  ASSERT_EQ(map["weights"].size(), static_cast<std::size_t>(weights.shape(0)));
  std::vector<float> rows;
  for (const auto& row : map["weights"]) {
    ASSERT_EQ(row.size(), static_cast<std::size_t>(weights.shape(1)));
    const std::vector<float> values = json_floats(row);
    rows.insert(rows.end(), values.begin(), values.end());
  }
  EXPECT_EQ(rows, floats(weights));
}

TEST(JsonApi, ListingAndInfoSayWhatGrpcSays) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  v1::GetModelInfoRequest ask;
  ask.set_model("patchtst-etth1");
  v1::GetModelInfoResponse grpc_info;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().GetModelInfo(&context, ask, &grpc_info).ok());

  const HttpReply info_reply = http_call(port, "GET", "/v1/models/patchtst-etth1");
  ASSERT_EQ(info_reply.status, 200) << info_reply.body;
  const nlohmann::json info = json_body(info_reply);
  EXPECT_EQ(info["name"], grpc_info.info().name());
  EXPECT_EQ(info["version"], grpc_info.info().version());
  EXPECT_EQ(info["seq_len"], grpc_info.info().seq_len());
  EXPECT_EQ(info["pred_len"], grpc_info.info().pred_len());
  EXPECT_EQ(info["attention"], "ATTENTION_KIND_FULL");
  EXPECT_EQ(info["resident_bytes"], std::to_string(grpc_info.info().resident_bytes()));
  EXPECT_EQ(info["scaler_columns"], nlohmann::json(kEtthColumns));
  EXPECT_EQ(info["calibration_levels"].size(),
            static_cast<std::size_t>(grpc_info.info().calibration_levels_size()));
  EXPECT_EQ(json_body(http_call(port, "GET", "/v1/models/patchtst-etth1/versions/1")), info);

  const nlohmann::json list = json_body(http_call(port, "GET", "/v1/models"));
  ASSERT_EQ(list["models"].size(), 1u);
  EXPECT_EQ(list["models"][0]["name"], "patchtst-etth1");
  EXPECT_EQ(list["models"][0]["default_version"], "1");
  EXPECT_EQ(list["models"][0]["versions"][0]["state"], "STATE_READY");

  const HttpReply missing = http_call(port, "GET", "/v1/models/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(json_body(missing)["error"].get<std::string>(), HasSubstr("nope"));
  const HttpReply document = http_call(port, "GET", "/openapi.json");
  EXPECT_EQ(document.status, 200);
  EXPECT_EQ(json_body(document)["openapi"], "3.1.0");
}

TEST(JsonApi, ActualsScoreTheForecastKeptUnderTheirKey) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  v1::ForecastRequest request = named_forecast_request(107);
  nlohmann::ordered_json seconds = nlohmann::ordered_json::array();
  for (int64_t t = 0; t < kPoints; ++t) seconds.push_back(kJuly2016 + 3600 * t);
  const HttpReply forecast = http_call(
      port, "POST", "/v1/models/patchtst-etth1/forecast",
      forecast_json(request, {{"timestamps", seconds}, {"series_key", "plant-7"}}), kJsonHeaders);
  ASSERT_EQ(forecast.status, 200) << forecast.body.substr(0, 300);
  const nlohmann::json answer = json_body(forecast);
  ASSERT_EQ(answer["forecast_stored"], true);
  const int64_t first = answer["timestamps"][0].get<int64_t>();
  EXPECT_EQ(first, kJuly2016 + 3600 * kPoints);  // numbers in, numbers out

  // Two hours of OT, the second a gap; then the same again (already scored).
  const nlohmann::json report = {{"series_key", "plant-7"},
                                 {"timestamps", {utc_text(first), utc_text(first + 3600)}},
                                 {"actuals", {{"OT", {25.5, nullptr}}}}};
  const HttpReply scored = http_call(port, "POST", "/v1/actuals", report.dump(), kJsonHeaders);
  ASSERT_EQ(scored.status, 200) << scored.body;
  EXPECT_EQ(json_body(scored),
            nlohmann::json::parse(R"({"matched": 1, "unmatched": {"unknown_key": 0,
              "not_finite": 1, "unknown_variable": 0, "no_forecast": 0, "already_reported": 0}})"));
  const nlohmann::json again =
      json_body(http_call(port, "POST", "/v1/actuals", report.dump(), kJsonHeaders));
  EXPECT_EQ(again["matched"], 0);
  EXPECT_EQ(again["unmatched"]["already_reported"], 1);
  nlohmann::json unknown = report;
  unknown["series_key"] = "plant-8";
  EXPECT_EQ(json_body(http_call(port, "POST", "/v1/actuals", unknown.dump(),
                                kJsonHeaders))["unmatched"]["unknown_key"],
            2);

  // GET /v1/accuracy: the one point scored, in the first horizon bucket, as /metrics
  // exports it; the other buckets have no point behind them (null).
  const HttpReply accuracy = http_call(port, "GET", "/v1/accuracy");
  ASSERT_EQ(accuracy.status, 200) << accuracy.body;
  const nlohmann::json counted = json_body(accuracy);
  ASSERT_EQ(counted["counting"], true);
  ASSERT_EQ(counted["versions"].size(), 1u) << counted.dump();
  const nlohmann::json& version = counted["versions"][0];
  EXPECT_EQ(version["model"], "patchtst-etth1");
  const nlohmann::json& day_one = version["horizons"][0];
  EXPECT_EQ(day_one["steps"], "1-24");
  EXPECT_EQ(day_one["points"], 1);
  const std::string scraped = harness.scrape();
  EXPECT_DOUBLE_EQ(day_one["mae"].get<double>(),
                   metric_total(scraped, "tsserve_forecast_abs_error_total{horizon=\"1-24\"}")
                       .value_or(std::nan("absent")));
  EXPECT_DOUBLE_EQ(day_one["mse"].get<double>(),
                   metric_total(scraped, "tsserve_forecast_squared_error_total{horizon=\"1-24\"}")
                       .value_or(std::nan("absent")));
  EXPECT_TRUE(version["horizons"][1]["mae"].is_null());
  EXPECT_TRUE(version["intervals"].empty());
}

// POST /v1/series/K/observe: the history by column with a forecast, bitwise the gRPC
// Forecast of the same window; then one point, flagged against that forecast as the gRPC
// Observe of a twin key flags it; a repeated time refused naming it.
TEST(JsonApi, ObserveTakesPointsByColumnAndAnswersAsTheGrpcDoor) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  v1::ForecastRequest request = named_forecast_request(211);
  nlohmann::ordered_json seconds = nlohmann::ordered_json::array();
  for (int64_t t = 0; t < kPoints; ++t) seconds.push_back(kJuly2016 + 3600 * t);
  nlohmann::ordered_json body = nlohmann::ordered_json::parse(forecast_json(request));
  nlohmann::ordered_json history = {{"timestamps", seconds},
                                    {"values", body["series"]},
                                    {"forecast", true},
                                    {"intervals", {0.8, 0.99}}};
  const HttpReply first =
      http_call(port, "POST", "/v1/series/meter-9/observe", history.dump(), kJsonHeaders);
  ASSERT_EQ(first.status, 200) << first.body.substr(0, 300);
  const nlohmann::json answer = json_body(first);
  EXPECT_EQ(answer["series_key"], "meter-9");
  EXPECT_EQ(answer["window_points"], kPoints);
  ASSERT_TRUE(answer.contains("forecast")) << first.body.substr(0, 300);
  for (const double level : {0.8, 0.99}) request.add_interval_levels(level);
  for (int64_t t = 0; t < kPoints; ++t) request.add_timestamps(kJuly2016 + 3600 * t);
  const v1::ForecastResponse grpc_forecast = forecast_expecting_ok(harness, request);
  const std::vector<float> by_json = forecast_by_column(answer["forecast"]["forecast"]);
  const std::vector<float> by_grpc = floats(grpc_forecast.forecast());
  ASSERT_EQ(by_json.size(), by_grpc.size());
  EXPECT_EQ(std::memcmp(by_json.data(), by_grpc.data(), by_json.size() * sizeof(float)), 0);

  // The next hour, one value per column, through both doors (twin keys).
  const int64_t next = kJuly2016 + 3600 * kPoints;
  nlohmann::ordered_json point = {{"timestamps", {next}},
                                  {"values", nlohmann::ordered_json::object()}};
  v1::ObserveRequest twin_history;
  twin_history.set_series_key("meter-9-grpc");
  for (const std::string& column : kEtthColumns) twin_history.add_variable_names(column);
  for (int64_t t = 0; t < kPoints; ++t) {
    twin_history.add_timestamps(kJuly2016 + 3600 * t);
    for (int n = 0; n < 7; ++n) twin_history.add_values(request.series().values(n * kPoints + t));
  }
  twin_history.set_forecast(true);
  twin_history.add_interval_levels(0.8);
  twin_history.add_interval_levels(0.99);
  v1::ObserveResponse twin;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(harness.stub().Observe(&context, twin_history, &twin).ok());
  }
  v1::ObserveRequest twin_point;
  twin_point.set_series_key("meter-9-grpc");
  twin_point.add_timestamps(next);
  for (int n = 0; n < 7; ++n) {
    const double value = 10.0 + n;
    point["values"][kEtthColumns[static_cast<size_t>(n)]] = {value};
    twin_point.add_values(value);
  }
  const HttpReply flagged =
      http_call(port, "POST", "/v1/series/meter-9/observe", point.dump(), kJsonHeaders);
  ASSERT_EQ(flagged.status, 200) << flagged.body.substr(0, 300);
  const nlohmann::json flags = json_body(flagged);
  {
    grpc::ClientContext context;
    ASSERT_TRUE(harness.stub().Observe(&context, twin_point, &twin).ok());
  }
  int64_t anomalies = 0;
  for (int n = 0; n < 7; ++n) {
    const nlohmann::json& got = flags["points"][kEtthColumns[static_cast<size_t>(n)]][0];
    const v1::ObservedPoint& want = twin.points(n);
    ASSERT_TRUE(got["scored"].get<bool>());
    EXPECT_EQ(got["step"], 1);
    EXPECT_EQ(got["forecast"].get<double>(), want.forecast());
    EXPECT_EQ(got["score"].get<double>(), want.score());
    EXPECT_EQ(got["anomaly"].get<bool>(), want.anomaly());
    ASSERT_EQ(got["intervals"].size(), 2u);
    EXPECT_EQ(got["intervals"][1]["upper"].get<double>(), want.intervals(1).upper());
    anomalies += want.anomaly() ? 1 : 0;
  }
  EXPECT_EQ(flags["anomalies"], anomalies);

  const HttpReply repeated =
      http_call(port, "POST", "/v1/series/meter-9/observe", point.dump(), kJsonHeaders);
  EXPECT_EQ(repeated.status, 400);
  EXPECT_THAT(json_body(repeated)["error"].get<std::string>(),
              HasSubstr("timestamps[0]: " + std::to_string(next)));
}

TEST(JsonApi, AccuracySaysWhenNothingIsCounted) {
  ServerConfig config = test_config();
  config.server.metrics_address = "";  // no metrics: no accuracy counters
  ServerHarness harness(config);
  const HttpReply reply = http_call(harness.server().http_port(), "GET", "/v1/accuracy");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(json_body(reply), nlohmann::json::parse(R"({"counting": false, "versions": []})"));
  EXPECT_EQ(
      http_call(harness.server().http_port(), "POST", "/v1/accuracy", "{}", kJsonHeaders).status,
      405);
}

TEST(JsonApi, AClientThatLeavesWhileQueuedEndsItsCallUncomputed) {
  ServerConfig config = test_config();
  config.batching.max_batch_rows = 14;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);
  const std::string body = forecast_json(named_forecast_request(113));
  {
    tsserve::testing::RawHttpConnection connection(harness.server().http_port());
    ASSERT_TRUE(
        connection.send("POST /v1/models/patchtst-etth1/forecast HTTP/1.1\r\nHost: t\r\n"
                        "Content-Type: application/json\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body));
    ASSERT_TRUE(metric_reaches(harness, "tsserve_inflight_requests", 1));  // queued
  }                                                                        // the client goes
  ASSERT_TRUE(metric_reaches(
      harness, "tsserve_requests_total{code=\"CANCELLED\",method=\"Forecast\",protocol=\"http\"}",
      1));
  EXPECT_EQ(metric_value(harness.scrape(), "tsserve_inflight_requests"), 0);

  // 14 more rows close a batch at once; the abandoned task is dropped, not computed.
  v1::ForecastResponse filler;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.stub().Forecast(&context, forecast_request(14, kPoints, 114), &filler).ok());
  EXPECT_EQ(metric_total(harness.scrape(), "tsserve_inference_rows_total"), 14);
}

struct BadRequest {
  const char* what;
  std::string method, path, body, content_type;
  int status;
  std::string message;  // a part of the error that names the field
};

TEST(JsonApi, BadRequestsAreRefusedByFieldAndTheServerServesOn) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  const std::string forecast = "/v1/models/patchtst-etth1/forecast";
  const std::string json = "application/json";
  const std::string good = forecast_json(named_forecast_request(109));
  const std::string short_good = good.substr(0, good.size() / 2);
  const std::vector<BadRequest> cases = {
      {"truncated", "POST", forecast, short_good, json, 400, "malformed JSON"},
      {"not JSON", "POST", forecast, "series=1", json, 400, "the body: malformed JSON"},
      {"series not columns", "POST", forecast, R"({"series": [1, 2]})", json, 400,
       "series: expected an object of columns"},
      {"NaN literal", "POST", forecast, R"({"series": {"OT": [1, NaN]}})", json, 400,
       "series.OT[1]"},
      {"Infinity literal", "POST", forecast, R"({"series": {"OT": [Infinity]}})", json, 400,
       "series.OT[0]"},
      {"float32 overflow", "POST", forecast, R"({"series": {"OT": [1e39]}})", json, 400,
       "series.OT[0]: 1e39 is out of range for float32"},
      {"a string point", "POST", forecast, R"({"series": {"OT": ["1"]}})", json, 400,
       "series.OT[0]: expected a number"},
      {"a gap", "POST", forecast, R"({"series": {"OT": [1, null]}})", json, 400,
       "series.OT[1]: null; fill gaps"},
      {"deep nesting", "POST", forecast, R"({"series": {"OT": [[[[[[1]]]]]]}})", json, 400,
       "series.OT[0]: expected a number"},
      {"duplicate field", "POST", forecast, R"({"series": {"OT": [1]}, "series": {}})", json, 400,
       "series: given twice"},
      {"duplicate column", "POST", forecast, R"({"series": {"OT": [1], "OT": [2]}})", json, 400,
       "series.OT: given twice"},
      {"uneven columns", "POST", forecast, R"({"series": {"OT": [1, 2], "HULL": [1]}})", json, 400,
       "series.HULL: 1 points where series.OT has 2"},
      {"unknown field", "POST", forecast, R"({"series": {"OT": [1]}, "horizon": 5})", json, 400,
       "horizon: unknown field"},
      {"uncalibrated level", "POST", forecast,
       forecast_json(named_forecast_request(109), {{"intervals", {0.33}}}), json, 400,
       "intervals[0]: 0.33 is not a calibrated level"},
      {"too short", "POST", forecast, R"({"series": {"OT": [1, 2, 3]}})", json, 400, "336"},
      {"mixed timestamps", "POST", forecast,
       R"({"series": {"OT": [1, 2]}, "timestamps": [0, "2016-07-01 00:00:00"]})", json, 400,
       "timestamps[1]: timestamps mix"},
      {"bad date", "POST", forecast,
       R"({"series": {"OT": [1]}, "timestamps": ["2016-13-01 00:00:00"]})", json, 400,
       "timestamps[0]"},
      {"attention on no column", "POST", forecast,
       R"({"series": {"OT": [1]}, "attention": {"variables": ["HUFL"]}})", json, 400,
       "attention.variables[0]: \"HUFL\" is not a column"},
      {"scaler word", "POST", forecast, R"({"series": {"OT": [1]}, "scaler": "maybe"})", json, 400,
       "scaler: \"maybe\""},
      {"wrong content type", "POST", forecast, good, "text/plain", 415, "content-type"},
      {"GET a forecast", "GET", forecast, "", "", 405, "takes POST"},
      {"unknown model", "POST", "/v1/models/nope/forecast", good, json, 404, "nope"},
      {"unknown path", "GET", "/v1/forecasts", "", "", 404, "/v1/forecasts"},
      {"actuals without key", "POST", "/v1/actuals",
       R"({"timestamps": [0], "actuals": {"OT": [1]}})", json, 400, "series_key: missing"},
      {"actuals uneven", "POST", "/v1/actuals",
       R"({"series_key": "k", "timestamps": [0, 3600], "actuals": {"OT": [1]}})", json, 400,
       "actuals.OT: 1 values for 2 timestamps"},
  };
  for (const BadRequest& bad : cases) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!bad.content_type.empty()) headers.emplace_back("Content-Type", bad.content_type);
    const HttpReply reply = http_call(port, bad.method, bad.path, bad.body, headers);
    EXPECT_EQ(reply.status, bad.status) << bad.what << ": " << reply.body;
    const nlohmann::json error = json_body(reply);
    ASSERT_TRUE(error.is_object() && error.contains("error")) << bad.what << ": " << reply.body;
    EXPECT_THAT(error["error"].get<std::string>(), HasSubstr(bad.message)) << bad.what;
  }
  const HttpReply served = http_call(port, "POST", forecast, good, kJsonHeaders);
  EXPECT_EQ(served.status, 200) << served.body.substr(0, 300);
}

}  // namespace
}  // namespace tsserve::server::testing
