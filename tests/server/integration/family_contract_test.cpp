// The serving contract every model family keeps, run over each family the server
// registers (each family's folder registers itself; model_families.h lists them), each from
// a checkpoint PyTorch wrote:
// a forecast is bitwise the same alone or batched with other requests; a request with a
// variable count the model does not take is refused naming enc_in; a model that reads
// time inputs refuses a request without timestamps, naming them; attention maps come one
// per unit (variable or sample) and layer, square, of the side the family's view of the
// model promises (and a TimeXer's covariates maps [1, V] beside them). A family registered without
// a checkpoint here fails the first test.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../oip_test_support.h"
#include "server/families/model_families.h"
#include "server_harness.h"
#include "tsserve/model/model_config.h"

namespace tsserve::server::testing {
namespace {

using std::chrono::seconds;

constexpr int64_t kJanuary1st2018 = 1514764800;  // 00:00 UTC

// One checkpoint per family; Informer and Transformer from make_encdec_fixtures.py.
// A family registered without a checkpoint here fails its contract (an empty path).
std::string family_checkpoint(const std::string& family) {
  const std::string source = std::string(TSSERVE_SOURCE_DIR) + "/model/default/";
  const std::string fixtures = std::string(TSSERVE_FIXTURE_DIR) + "/encdec/";
  const std::map<std::string, std::string> checkpoints = {
      {"PatchTST", source + "patchtst_etth1.pt"},
      {"iTransformer", source + "itransformer_etth1.pt"},
      {"Informer", fixtures + "inf_distil_timef_t_all_active.pt"},
      {"Transformer", fixtures + "tr_fixed_m.pt"},
      {"TimeXer", source + "timexer_etth1.pt"}};
  const auto it = checkpoints.find(family);
  return it == checkpoints.end() ? "" : it->second;
}

std::vector<std::string> registered_families() {
  std::vector<std::string> families;
  for (const ModelFamilyDefinition* definition : model_families())
    families.push_back(definition->family);
  return families;
}

// N variables of T hourly points, seeded, with their timestamps.
v1::ForecastRequest contract_request(int64_t variables, int64_t points, uint64_t seed,
                                     bool with_timestamps = true) {
  v1::ForecastRequest request = forecast_request(variables, points, seed);
  if (with_timestamps) {
    for (int64_t t = 0; t < points; ++t) request.add_timestamps(kJanuary1st2018 + 3600 * t);
  }
  return request;
}

class FamilyContract : public ::testing::TestWithParam<std::string> {
 protected:
  static ServerConfig config_for(const std::string& family) {
    ServerConfig config = test_config();
    config.model.model = family_checkpoint(family);
    return config;
  }

  // What the codecs were told about the model: the promise the maps are checked against.
  static ModelShape shape_for(const std::string& family) {
    return model_shape_of(
        model::load_model_config(model::config_path_for(family_checkpoint(family))));
  }

  static v1::ModelInfo info_of(ServerHarness& harness) {
    grpc::ClientContext context;
    v1::GetModelInfoRequest request;
    v1::GetModelInfoResponse response;
    EXPECT_TRUE(harness.stub().GetModelInfo(&context, request, &response).ok());
    return response.info();
  }

