// The JSON work of one REST inference of the bundled model (a 1 x 336 x 7 FP32 request in,
// a 1 x 96 x 7 forecast out), by the library the HTTP door uses (simdjson reading,
// std::to_chars writing: codec/oip_rest, codec/json) beside nlohmann-json doing the same
// (a DOM parse into the same ModelInferRequest, a DOM dump of the answer). Figures in
// BENCHMARKS.md ("The JSON of one request, both doors"); the target is parse + write under
// 100 us. The JSON API's forecast (/v1, named columns) of the same window beside it.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "server/codec/oip_rest/oip_json_request.h"
#include "server/codec/oip_rest/oip_json_response.h"
#include "server/codec/v1_json/forecast_json_request.h"
#include "server/codec/v1_json/forecast_json_response.h"

namespace {

// The bundled model's request, values as a client prints them (Python's json: the
// shortest repr of a double read from a CSV with 3 decimals).
std::string request_body() {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> value(-5.0, 30.0);
  nlohmann::json data = nlohmann::json::array();
  for (int t = 0; t < 336; ++t) {
    nlohmann::json row = nlohmann::json::array();
    for (int v = 0; v < 7; ++v) row.push_back(std::round(value(random) * 1000) / 1000);
    data.push_back(row);
  }
  nlohmann::json body = {{"id", "bench"},
                         {"inputs",
                          {{{"name", "series"},
                            {"datatype", "FP32"},
                            {"shape", {1, 336, 7}},
                            {"data", nlohmann::json::array({data})}}}}};
  return body.dump();
}

inference::ModelInferResponse forecast_response() {
  inference::ModelInferResponse response;
  response.set_model_name("patchtst-etth1");
  response.set_model_version("1");
  response.set_id("bench");
  (*response.mutable_parameters())["batch_rows"].set_int64_param(7);
  (*response.mutable_parameters())["scaler_applied"].set_bool_param(true);
  auto* output = response.add_outputs();
  output->set_name("forecast");
  output->set_datatype("FP32");
  for (int d : {1, 96, 7}) output->add_shape(d);
  std::mt19937 random(4);
  std::normal_distribution<float> value(10.0f, 5.0f);
  for (int i = 0; i < 96 * 7; ++i) output->mutable_contents()->add_fp32_contents(value(random));
  return response;
}

void flatten(const nlohmann::json& data, inference::InferTensorContents* contents) {
  for (const auto& item : data) {
    if (item.is_array()) {
      flatten(item, contents);
    } else {
      contents->add_fp32_contents(item.get<float>());
    }
  }
}

void BM_ParseRequest_Simdjson(benchmark::State& state) {
  const std::string body = request_body();
  for (auto _ : state) {
    std::string copy = body;
    inference::ModelInferRequest request;
    const auto status = tsserve::server::parse_oip_json_request(copy, &request);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(request);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_ParseRequest_Simdjson)->Unit(benchmark::kMicrosecond);

void BM_ParseRequest_Nlohmann(benchmark::State& state) {
  const std::string body = request_body();
  for (auto _ : state) {
    std::string copy = body;
    const nlohmann::json json = nlohmann::json::parse(copy);
    inference::ModelInferRequest request;
    request.set_id(json.at("id").get<std::string>());
    for (const auto& tensor : json.at("inputs")) {
      auto* input = request.add_inputs();
      input->set_name(tensor.at("name").get<std::string>());
      input->set_datatype(tensor.at("datatype").get<std::string>());
      for (const auto& d : tensor.at("shape")) input->add_shape(d.get<int64_t>());
      flatten(tensor.at("data"), input->mutable_contents());
    }
    benchmark::DoNotOptimize(request);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_ParseRequest_Nlohmann)->Unit(benchmark::kMicrosecond);

void BM_WriteResponse_ToChars(benchmark::State& state) {
  const inference::ModelInferResponse response = forecast_response();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = tsserve::server::oip_json_infer_response(response);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WriteResponse_ToChars)->Unit(benchmark::kMicrosecond);

void BM_WriteResponse_Nlohmann(benchmark::State& state) {
  const inference::ModelInferResponse response = forecast_response();
  std::size_t bytes = 0;
  for (auto _ : state) {
    nlohmann::json json = {{"model_name", response.model_name()},
                           {"model_version", response.model_version()},
                           {"id", response.id()},
                           {"parameters", {{"batch_rows", 7}, {"scaler_applied", true}}}};
    const auto& output = response.outputs(0);
    json["outputs"] = {{{"name", output.name()},
                        {"datatype", output.datatype()},
                        {"shape", {1, 96, 7}},
                        {"data", std::vector<float>(output.contents().fp32_contents().begin(),
                                                    output.contents().fp32_contents().end())}}};
    const std::string text = json.dump();
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WriteResponse_Nlohmann)->Unit(benchmark::kMicrosecond);

// The JSON API's (/v1) forecast of the same window: 7 named columns of 336 in, 7 of 96
// out (codec/v1_json).
std::string forecast_json_body() {
  const nlohmann::json rest = nlohmann::json::parse(request_body());
  const auto& rows = rest["inputs"][0]["data"][0];
  const char* columns[] = {"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"};
  nlohmann::ordered_json series = nlohmann::ordered_json::object();
  for (int v = 0; v < 7; ++v) {
    std::vector<double> column;
    for (const auto& row : rows) column.push_back(row[v].get<double>());
    series[columns[v]] = column;
  }
  return nlohmann::ordered_json{{"series", series}, {"request_id", "bench"}}.dump();
}

void BM_ParseForecastJson_Simdjson(benchmark::State& state) {
  const std::string body = forecast_json_body();
  for (auto _ : state) {
    std::string copy = body;
    tsserve::server::ForecastJsonRequest request;
    const auto status = tsserve::server::parse_forecast_json_request(copy, &request);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(request);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
}
BENCHMARK(BM_ParseForecastJson_Simdjson)->Unit(benchmark::kMicrosecond);

void BM_WriteForecastJson_ToChars(benchmark::State& state) {
  std::string body = forecast_json_body();
  tsserve::server::ForecastJsonRequest request;
  if (!tsserve::server::parse_forecast_json_request(body, &request).ok()) std::abort();
  const inference::ModelInferResponse rest = forecast_response();
  tsserve::v1::ForecastResponse response;
  response.set_model_name("patchtst-etth1");
  response.set_model_version("1");
  response.set_request_id("bench");
  auto* forecast = response.mutable_forecast();
  forecast->add_shape(7);
  forecast->add_shape(96);
  const auto& values = rest.outputs(0).contents().fp32_contents();
  forecast->mutable_values()->Add(values.begin(), values.end());
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = tsserve::server::write_forecast_json_response(request, response);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WriteForecastJson_ToChars)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
