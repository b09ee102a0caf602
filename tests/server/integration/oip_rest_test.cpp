// The Open Inference Protocol's REST binding on loopback beside the gRPC binding of the
// same server: health and metadata as the gRPC answers say, an inference over JSON bitwise
// the gRPC binding's (and sharing its batch), bad requests refused by field with a 4xx
// JSON body while the server serves on, and the calls counted with protocol="http".
// The client is a plain socket (raw_http_client.h); the JSON sent and read is built and
// parsed by nlohmann-json, independently of the server's own reader and writer.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "http_test_support.h"

namespace tsserve::server::testing {
namespace {

using ::testing::HasSubstr;

TEST(OipRest, HealthAndMetadataSayWhatTheGrpcBindingSays) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  ASSERT_GT(port, 0);
  HttpReply live = http_call(port, "GET", "/v2/health/live");
  EXPECT_EQ(live.status, 200);
  EXPECT_EQ(json_body(live), nlohmann::json({{"live", true}}));
  EXPECT_EQ(live.header("content-type"), "application/json");
  EXPECT_EQ(json_body(http_call(port, "GET", "/v2/health/ready")),
            nlohmann::json({{"ready", true}}));

  const nlohmann::json server = json_body(http_call(port, "GET", "/v2"));
  EXPECT_EQ(server["name"], "tsserve");
  EXPECT_FALSE(server["version"].get<std::string>().empty());
  EXPECT_EQ(server["extensions"], nlohmann::json({"binary_tensor_data", "model_repository"}));
  EXPECT_EQ(json_body(http_call(port, "GET", "/v2/")), server);

  inference::ModelMetadataRequest ask;
  ask.set_name("patchtst-etth1");
  inference::ModelMetadataResponse grpc_metadata;
  grpc::ClientContext context;
  ASSERT_TRUE(harness.oip().ModelMetadata(&context, ask, &grpc_metadata).ok());
  const nlohmann::json metadata = json_body(http_call(port, "GET", "/v2/models/patchtst-etth1"));
  EXPECT_EQ(metadata["name"], grpc_metadata.name());
  EXPECT_EQ(metadata["platform"], grpc_metadata.platform());
  EXPECT_EQ(metadata["versions"],
            nlohmann::json(std::vector<std::string>(grpc_metadata.versions().begin(),
                                                    grpc_metadata.versions().end())));
  ASSERT_EQ(metadata["outputs"].size(), static_cast<std::size_t>(grpc_metadata.outputs_size()));
  for (int i = 0; i < grpc_metadata.outputs_size(); ++i) {
    const auto& want = grpc_metadata.outputs(i);
    EXPECT_EQ(metadata["outputs"][i]["name"], want.name());
    EXPECT_EQ(metadata["outputs"][i]["shape"],
              nlohmann::json(std::vector<int64_t>(want.shape().begin(), want.shape().end())));
  }
  EXPECT_EQ(json_body(http_call(port, "GET", "/v2/models/patchtst-etth1/versions/1")), metadata);

  HttpReply ready = http_call(port, "GET", "/v2/models/patchtst-etth1/ready");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(json_body(ready), nlohmann::json({{"name", "patchtst-etth1"}, {"ready", true}}));
  HttpReply unknown = http_call(port, "GET", "/v2/models/nope");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(json_body(unknown)["error"].get<std::string>(), HasSubstr("\"nope\" is not served"));
}

TEST(OipRest, InferenceOverJsonIsTheGrpcBindingsAnswerBitForBit) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  inference::ModelInferRequest request = bundled_infer_request(71);
  request.set_id("rest-1");
  const inference::ModelInferResponse expected = grpc_infer(harness, request);

  const HttpReply reply =
      http_call(port, "POST", "/v2/models/patchtst-etth1/infer", rest_json(request), kJsonHeaders);
  ASSERT_EQ(reply.status, 200) << reply.body;
  const nlohmann::json answer = json_body(reply);
  EXPECT_EQ(answer["model_name"], "patchtst-etth1");
  EXPECT_EQ(answer["model_version"], "1");
  EXPECT_EQ(answer["id"], "rest-1");
  EXPECT_EQ(answer["parameters"]["scaler_applied"], true);
  ASSERT_EQ(answer["outputs"].size(), 1u);
  EXPECT_EQ(answer["outputs"][0]["name"], "forecast");
  EXPECT_EQ(answer["outputs"][0]["datatype"], "FP32");
  EXPECT_EQ(answer["outputs"][0]["shape"], nlohmann::json({1, 96, 7}));
  EXPECT_EQ(json_floats(answer["outputs"][0]["data"]), output_floats(expected, 0));