  // The variables a request carries: enc_in when the model fixes it, else 3.
  static int64_t variables_for(const ModelShape& shape) {
    return shape.fixes_variable_count() ? shape.enc_in : 3;
  }
};

TEST(FamilyContractList, EveryRegisteredFamilyHasACheckpointHere) {
  ASSERT_FALSE(registered_families().empty());
  for (const std::string& family : registered_families()) {
    EXPECT_FALSE(family_checkpoint(family).empty()) << family;
  }
}

TEST_P(FamilyContract, ServesItsFamilyByName) {
  ServerHarness harness(config_for(GetParam()));
  const v1::ModelInfo info = info_of(harness);
  EXPECT_EQ(info.family(), GetParam());
  EXPECT_EQ(info.maps_per_sample(), GetParam() != "PatchTST");
}

// The probe's answer alone and in one batch with 7 others. The batch is forced: the
// batching server waits an hour (max_queue_delay) unless the batch is full, and full is
// exactly the 8 calls' rows, so it runs only once all 8 are queued; the scrape then
// proves one batch held them all (no timing, no sleep). `alone` and `batched` return the
// two answers; a failure to share a batch is a test failure.
struct AloneAndBatched {
  std::vector<float> alone;
  std::vector<float> batched;
};

AloneAndBatched alone_and_batched(const ServerConfig& base, const ModelShape& shape,
                                  int64_t variables) {
  AloneAndBatched answers;
  const v1::ForecastRequest probe = contract_request(variables, shape.seq_len, 1);
  double rows_per_call = 0;
  {
    ServerHarness harness(base);
    const v1::ForecastResponse alone = forecast_expecting_ok(harness, probe);
    // Every variable's forecast, or the target's alone ("MS").
    EXPECT_EQ(alone.forecast().values_size(),
              shape.forecast_rows_per_sample(variables) * shape.pred_len);
    answers.alone = floats(alone.forecast());
    const std::optional<double> rows = metric_total(harness.scrape(), "tsserve_inference_rows_total");
    EXPECT_TRUE(rows.has_value() && *rows >= 1) << "no tsserve_inference_rows_total";
    rows_per_call = rows.value_or(0);
  }
  if (rows_per_call < 1) return answers;
  constexpr int kCalls = 8;
  ServerConfig batching = base;
  batching.batching.max_batch_rows = static_cast<int>(rows_per_call) * kCalls;
  batching.batching.max_queue_rows = batching.batching.max_batch_rows;
  batching.batching.max_queue_delay_ms = 3.6e6;  // an hour: the batch runs when full
  ServerHarness harness(batching);
  std::vector<v1::ForecastRequest> requests;
  for (uint64_t seed = 2; seed < 2 + kCalls - 1; ++seed)
    requests.push_back(contract_request(variables, shape.seq_len, seed));
  requests.insert(requests.begin() + 3, probe);
  std::vector<v1::ForecastResponse> responses;
  std::vector<grpc::Status> statuses;
  EXPECT_TRUE(forecast_concurrently(harness, requests, responses, statuses, seconds(120)))
      << "the 8 calls did not all finish: the batch never filled";
  for (const grpc::Status& status : statuses)
    EXPECT_TRUE(status.ok()) << status.error_message();
  // One batch, of every call's rows: the probe shared it with the 7 others.
  const std::string metrics = harness.scrape();
  EXPECT_EQ(metric_total(metrics, "tsserve_batch_rows_count"), 1) << metrics;
  EXPECT_EQ(metric_total(metrics, "tsserve_batch_rows_sum"), rows_per_call * kCalls) << metrics;
  answers.batched = floats(responses[3].forecast());
  return answers;
}

// Bitwise equality, with the count of elements that differ (0: the same bits).
int64_t elements_that_differ(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return -1;
  int64_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differ += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
  return differ;
}

TEST_P(FamilyContract, AForecastIsBitwiseTheSameAloneOrBatched) {
  const ModelShape shape = shape_for(GetParam());
  const AloneAndBatched answers =
      alone_and_batched(config_for(GetParam()), shape, variables_for(shape));
  ASSERT_FALSE(HasFailure());
  ASSERT_FALSE(answers.alone.empty());
  EXPECT_EQ(elements_that_differ(answers.batched, answers.alone), 0)
      << GetParam() << ": the batched answer differs in its bits";
}

// The plant: the same check on a server told batch_invariant = false on the torch kernels
// (LibTorch runs the batch at once, within 1e-6 but not bitwise) must see the batched answer differ: the
// check above compares answers that really were computed in different batches (on this
// machine 22 to 161 values differ per family).
TEST_P(FamilyContract, PlantBatchInvarianceBrokenIsCaughtByTheCheck) {
  const ModelShape shape = shape_for(GetParam());
  ServerConfig broken = config_for(GetParam());
  broken.model.batch_invariant = false;
  broken.model.cpu_kernels = "torch";  // the fused kernels are invariant whatever the flag
  const AloneAndBatched answers = alone_and_batched(broken, shape, variables_for(shape));
  ASSERT_FALSE(HasFailure());
  ASSERT_FALSE(answers.batched.empty());
  const int64_t differ = elements_that_differ(answers.batched, answers.alone);
  std::cout << GetParam() << ": batch_invariant = false on torch: " << differ << " of "
            << answers.alone.size() << " values differ batched\n";
  EXPECT_GT(differ, 0);
}

TEST_P(FamilyContract, AVariableCountTheModelDoesNotTakeIsRefusedNamingEncIn) {
  const ModelShape shape = shape_for(GetParam());
  if (!shape.fixes_variable_count()) GTEST_SKIP() << "any N runs: channel independent";
  ServerHarness harness(config_for(GetParam()));
  grpc::ClientContext context;
  v1::ForecastResponse response;
  const grpc::Status status = harness.stub().Forecast(
      &context, contract_request(shape.enc_in + 1, shape.seq_len, 1), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("enc_in = " + std::to_string(shape.enc_in)),
            std::string::npos)
      << status.error_message();
}

TEST_P(FamilyContract, MissingTimestampsAreRefusedWhenTheModelReadsThem) {
  const ModelShape shape = shape_for(GetParam());
  ServerHarness harness(config_for(GetParam()));
  grpc::ClientContext context;
  v1::ForecastResponse response;
  const grpc::Status status = harness.stub().Forecast(
      &context, contract_request(variables_for(shape), shape.seq_len, 1, false), &response);
  if (shape.time_inputs == TimeInputs::kNone) {
    EXPECT_TRUE(status.ok()) << status.error_message();
    return;
  }
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("timestamps: required by this " + GetParam(), 0), 0u)
      << status.error_message();
}

TEST_P(FamilyContract, AttentionMapsComePerUnitAndLayerOfThePromisedSide) {
  const ModelShape shape = shape_for(GetParam());
  ServerHarness harness(config_for(GetParam()));
  const int64_t variables = variables_for(shape);
  v1::ForecastRequest request = contract_request(variables, shape.seq_len, 1);
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->set_average_heads(true);
  const v1::ForecastResponse response = forecast_expecting_ok(harness, request);
  // A model with covariate maps has them per forecast variable (its endogenous ones), one
  // beside each of their encoder maps.
  const int64_t units = shape.covariate_maps      ? shape.forecast_rows_per_sample(variables)
                        : shape.maps_per_sample() ? 1
                                                  : variables;
  const int64_t stacks = shape.covariate_maps ? 2 : 1;
  ASSERT_EQ(response.attention_size(), stacks * units * shape.e_layers);
  for (const v1::AttentionMap& map : response.attention()) {
    if (map.stack() == "covariates") {
      ASSERT_TRUE(shape.covariate_maps);
      ASSERT_EQ(map.weights().shape_size(), 2);
      EXPECT_EQ(map.weights().shape(0), 1) << "layer " << map.layer();  // the global token
      EXPECT_EQ(map.weights().shape(1), shape.covariate_tokens()) << "layer " << map.layer();
      EXPECT_EQ(map.token_names_size(), shape.covariate_tokens());
      continue;
    }
    const int64_t side = shape.attention_tokens(variables, map.layer());
    ASSERT_EQ(map.weights().shape_size(), 2);
    EXPECT_EQ(map.weights().shape(0), side) << "layer " << map.layer();
    EXPECT_EQ(map.weights().shape(1), side) << "layer " << map.layer();
    EXPECT_EQ(map.weights().values_size(), side * side);
  }
  // The side was promised by the family's view, not taken from the answer: check it
  // against what each family is known to do.
  if (GetParam() == "Informer") {
    EXPECT_EQ(shape.map_sides, (std::vector<int64_t>{32, 17, 10}));  // distilling halves L
  }
  if (GetParam() == "PatchTST") {
    EXPECT_EQ(shape.attention_tokens(variables, 0), 42);  // (336 - 16) / 8 + 2 patches
  }
  if (GetParam() == "TimeXer") {
    EXPECT_EQ(shape.attention_tokens(variables, 0), 7);  // 96 / 16 patches + the global token
    EXPECT_EQ(shape.covariate_tokens(), 10);             // six load columns, four calendar features
  }
}

TEST_P(FamilyContract, DecoderMapsComeForADecoderAndAreRefusedWithout) {
  const ModelShape shape = shape_for(GetParam());
  ServerHarness harness(config_for(GetParam()));
  const int64_t variables = variables_for(shape);
  v1::ForecastRequest request = contract_request(variables, shape.seq_len, 1);
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->set_decoder(true);
  request.mutable_attention()->add_layers(0);
  if (shape.d_layers == 0) {
    grpc::ClientContext context;
    v1::ForecastResponse response;
    const grpc::Status status = harness.stub().Forecast(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message().rfind(
                  "attention.decoder: this " + GetParam() + " has no decoder", 0),
              0u)
        << status.error_message();
    return;
  }
  const v1::ForecastResponse response = forecast_expecting_ok(harness, request);
  ASSERT_EQ(response.attention_size(), 1 + 2 * shape.d_layers);  // encoder layer 0, then two
  const int64_t heads = shape.n_heads;                           // maps per decoder layer
  const int64_t decoder = shape.label_len + shape.pred_len;
  const int64_t encoder_out = shape.map_sides.back();
  for (const v1::AttentionMap& map : response.attention()) {
    const bool cross = map.stack() == "cross";
    const int64_t rows = map.stack() == "encoder" ? shape.seq_len : decoder;
    const int64_t columns = map.stack() == "encoder" ? shape.seq_len
                            : cross                  ? encoder_out
                                                     : decoder;
    EXPECT_EQ(std::vector<int64_t>(map.weights().shape().begin(), map.weights().shape().end()),
              (std::vector<int64_t>{heads, rows, columns}))
        << map.stack() << " layer " << map.layer();
    ASSERT_EQ(map.row_steps_size(), rows);
    ASSERT_EQ(map.column_steps_size(), columns);
    // Rows run from the first step the stack reads to the last: the input's for the
    // encoder, label_len input steps then the forecast's for the decoder.
    EXPECT_EQ(map.row_steps(0), map.stack() == "encoder" ? -shape.seq_len : -shape.label_len);
    EXPECT_EQ(map.row_steps(static_cast<int>(rows - 1)),
              map.stack() == "encoder" ? -1 : shape.pred_len - 1);
    if (!map.heads_averaged()) {
      // Causal: a decoder query never attends to a later step.
      if (map.stack() == "decoder") {
        for (int64_t q = 0; q + 1 < rows; ++q)
          EXPECT_EQ(map.weights().values(static_cast<int>(q * columns + columns - 1)), 0.0f) << q;
      }
    }
  }
  // Ordered by stack, then layer: the encoder's, every decoder layer's self-attention, then
  // every decoder layer's cross-attention.
  for (int64_t layer = 0; layer < shape.d_layers; ++layer) {
    EXPECT_EQ(response.attention(static_cast<int>(1 + layer)).stack(), "decoder");
    EXPECT_EQ(response.attention(static_cast<int>(1 + shape.d_layers + layer)).stack(), "cross");
  }
}

TEST_P(FamilyContract, EncodeRunsTheEncoderOrSaysWhyNot) {
  const ModelShape shape = shape_for(GetParam());
  ServerHarness harness(config_for(GetParam()));
  const int64_t tokens = 10;
  v1::EncodeRequest request;
  request.mutable_tokens()->add_shape(tokens);
  request.mutable_tokens()->add_shape(shape.d_model);
  for (int64_t i = 0; i < tokens * shape.d_model; ++i)
    request.mutable_tokens()->add_values(static_cast<float>(i % 7) * 0.25f - 0.75f);
  v1::EncodeResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.stub().Encode(&context, request, &response);
  if (!shape.encode_refusal.empty()) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_EQ(status.error_message(), "Encode: " + shape.encode_refusal);
    return;
  }
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.output().values_size(), tokens * shape.d_model);
}

