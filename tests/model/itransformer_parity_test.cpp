// iTransformer against the independent PyTorch reference (tests/reference/
// itransformer_reference.py): gelu/relu, 1-3 layers, with and without calendar tokens
// (h, t, d), N from 1 to 21, ProbSparse with every query active. The calendar rows go
// through tsserve's own time features, computed from the fixtures' Unix timestamps.

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "reference_fixture.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

ITransformer make_itransformer(const ReferenceFixture& fixture, const std::string& attention = "") {
  nlohmann::json json = fixture.config;
  if (!attention.empty()) json["attention"] = attention;
  const ModelConfig config = parse_model_config(json.dump(), "fixture");
  ITransformer model(config);
  load_state_dict_into(*model, normalise_itransformer_keys(fixture.params, config, "fixture"),
                       "fixture");
  return model;
}

std::vector<int64_t> timestamps_of(const ReferenceFixture& fixture, int64_t sample) {
  const at::Tensor row = fixture.input("timestamps")[sample].contiguous();
  return {row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel()};
}

// [B, C, T] calendar rows from the fixture's timestamps, or undefined without calendar.
at::Tensor calendar_of(const ITransformer& model, const ReferenceFixture& fixture) {
  if (!fixture.has_input("timestamps")) return {};
  std::vector<at::Tensor> rows;
  for (int64_t b = 0; b < fixture.input("x").size(0); ++b) {
    rows.push_back(model->calendar_rows(timestamps_of(fixture, b)));
  }
  return at::stack(rows);
}

class ITransformerParity : public ::testing::TestWithParam<std::string> {};

TEST_P(ITransformerParity, TslibLayoutForecastMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  ITransformer model = make_itransformer(fixture);
  const at::Tensor x_mark = fixture.has_input("x_mark") ? fixture.input("x_mark") : at::Tensor();
  at::InferenceMode guard;
  EXPECT_TRUE(
      matches_reference(model->forward(fixture.input("x"), x_mark), fixture.output("forecast")));
}

TEST_P(ITransformerParity, ForecastEncoderOutputAndAttentionFromTimestampsMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  ITransformer model = make_itransformer(fixture);
  at::InferenceMode guard;
  const SampleForecast out = model->forecast_samples(fixture.input("x").transpose(1, 2),
                                                     calendar_of(model, fixture), true);
  EXPECT_TRUE(matches_reference(out.forecast.transpose(1, 2), fixture.output("forecast")));
  EXPECT_TRUE(matches_reference(out.encoder_output, fixture.output("encoder_output")));
  ASSERT_EQ(static_cast<int64_t>(out.attention.size()), model->config().e_layers);
  for (size_t i = 0; i < out.attention.size(); ++i) {
    EXPECT_TRUE(
        matches_reference(out.attention[i], fixture.output("attention." + std::to_string(i))))
        << "layer " << i;
  }
}

// What the server will do: each request alone, or same-N requests batched together.
TEST_P(ITransformerParity, SampleAloneEqualsSampleInBatchBitwise) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  ITransformer model = make_itransformer(fixture);
  const at::Tensor series = fixture.input("x").transpose(1, 2).contiguous();  // [B, N, T]
  at::InferenceMode guard;
  const SampleForecast batched = model->forecast_samples(series, calendar_of(model, fixture), true);
  for (int64_t b = 0; b < series.size(0); ++b) {
    const std::vector<int64_t> stamps =
        fixture.has_input("timestamps") ? timestamps_of(fixture, b) : std::vector<int64_t>{};
    const SampleForecast alone = model->forecast_sample(series[b], stamps, true);
    EXPECT_TRUE(at::equal(alone.forecast, batched.forecast[b])) << "sample " << b;
    for (size_t i = 0; i < alone.attention.size(); ++i) {
      EXPECT_TRUE(at::equal(alone.attention[i], batched.attention[i][b])) << "layer " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ITransformerParity,
                         ::testing::Values("itr_gelu_calendar_h_n7", "itr_relu_plain_n1",
                                           "itr_gelu_calendar_t_n21", "itr_relu_calendar_d_n3",
                                           "itr_gelu_plain_n12", "itr_prob_every_query"));

// The bundled model at the batch sizes a server forms, at 1 and 2 intra-op threads: each
// sample alone (a batch of 1) equals the same sample in batches of 7, 48 and 64 distinct
// samples, bitwise. tests/CMakeLists.txt runs this under each kernel choice the CPU has
// (run_with_kernels.sh: OpenBLAS core types, ATen capabilities).
TEST(ITransformerBatchInvariance, BundledModelSampleAloneEqualsSampleInBatchesOf7_48And64) {
  ITransformer model =
      load_itransformer(std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt");
  const int64_t T = model->config().seq_len;
  const int64_t kSamples = 64;
  torch::manual_seed(5);
  const at::Tensor series = torch::randn({kSamples, 7, T}) * 4 + 2;
  std::vector<std::vector<int64_t>> stamps(kSamples);
  std::vector<at::Tensor> calendar;
  for (size_t b = 0; b < stamps.size(); ++b) {
    for (int64_t t = 0; t < T; ++t) stamps[b].push_back(1467331200 + 3600 * (37 * b + t));
    calendar.push_back(model->calendar_rows(stamps[b]));
  }
  const at::Tensor calendars = at::stack(calendar);
  const int saved_threads = at::get_num_threads();
  const int saved_blas = blas_pool_threads().value_or(saved_threads);
  at::InferenceMode guard;
  for (int threads : {1, 2}) {
    set_intra_op_threads(threads);  // both pools, as the server sets them
    for (int64_t batch : {7, 48, 64}) {
      const at::Tensor batched =
          model->forecast_samples(series.narrow(0, 0, batch), calendars.narrow(0, 0, batch))
              .forecast;
      for (int64_t b : {0, 3, 6, 7, 21, 40, 47, 48, 63}) {
        if (b >= batch) continue;
        EXPECT_TRUE(at::equal(model->forecast_sample(series[b], stamps[b]).forecast, batched[b]))
            << "sample " << b << " of a batch of " << batch << ", " << threads << " threads";
      }
    }
  }
  set_intra_op_threads(saved_blas);
  at::set_num_threads(saved_threads);
}

TEST(ITransformerProbSparse, EqualsFullWhenEveryQueryIsActive) {
  const ReferenceFixture fixture = load_reference_fixture("itr_prob_every_query");
  ITransformer prob = make_itransformer(fixture);
  ITransformer full = make_itransformer(fixture, "full");
  ASSERT_EQ(prob->config().attention, AttentionKind::kProb);
  const at::Tensor series = fixture.input("x").transpose(1, 2);
  at::InferenceMode guard;
  const SampleForecast p = prob->forecast_samples(series, calendar_of(prob, fixture), true);
  const SampleForecast f = full->forecast_samples(series, calendar_of(full, fixture), true);
  EXPECT_TRUE(matches_reference(p.forecast, f.forecast, 1e-6));
  for (size_t i = 0; i < p.attention.size(); ++i) {
    EXPECT_TRUE(matches_reference(p.attention[i], f.attention[i], 1e-6)) << "layer " << i;
  }
}

TEST(ITransformerTokens, VariablesThenCalendarFeaturesName) {
  const ReferenceFixture fixture = load_reference_fixture("itr_gelu_calendar_h_n7");
  ITransformer model = make_itransformer(fixture);
  EXPECT_EQ(model->token_names({"HUFL", "OT"}),
            (std::vector<std::string>{"HUFL", "OT", "HourOfDay", "DayOfWeek", "DayOfMonth",
                                      "DayOfYear"}));
}

}  // namespace
}  // namespace tsserve::testing
