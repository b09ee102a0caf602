// The test family (LinearProbe) served by the real server: it lives in its two folders
// (model/, server/ here, shaped as model/families/<f>/ and server/families/<f>/) and is
// linked into this test's binary as the build's family list links a family, and no other
// file names it. The served forecast is PyTorch's (make_linear_probe.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/families/model_families.h"
#include "server_harness.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/model_family_rules.h"

namespace tsserve::server::testing {
namespace {

using ::testing::HasSubstr;

const std::string kFixtures = std::string(TSSERVE_FIXTURE_DIR) + "/linear_probe/";

ServerConfig probe_config() {
  ServerConfig config = test_config();
  config.model.model = kFixtures + "linear_probe.pt";
  return config;
}

nlohmann::json probe_case() {
  std::ifstream file(kFixtures + "linear_probe_case.json");
  EXPECT_TRUE(file) << "no " << kFixtures << "linear_probe_case.json";
  return nlohmann::json::parse(file);
}

TEST(LinearProbeFamily, JoinsBothTablesBesideTheBuildsFamilies) {
  ASSERT_NE(model::find_model_family("LinearProbe"), nullptr);
  std::vector<std::string> served;
  for (const ModelFamilyDefinition* definition : model_families()) {
    served.push_back(definition->family);
  }
  EXPECT_THAT(served, ::testing::Contains("LinearProbe"));
  EXPECT_THAT(served, ::testing::Contains("PatchTST"));
  EXPECT_THAT(model::registered_family_names(), HasSubstr("\"LinearProbe\""));
}

TEST(LinearProbeFamily, ItsConfigParsesWithTheSharedRules) {
  const model::ModelConfig config = model::load_model_config(kFixtures + "linear_probe.json");
  EXPECT_EQ(config.family, "LinearProbe");
  EXPECT_THAT(config.summary(), HasSubstr("model=LinearProbe seq_len=48 pred_len=12"));
  EXPECT_THROW(model::parse_model_config(R"({"model": "LinearProbe", "seq_len": 48,
      "pred_len": 12, "d_model": 1, "n_heads": 1, "e_layers": 1, "d_ff": 0})",
                                         "<inline>"),
               model::ModelError);
}

TEST(LinearProbeFamily, TheServerForecastsAsPyTorchDoes) {
  const nlohmann::json reference = probe_case();
  const auto series = reference.at("series").get<std::vector<std::vector<float>>>();
  const auto expected = reference.at("forecast").get<std::vector<std::vector<float>>>();
  v1::ForecastRequest request;
  request.mutable_series()->add_shape(static_cast<int64_t>(series.size()));
  request.mutable_series()->add_shape(static_cast<int64_t>(series.front().size()));
  for (const auto& variable : series) {
    for (float value : variable) request.mutable_series()->add_values(value);
  }
  ServerHarness harness(probe_config());
  {
    grpc::ClientContext context;
    v1::GetModelInfoResponse info;
    ASSERT_TRUE(harness.stub().GetModelInfo(&context, {}, &info).ok());
    EXPECT_EQ(info.info().family(), "LinearProbe");
  }
  const std::vector<float> answer = floats(forecast_expecting_ok(harness, request).forecast());
  ASSERT_EQ(answer.size(), expected.size() * expected.front().size());
  for (size_t v = 0; v < expected.size(); ++v) {
    for (size_t t = 0; t < expected[v].size(); ++t) {
      EXPECT_NEAR(answer[v * expected[v].size() + t], expected[v][t], 1e-5)
          << "variable " << v << ", step " << t;
    }
  }
}

TEST(LinearProbeFamily, EncodeIsRefusedAsItsDefinitionSays) {
  ServerHarness harness(probe_config());
  grpc::ClientContext context;
  v1::EncodeRequest request;
  request.mutable_tokens()->add_shape(1);
  request.mutable_tokens()->add_shape(1);
  request.mutable_tokens()->add_values(0.0f);
  v1::EncodeResponse response;
  const grpc::Status status = harness.stub().Encode(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("a LinearProbe has no encoder"));
}

}  // namespace
}  // namespace tsserve::server::testing
