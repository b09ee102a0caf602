// One ServingState behind both protocols: the Open Inference Protocol's readiness answers
// and the admission of new calls in tsserve.v1 and ModelInfer all follow it (the server's
// assembly sets grpc.health.v1 from the same transitions). The services run on a real
// gRPC server on loopback; the test flips the state as start-up and the drain do.

#include <gtest/gtest.h>

#include "server/grpc/forecast_service.h"
#include "server/grpc/oip_service.h"
#include "server_harness.h"

namespace tsserve::server::testing {
namespace {

class ServingStateTest : public ::testing::Test {
 protected:
  ServingStateTest()
      : repository_(
            [] {
              RepositoryModel model;
              model.name = "m";
              model.versions.push_back(RepositoryVersion{3, "", "", "", "f"});
              RepositoryScan scan;
              scan.models.push_back(model);
              return scan;
            },
            [](const RepositoryModel&, const RepositoryVersion&,
               std::shared_ptr<ModelVersion>* loaded) {
              ModelVersion::Parts parts;
              parts.name = "m";
              parts.version = 3;
              parts.shape.seq_len = 8;
              parts.shape.pred_len = 4;
              parts.forecast_batcher =
                  std::make_unique<DynamicBatcher>(BatcherOptions{}, [](Batch&) {});
              parts.encode_batcher =
                  std::make_unique<DynamicBatcher>(BatcherOptions{}, [](Batch&) {});
              *loaded = std::make_shared<ModelVersion>(std::move(parts));
              return Status();
            },
            {}) {
    repository_.poll_once();
    ServiceContext context;
    context.repository = &repository_;
    context.registry = &repository_.registry();
    context.state = &state_;
    v1_service_ = std::make_unique<ForecastServiceImpl>(context);
    oip_service_ = std::make_unique<OipServiceImpl>(context, OipServerInfo{"tsserve", "9"});
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(v1_service_.get());
    builder.RegisterService(oip_service_.get());
    server_ = builder.BuildAndStart();
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                       grpc::InsecureChannelCredentials());
    v1_ = v1::ForecastService::NewStub(channel);
    oip_ = inference::GRPCInferenceService::NewStub(channel);
  }
  ~ServingStateTest() override {
    server_->Shutdown();
    repository_.stop();
  }

  bool server_ready() {
    inference::ServerReadyResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(oip_->ServerReady(&context, {}, &response).ok());
    return response.ready();
  }
  bool model_ready() {
    inference::ModelReadyRequest request;
    request.set_name("m");
    inference::ModelReadyResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(oip_->ModelReady(&context, request, &response).ok());
    return response.ready();
  }
  bool live() {
    inference::ServerLiveResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(oip_->ServerLive(&context, {}, &response).ok());
    return response.live();
  }
  grpc::Status model_infer() {
    inference::ModelInferResponse response;
    grpc::ClientContext context;
    return oip_->ModelInfer(&context, inference::ModelInferRequest{}, &response);
  }
  grpc::Status report_actuals() {
    v1::ReportActualsResponse response;
    grpc::ClientContext context;
    return v1_->ReportActuals(&context, {}, &response);
  }
  grpc::Status model_info() {
    v1::GetModelInfoResponse response;
    grpc::ClientContext context;
    return v1_->GetModelInfo(&context, {}, &response);
  }

  ServingState state_;
  RepositoryManager repository_;
  std::unique_ptr<ForecastServiceImpl> v1_service_;
  std::unique_ptr<OipServiceImpl> oip_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::ForecastService::Stub> v1_;
  std::unique_ptr<inference::GRPCInferenceService::Stub> oip_;
};

TEST_F(ServingStateTest, ReadinessAndAdmissionOfBothProtocolsFollowOneState) {
  // Starting: live, not ready, new work refused.
  EXPECT_TRUE(live());
  EXPECT_FALSE(server_ready());
  EXPECT_FALSE(model_ready());
  EXPECT_EQ(model_infer().error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(model_info().error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(report_actuals().error_code(), grpc::StatusCode::UNAVAILABLE);

  state_.set_serving(true);
  EXPECT_TRUE(server_ready());
  EXPECT_TRUE(model_ready());
  EXPECT_TRUE(model_info().ok());
  // Admitted: the empty request now fails validation, not admission.
  EXPECT_EQ(model_infer().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Admitted too; this context keeps no forecasts.
  EXPECT_EQ(report_actuals().error_code(), grpc::StatusCode::UNIMPLEMENTED);

  state_.set_serving(false);  // the drain begins
  EXPECT_TRUE(live());
  EXPECT_FALSE(server_ready());
  EXPECT_FALSE(model_ready());
  const grpc::Status refused = model_infer();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(refused.error_message().find("not serving"), std::string::npos);
  EXPECT_EQ(model_info().error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(report_actuals().error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace tsserve::server::testing