  // The version in the path picks it, as model_version does over gRPC.
  const HttpReply versioned = http_call(port, "POST", "/v2/models/patchtst-etth1/versions/1/infer",
                                        rest_json(request), kJsonHeaders);
  EXPECT_EQ(versioned.status, 200);
  EXPECT_EQ(json_floats(json_body(versioned)["outputs"][0]["data"]), output_floats(expected, 0));
}

TEST(OipRest, TheBinaryExtensionCarriesTheForecastAndItsMapsAsTheGrpcRawBytes) {
  ServerHarness harness;
  inference::ModelInferRequest request = bundled_infer_request(75);
  request_outputs(&request, {"forecast", "attention"});
  set_string_parameter(&request, "attention_layers", "0");
  // The gRPC binding, raw in and raw out: the reference bytes.
  inference::ModelInferRequest raw = request;
  const auto& values = request.inputs(0).contents().fp32_contents();
  raw.add_raw_input_contents(little_endian_bytes(std::vector<float>(values.begin(), values.end())));
  raw.mutable_inputs(0)->clear_contents();
  const inference::ModelInferResponse expected = grpc_infer(harness, raw);
  ASSERT_EQ(expected.raw_output_contents_size(), 2);

  // The REST binding: a JSON header without data, the series' bytes after it, both
  // outputs asked for as bytes.
  nlohmann::json header = nlohmann::json::parse(rest_json(request));
  header["inputs"][0].erase("data");
  header["inputs"][0]["parameters"] = {{"binary_data_size", values.size() * 4}};
  header["parameters"]["binary_data_output"] = true;
  const std::string json = header.dump();
  const std::string body = json + raw.raw_input_contents(0);
  const HttpReply reply =
      http_call(harness.server().http_port(), "POST", "/v2/models/patchtst-etth1/infer", body,
                {{"Content-Type", "application/octet-stream"},
                 {"Inference-Header-Content-Length", std::to_string(json.size())}});
  ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
  EXPECT_EQ(reply.header("content-type"), "application/octet-stream");
  const std::size_t answer_length =
      std::stoul(reply.header("inference-header-content-length").value());
  const nlohmann::json answer = nlohmann::json::parse(reply.body.substr(0, answer_length));
  ASSERT_EQ(answer["outputs"].size(), 2u);
  std::size_t offset = answer_length;
  for (int i = 0; i < 2; ++i) {
    const auto& output = answer["outputs"][i];
    EXPECT_FALSE(output.contains("data"));
    const std::size_t size = output["parameters"]["binary_data_size"].get<std::size_t>();
    EXPECT_EQ(reply.body.substr(offset, size), expected.raw_output_contents(i)) << output["name"];
    offset += size;
  }
  EXPECT_EQ(offset, reply.body.size());
}

TEST(OipRest, RestAndGrpcRequestsShareABatchAndEachEqualsItsAloneAnswer) {
  ServerConfig config = test_config();
  // The batch closes when it holds 7 rows, 4 from REST and 3 from gRPC; it cannot close
  // on time first (an hour), so both answers came from one forward pass.
  config.batching.max_batch_rows = 7;
  config.batching.max_queue_delay_ms = 3.6e6;
  ServerHarness harness(config);
  inference::ModelInferRequest rest_request = bundled_infer_request(81, 4);
  inference::ModelInferRequest grpc_request = bundled_infer_request(82, 3);
  for (auto* request : {&rest_request, &grpc_request}) {
    (*request->mutable_parameters())["scaler_mode"].set_string_param("none");
  }
  auto rest_reply = std::async(std::launch::async, [&] {
    return http_call(harness.server().http_port(), "POST", "/v2/models/patchtst-etth1/infer",
                     rest_json(rest_request), kJsonHeaders);
  });
  const inference::ModelInferResponse grpc_response = grpc_infer(harness, grpc_request);
  const HttpReply reply = rest_reply.get();
  ASSERT_EQ(reply.status, 200) << reply.body;
  const nlohmann::json answer = json_body(reply);
  EXPECT_EQ(answer["parameters"]["batch_rows"], 7);
  EXPECT_EQ(grpc_response.parameters().at("batch_rows").int64_param(), 7);
  EXPECT_EQ(metric_total(harness.scrape(), "tsserve_batch_rows_count"), 1);

  // Each alone, on a server that batches nothing: the same bits.
  ServerHarness alone;
  EXPECT_EQ(json_floats(answer["outputs"][0]["data"]),
            output_floats(grpc_infer(alone, rest_request), 0));
  EXPECT_EQ(output_floats(grpc_response, 0), output_floats(grpc_infer(alone, grpc_request), 0));
}

