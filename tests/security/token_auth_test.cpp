// The bearer token, from outside a real tsserve process: every RPC of both protocols
// needs it, except the health checks (grpc.health.v1, and the Open Inference Protocol's
// ServerLive and ServerReady); refusals are UNAUTHENTICATED, counted in the metrics, and
// say what was wrong without echoing the token. Reflection, which cannot check a token,
// is not offered.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gmock/gmock.h>

#include <future>

#include "inference/grpc_service.grpc.pb.h"
#include "security_fixture.h"
#include "tsserve/client/channel.h"
#include "tsserve/client/forecast_call.h"
#include "tsserve/client/tsserve_client.h"

namespace tsserve::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "k8s-secret-0f1e2d3c4b5a";

class TokenAuthTest : public SecurityTest {
 protected:
  void SetUp() override {
    server_ = start_server({"--auth-token-file", write_file("token", std::string(kToken) + "\n")});
    client::ChannelOptions options;
    options.target = server_->target();
    channel_ = client::make_channel(options);
  }

  client::TsserveClient client_with(const std::string& token) const {
    return client::TsserveClient(channel_, {std::chrono::seconds(30), token});
  }

  // A one-variable Forecast request of the model's length.
  static v1::ForecastRequest forecast_request() {
    client::TensorData series{{1, 336}, std::vector<float>(336, 0.5F)};
    return client::build_forecast_request(series, {}, {}, {});
  }

  std::unique_ptr<inference::GRPCInferenceService::Stub> oip_stub() const {
    return inference::GRPCInferenceService::NewStub(channel_);
  }

  static void with_token(grpc::ClientContext& context, const std::string& token) {
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  }

  std::unique_ptr<ServerProcess> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

void expect_unauthenticated(const grpc::Status& status, const std::string& why) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("authorization: " + why));
  EXPECT_THAT(status.error_message(), Not(HasSubstr(kToken)));
}

TEST_F(TokenAuthTest, ForecastServiceCallsNeedTheToken) {
  v1::ModelInfo info;
  expect_unauthenticated(client_with("").model_info("", &info), "missing");
  expect_unauthenticated(client_with("wrong").model_info("", &info), "the bearer token is not valid");
  EXPECT_TRUE(client_with(kToken).model_info("", &info).ok());
  EXPECT_EQ(info.seq_len(), 336);

  v1::ForecastResponse forecast;
  expect_unauthenticated(client_with("").forecast(forecast_request(), &forecast), "missing");
  expect_unauthenticated(client_with(std::string(kToken) + "0").forecast(forecast_request(), &forecast),
                         "the bearer token is not valid");
  const grpc::Status ok = client_with(kToken).forecast(forecast_request(), &forecast);
  EXPECT_TRUE(ok.ok()) << ok.error_message();

  v1::EncodeResponse encoded;
  expect_unauthenticated(client_with("").encode(v1::EncodeRequest(), &encoded), "missing");
}