TEST_P(FamilyContract, TheOpenInferenceProtocolAnswersAsTsserveV1Does) {
  const ModelShape shape = shape_for(GetParam());
  ServerHarness harness(config_for(GetParam()));
  const int64_t variables = variables_for(shape);
  const int64_t T = shape.seq_len;
  const v1::ForecastRequest probe = contract_request(variables, T, 1);
  const v1::ForecastResponse v1_answer = forecast_expecting_ok(harness, probe);

  std::vector<float> by_time(static_cast<size_t>(T * variables));  // [1, T, N]
  for (int64_t v = 0; v < variables; ++v) {
    for (int64_t t = 0; t < T; ++t)
      by_time[static_cast<size_t>(t * variables + v)] =
          probe.series().values(static_cast<int>(v * T + t));
  }
  inference::ModelInferRequest request = infer_request(1, T, variables, by_time);
  request.set_model_name(info_of(harness).name());
  request.mutable_parameters()->erase("scaler_mode");
  auto* stamps = request.add_inputs();
  stamps->set_name("timestamps");
  stamps->set_datatype("INT64");
  stamps->add_shape(1);
  stamps->add_shape(T);
  for (int64_t t = 0; t < T; ++t)
    stamps->mutable_contents()->add_int64_contents(probe.timestamps(static_cast<int>(t)));
  inference::ModelInferResponse response;
  grpc::ClientContext context;
  const grpc::Status status = harness.oip().ModelInfer(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::vector<float> oip = output_floats(response, 0);  // [1, F, K]
  const int64_t F = shape.pred_len;
  const int64_t K = shape.forecast_rows_per_sample(variables);  // N, or 1 for "MS"
  ASSERT_EQ(static_cast<int64_t>(oip.size()), F * K);
  for (int64_t v = 0; v < K; ++v) {
    for (int64_t f = 0; f < F; ++f) {
      ASSERT_EQ(oip[static_cast<size_t>(f * K + v)],
                v1_answer.forecast().values(static_cast<int>(v * F + f)))
          << "variable " << v << ", step " << f;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, FamilyContract, ::testing::ValuesIn(registered_families()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tsserve::server::testing