TEST(OipRest, RepositoryControlOverHttpIsOffByDefault) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  const HttpReply refused =
      http_call(port, "POST", "/v2/repository/models/patchtst-etth1/unload", "", kJsonHeaders);
  EXPECT_EQ(refused.status, 403);
  EXPECT_THAT(refused.body, HasSubstr("--http-repository-control"));
  EXPECT_EQ(http_call(port, "GET", "/v2/models/patchtst-etth1/ready").status, 200);
  // Listing changes nothing: it stays open.
  EXPECT_EQ(http_call(port, "POST", "/v2/repository/index", "", kJsonHeaders).status, 200);
  EXPECT_EQ(
      metric_total(harness.scrape(), "tsserve_http_refused_total{reason=\"repository_control\"}"),
      1);
}

TEST(OipRest, TheRepositoryExtensionListsUnloadsAndLoadsAModel) {
  ServerConfig config = test_config();
  config.server.http_repository_control = true;
  ServerHarness harness(config);
  const int port = harness.server().http_port();
  const auto post = [&](const std::string& path, const std::string& body = "") {
    return http_call(port, "POST", path, body, kJsonHeaders);
  };
  const nlohmann::json ready_index = nlohmann::json::parse(
      R"([{"name": "patchtst-etth1", "version": "1", "state": "READY", "reason": ""}])");
  EXPECT_EQ(json_body(post("/v2/repository/index")), ready_index);
  EXPECT_EQ(json_body(post("/v2/repository/index", R"({"ready": true})")), ready_index);

  const HttpReply unloaded = post("/v2/repository/models/patchtst-etth1/unload");
  ASSERT_EQ(unloaded.status, 200) << unloaded.body;
  EXPECT_EQ(json_body(unloaded), nlohmann::json({{"name", "patchtst-etth1"}, {"unload", true}}));
  EXPECT_EQ(http_call(port, "GET", "/v2/models/patchtst-etth1/ready").status, 404);
  EXPECT_EQ(json_body(post("/v2/repository/index", R"({"ready": true})")), nlohmann::json::array());
  EXPECT_EQ(post("/v2/repository/models/patchtst-etth1/unload").status, 404);

  const HttpReply loaded = post("/v2/repository/models/patchtst-etth1/load", "{}");
  ASSERT_EQ(loaded.status, 200) << loaded.body;
  EXPECT_EQ(json_body(loaded), nlohmann::json({{"name", "patchtst-etth1"}, {"load", true}}));
  EXPECT_EQ(http_call(port, "GET", "/v2/models/patchtst-etth1/ready").status, 200);

  const HttpReply parameters =
      post("/v2/repository/models/patchtst-etth1/load", R"({"parameters": {"config": "{}"}})");
  EXPECT_EQ(parameters.status, 400);
  EXPECT_THAT(json_body(parameters)["error"].get<std::string>(),
              HasSubstr("parameters: not taken"));
  EXPECT_EQ(post("/v2/repository/index", R"({"ready": 1})").status, 400);
  EXPECT_EQ(http_call(port, "GET", "/v2/repository/index").status, 405);
  EXPECT_EQ(post("/v2/repository/models/patchtst-etth1/reload").status, 404);
}

