// Random, mostly malformed requests: the decoders never crash and answer either OK with a
// consistent, finite input or INVALID_ARGUMENT / FAILED_PRECONDITION with a message. A
// cheap, deterministic stand-in for a fuzzer (the codec has no LibTorch, so a libFuzzer
// target over the same calls is a small step).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "codec_test_support.h"
#include "server/codec/v1/encode_request_decoder.h"
#include "server/codec/v1/forecast_request_decoder.h"

namespace tsserve::server {
namespace {

using testing::small_model;

class RandomTensors {
 public:
  explicit RandomTensors(uint32_t seed) : rng_(seed) {}

  int64_t pick(std::initializer_list<int64_t> choices) {
    std::uniform_int_distribution<std::size_t> index(0, choices.size() - 1);
    return *(choices.begin() + index(rng_));
  }

  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  // Mostly rank 2 with dimensions around `typical`; sometimes another rank or a hostile
  // dimension (negative, zero, huge).
  std::vector<int64_t> shape(int64_t typical) {
    std::vector<int64_t> dims(static_cast<std::size_t>(coin(0.9) ? 2 : pick({0, 1, 3})));
    for (int64_t& d : dims) {
      d = coin(0.9)
              ? pick({typical, typical + 1, 1, 3})
              : pick({0, -1, typical - 1, std::numeric_limits<int64_t>::max(), int64_t{1} << 32});
    }
    return dims;
  }

  // Fills `tensor` with data that usually, not always, matches `dims`.
  void fill(const std::vector<int64_t>& dims, v1::Tensor* tensor) {
    tensor->mutable_shape()->Add(dims.begin(), dims.end());
    int64_t count = 1;
    for (int64_t d : dims) count = (d < 0 || d > 4096 || count > 4096) ? 7 : count * d;
    if (coin(0.1)) count += pick({-1, 1, 5});
    count = std::max<int64_t>(0, std::min<int64_t>(count, 20000));
    std::vector<float> data(static_cast<std::size_t>(count));
    std::uniform_real_distribution<float> value(-1e3f, 1e3f);
    for (float& x : data) x = value(rng_);
    if (!data.empty() && coin(0.2)) {
      const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(), 3.0e38f};
      data[std::uniform_int_distribution<std::size_t>(0, data.size() - 1)(rng_)] =
          bad[pick({0, 1, 2})];
    }
    const bool raw = coin();
    if (raw || coin(0.05)) tensor->set_raw_values(testing::little_endian_bytes(data));
    if (!raw || coin(0.05)) tensor->mutable_values()->Add(data.begin(), data.end());
    if (raw && coin(0.05)) tensor->mutable_raw_values()->push_back('\0');
  }

 private:
  std::mt19937 rng_;
};

bool all_finite(const std::vector<float>& data) {
  for (float x : data) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

bool expected_rejection(const Status& status) {
  return (status.code() == StatusCode::kInvalidArgument ||
          status.code() == StatusCode::kFailedPrecondition) &&
         !status.message().empty();
}

TEST(RequestDecoderRobustnessTest, RandomForecastRequests) {
  ModelShape model = small_model();
  model.scaler_std[1] = 1e-3;  // lets some finite values overflow once scaled
  RandomTensors random(20261121);
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    v1::ForecastRequest request;
    random.fill(random.shape(8 + random.pick({0, 0, 4})), request.mutable_series());
    request.set_layout(static_cast<v1::SeriesLayout>(random.pick({0, 1, 2, 2, 5})));
    request.set_scaler_mode(static_cast<v1::ScalerMode>(random.pick({0, 1, 2, -3})));
    if (random.coin(0.3)) {
      for (const char* name : {"a", "b", "c"}) request.add_variable_names(name);
    }
    if (random.coin(0.2)) {
      for (int i = 0; i < random.pick({8, 12, 3}); ++i)
        request.add_timestamps(i * random.pick({1, 0}));
    }
    if (random.coin(0.3)) {
      request.mutable_attention()->set_enabled(true);
      request.mutable_attention()->add_layers(static_cast<int32_t>(random.pick({0, 2, 3, -1})));
      request.mutable_attention()->add_variables(static_cast<int32_t>(random.pick({0, 1, 7})));
    }
    ForecastInput input;
    const Status status = decode_forecast_request(request, model, {}, &input);
    if (!status.ok()) {
      ASSERT_TRUE(expected_rejection(status)) << status.code() << " " << status.message();
      continue;
    }
    ++accepted;
    ASSERT_GE(input.series_rows, 1);
    ASSERT_EQ(input.rows.size(), static_cast<std::size_t>(input.series_rows * model.seq_len));
    ASSERT_TRUE(all_finite(input.rows));
    ASSERT_EQ(input.scaler_column.size(),
              input.scaler_applied ? static_cast<std::size_t>(input.series_rows) : 0u);
  }
  EXPECT_GT(accepted, 100);  // the generator reaches the success path, not only errors
}

TEST(RequestDecoderRobustnessTest, RandomEncodeRequests) {
  RandomTensors random(7);
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    v1::EncodeRequest request;
    random.fill(random.shape(6), request.mutable_tokens());
    request.set_output_encoding(static_cast<v1::TensorEncoding>(random.pick({0, 1, 2, 9})));
    if (random.coin(0.3)) {
      request.mutable_attention()->set_enabled(random.coin());
      request.mutable_attention()->add_layers(static_cast<int32_t>(random.pick({0, 2, 3})));
      if (random.coin(0.3)) request.mutable_attention()->add_variables(0);
    }
    EncodeInput input;
    const Status status = decode_encode_request(request, small_model(), {}, &input);
    if (!status.ok()) {
      ASSERT_TRUE(expected_rejection(status)) << status.code() << " " << status.message();
      continue;
    }
    ++accepted;
    ASSERT_GE(input.tokens, 1);
    ASSERT_EQ(input.values.size(), static_cast<std::size_t>(input.tokens * 6));
    ASSERT_TRUE(all_finite(input.values));
  }
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace tsserve::server