TEST_F(TokenAuthTest, TheHealthCheckIsOpen) {
  grpc::health::v1::HealthCheckResponse::ServingStatus serving{};
  const grpc::Status status = client_with("").health("", &serving);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(serving, grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST_F(TokenAuthTest, OpenInferenceProtocolCallsNeedTheTokenButItsProbesDoNot) {
  const auto stub = oip_stub();
  {
    grpc::ClientContext context;
    inference::ServerLiveResponse live;
    EXPECT_TRUE(stub->ServerLive(&context, {}, &live).ok());
    EXPECT_TRUE(live.live());
  }
  {
    grpc::ClientContext context;
    inference::ServerReadyResponse ready;
    EXPECT_TRUE(stub->ServerReady(&context, {}, &ready).ok());
    EXPECT_TRUE(ready.ready());
  }
  for (const std::string token : {"", "wrong", kToken}) {
    SCOPED_TRACE("token \"" + token + "\"");
    grpc::ClientContext metadata_context, server_context, ready_context, infer_context;
    with_token(metadata_context, token);
    with_token(server_context, token);
    with_token(ready_context, token);
    with_token(infer_context, token);
    inference::ModelMetadataResponse metadata;
    const grpc::Status metadata_status = stub->ModelMetadata(&metadata_context, {}, &metadata);
    inference::ServerMetadataResponse server;
    const grpc::Status server_status = stub->ServerMetadata(&server_context, {}, &server);
    inference::ModelReadyResponse ready;
    const grpc::Status ready_status = stub->ModelReady(&ready_context, {}, &ready);
    inference::ModelInferResponse inferred;
    const grpc::Status infer_status = stub->ModelInfer(&infer_context, {}, &inferred);
    if (token == kToken) {
      EXPECT_TRUE(metadata_status.ok()) << metadata_status.error_message();
      EXPECT_TRUE(server_status.ok()) << server_status.error_message();
      EXPECT_TRUE(ready_status.ok()) << ready_status.error_message();
      // Past the token, the empty request itself is what is wrong.
      EXPECT_EQ(infer_status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    } else {
      const std::string why = token.empty() ? "missing" : "the bearer token is not valid";
      expect_unauthenticated(metadata_status, why);
      expect_unauthenticated(server_status, why);
      expect_unauthenticated(ready_status, why);
      expect_unauthenticated(infer_status, why);
    }
  }
}

// A unary call to the reflection service's (streaming) method: UNIMPLEMENTED when the
// server does not offer the service, anything else when it does.
grpc::Status call_reflection(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  // An empty message (an empty ServerReflectionRequest); a ByteBuffer must hold a slice.
  grpc::Slice empty(std::string{});
  grpc::ByteBuffer request(&empty, 1), response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", {},
                 &request, &response, [&](grpc::Status status) { done.set_value(status); });
  return done.get_future().get();
}

TEST_F(TokenAuthTest, ReflectionIsNotOfferedWithAToken) {
  EXPECT_EQ(call_reflection(channel_).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  // Without a token the same call reaches the service: the probe above can tell.
  const auto open_server = start_server({});
  client::ChannelOptions options;
  options.target = open_server->target();
  EXPECT_NE(call_reflection(client::make_channel(options)).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(TokenAuthTest, RefusalsAreCountedByMethod) {
  v1::ModelInfo info;
  for (int i = 0; i < 3; ++i) (void)client_with("wrong").model_info("", &info);
  (void)client_with(kToken).model_info("", &info);
  const std::string exposition = http_get(server_->metrics_port(), "/metrics");
  EXPECT_EQ(metric_sum(exposition, "tsserve_requests_total",
                       {{"method", "GetModelInfo"}, {"code", "UNAUTHENTICATED"}}),
            3)
      << exposition;
  EXPECT_EQ(metric_sum(exposition, "tsserve_requests_total",
                       {{"method", "GetModelInfo"}, {"code", "OK"}}),
            1);
}

TEST_F(TokenAuthTest, TheClientSendsTheTokenFromAFileOrTheEnvironment) {
  const std::vector<std::string> info{"info", "--target", server_->target()};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = info;
    args.insert(args.end(), extra.begin(), extra.end());
    return client(args);
  };
  const CommandResult refused = with({});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("UNAUTHENTICATED"));
  EXPECT_EQ(with({"--token-file", write_file("client-token", std::string(kToken) + "\n")}).exit_code,
            0);
  EXPECT_EQ(with({"--token", kToken}).exit_code, 0);
}

TEST_F(TokenAuthTest, AnEmptyTokenFileStopsTheServerNamingTheOption) {
  const std::string empty = write_file("empty-token", "\n");
  const CommandResult result =
      run_command({TSSERVE_SERVER_BINARY, "--grpc-address", "127.0.0.1:0", "--http-address", "",
                   "--metrics-address", "", "--auth-token-file", empty});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("auth_token_file " + empty + ": empty"));
}

}  // namespace
}  // namespace tsserve::testing