TEST(OipRest, BadRequestsAreRefusedByFieldAndTheServerServesOn) {
  ServerHarness harness;
  const int port = harness.server().http_port();
  const std::string good = rest_json(bundled_infer_request(91));
  const std::string path = "/v2/models/patchtst-etth1/infer";
  struct BadCase {
    const char* name;
    std::string path;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    int status;
    const char* message_part;
  };
  std::string overflow = good;
  overflow.replace(overflow.find("\"data\":[") + 8, 0, "1e39,");
  const std::vector<BadCase> cases = {
      {"truncated", path, good.substr(0, good.size() / 2), kJsonHeaders, 400,
       "the body: malformed JSON"},
      {"not JSON", path, "hello", kJsonHeaders, 400, "malformed JSON"},
      {"NaN", path,
       R"({"inputs": [{"name": "series", "shape": [1], "datatype": "FP32", "data": [NaN]}]})",
       kJsonHeaders, 400, "malformed JSON"},
      {"float32 overflow", path, overflow, kJsonHeaders, 400,
       "inputs[0].data[0]: 1e39 is out of range for FP32"},
      {"duplicate key", path, R"({"inputs": [], "inputs": []})", kJsonHeaders, 400,
       "inputs: given twice"},
      {"wrong type", path, R"({"inputs": "series"})", kJsonHeaders, 400,
       "inputs: expected an array"},
      {"the decoder's rule", path,
       R"({"inputs": [{"name": "series", "shape": [1, 2, 1], "datatype": "FP32", "data": [1, 2]}]})",
       kJsonHeaders, 400, "series"},
      {"content type",
       path,
       good,
       {{"Content-Type", "text/csv"}},
       415,
       "content-type: \"text/csv\""},
      {"unknown model", "/v2/models/nope/infer", good, kJsonHeaders, 404,
       "model_name: model \"nope\""},
      {"bad version", "/v2/models/patchtst-etth1/versions/x/infer", good, kJsonHeaders, 400,
       "model_version"},
      {"unknown path", "/v2/models/patchtst-etth1/predict", good, kJsonHeaders, 404,
       "is not served"},
      {"wrong method", "/v2/health/live", "x", kJsonHeaders, 405, "this path takes GET"},
      {"bad timeout",
       path,
       good,
       {{"Content-Type", "application/json"}, {"Request-Timeout-Ms", "soon"}},
       400,
       "request-timeout-ms"},
  };
  for (const BadCase& bad : cases) {
    const HttpReply reply = http_call(port, "POST", bad.path, bad.body, bad.headers);
    EXPECT_EQ(reply.status, bad.status) << bad.name << ": " << reply.body;
    EXPECT_EQ(reply.header("content-type"), "application/json") << bad.name;
    const nlohmann::json error = json_body(reply);
    ASSERT_TRUE(error.is_object() && error.contains("error")) << bad.name << ": " << reply.body;
    EXPECT_THAT(error["error"].get<std::string>(), HasSubstr(bad.message_part)) << bad.name;
  }
  EXPECT_EQ(http_call(port, "POST", path, good, kJsonHeaders).status, 200);
  EXPECT_EQ(http_call(port, "GET", "/metrics").status, 404);  // metrics have their own port
  const std::string metrics = harness.scrape();
  EXPECT_EQ(metric_total(metrics,
                         "tsserve_requests_total{code=\"OK\",method=\"ModelInfer\","
                         "protocol=\"http\"}"),
            1);
  EXPECT_EQ(metric_total(metrics,
                         "tsserve_requests_total{code=\"INVALID_ARGUMENT\",method="
                         "\"ModelInfer\",protocol=\"http\"}"),
            9);
  // The media type is refused on the headers, before the call starts.
  EXPECT_EQ(metric_total(metrics, "tsserve_http_refused_total{reason=\"media_type\"}"), 1);
  EXPECT_EQ(metric_total(metrics, "tsserve_requests_total{method=\"ModelInfer\",protocol=\"oip\"}"),
            0);
}

TEST(OipRest, BrowserAppsOfTheConfiguredOriginsMayCallAndOthersMayNot) {
  ServerConfig config = test_config();
  config.server.http_cors_origins = "https://app.example, https://other.example";
  ServerHarness harness(config);
  const int port = harness.server().http_port();
  const HttpReply preflight =
      http_call(port, "OPTIONS", "/v2/models/patchtst-etth1/infer", "",
                {{"Origin", "https://app.example"},
                 {"Access-Control-Request-Method", "POST"},
                 {"Access-Control-Request-Headers", "content-type, authorization"}});
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(preflight.header("access-control-allow-origin"), "https://app.example");
  EXPECT_THAT(preflight.header("access-control-allow-methods").value_or(""), HasSubstr("POST"));
  EXPECT_THAT(preflight.header("access-control-allow-headers").value_or(""),
              HasSubstr("Authorization"));
  const HttpReply call =
      http_call(port, "GET", "/v2/health/live", "", {{"Origin", "https://other.example"}});
  EXPECT_EQ(call.status, 200);
  EXPECT_EQ(call.header("access-control-allow-origin"), "https://other.example");
  EXPECT_EQ(call.header("vary"), "Origin");

  const HttpReply refused =
      http_call(port, "OPTIONS", "/v2/health/live", "",
                {{"Origin", "https://evil.example"}, {"Access-Control-Request-Method", "GET"}});
  EXPECT_EQ(refused.status, 403);
  EXPECT_THAT(json_body(refused)["error"].get<std::string>(), HasSubstr("--http-cors-origins"));
  const HttpReply plain =
      http_call(port, "GET", "/v2/health/live", "", {{"Origin", "https://evil.example"}});
  EXPECT_EQ(plain.status, 200);
  EXPECT_FALSE(plain.header("access-control-allow-origin"));

  // Off by default: no CORS headers, and OPTIONS is not a method the routes take.
  ServerHarness plain_server;
  const HttpReply off = http_call(plain_server.server().http_port(), "GET", "/v2/health/live", "",
                                  {{"Origin", "https://app.example"}});
  EXPECT_FALSE(off.header("access-control-allow-origin"));
}

}  // namespace
}  // namespace tsserve::server::testing
