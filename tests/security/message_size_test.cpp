// max_message_bytes bounds what a caller can make the server read and what it sends back:
// an oversized request is refused with RESOURCE_EXHAUSTED before it is decoded, an
// answer that would exceed the limit is refused with a message saying how to ask for less,
// and the server keeps serving either way.

#include <gmock/gmock.h>

#include "security_fixture.h"
#include "tsserve/client/channel.h"
#include "tsserve/client/forecast_call.h"
#include "tsserve/client/tsserve_client.h"

namespace tsserve::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kLimitBytes = 64 * 1024;

class MessageSizeTest : public SecurityTest {
 protected:
  void SetUp() override {
    server_ = start_server({"--max-message-bytes", std::to_string(kLimitBytes)});
    client::ChannelOptions options;
    options.target = server_->target();
    client_ = std::make_unique<client::TsserveClient>(client::make_channel(options),
                                                      client::CallSettings{});
  }

  // `variables` series of the model's length: 336 * 4 bytes each on the wire.
  static v1::ForecastRequest request(int variables, bool attention) {
    client::TensorData series{{variables, 336},
                              std::vector<float>(static_cast<size_t>(variables) * 336, 0.25F)};
    client::ForecastOptions options;
    options.attention.enabled = attention;
    return client::build_forecast_request(series, {}, {}, options);
  }

  grpc::Status forecast(const v1::ForecastRequest& request) {
    v1::ForecastResponse response;
    return client_->forecast(request, &response);
  }

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<client::TsserveClient> client_;
};

TEST_F(MessageSizeTest, AnOversizedRequestIsRefusedAndTheServerServesOn) {
  const v1::ForecastRequest big = request(64, false);
  ASSERT_GT(big.ByteSizeLong(), static_cast<size_t>(kLimitBytes));
  const grpc::Status refused = forecast(big);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), HasSubstr(std::to_string(kLimitBytes)));

  const v1::ForecastRequest small = request(7, false);
  ASSERT_LT(small.ByteSizeLong(), static_cast<size_t>(kLimitBytes));
  const grpc::Status ok = forecast(small);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
}

TEST_F(MessageSizeTest, AnAnswerOverTheLimitIsRefusedSayingHowToAskForLess) {
  // 7 variables x 3 layers of 42 x 42 averaged maps: ~148 KB of answer from a 10 KB request.
  const v1::ForecastRequest with_maps = request(7, true);
  ASSERT_LT(with_maps.ByteSizeLong(), static_cast<size_t>(kLimitBytes));
  const grpc::Status refused = forecast(with_maps);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), HasSubstr("max_message_bytes"));
  EXPECT_THAT(refused.error_message(), HasSubstr("attention"));

  const grpc::Status ok = forecast(request(7, false));
  EXPECT_TRUE(ok.ok()) << ok.error_message();
}

}  // namespace
}  // namespace tsserve::testing
