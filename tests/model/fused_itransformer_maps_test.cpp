// Attention maps from the fused iTransformer forward (fused_itransformer_forward.h,
// FusedITransformer::forecast_samples_with_maps), on every copy of the kernels this CPU
// can run, for the bundled checkpoint and fixture configs (calendar tokens or none, heads
// narrower than a vector, more keys than a panel): per head and averaged over heads, a
// subset of layers including the last (whose calendar queries the forecast skips) and a
// layer named twice, against the LibTorch module's maps within 1e-6; the forecast bitwise
// the same with and without maps, and a sample's forecast and maps bitwise the same alone
// and inside a batch.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "reference_fixture.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/fused_itransformer_forward.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

const std::string kItrMapsBundled =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt";

ITransformer itr_maps_module(const std::string& name) {
  const ReferenceFixture fixture = load_reference_fixture(name);
  const ModelConfig config = parse_model_config(fixture.config.dump(), "fixture");
  ITransformer model(config);
  load_state_dict_into(*model, normalise_itransformer_keys(fixture.params, config, "fixture"),
                       "fixture");
  return model;
}

struct ItrMapsInputs {
  at::Tensor series;    // [S, N, T]
  at::Tensor calendar;  // [S, C, T], or undefined without calendar tokens
};

ItrMapsInputs itr_maps_inputs(const ITransformer& model, int64_t samples, uint64_t seed) {
  const ModelConfig& config = model->config();
  torch::manual_seed(seed);
  ItrMapsInputs in;
  in.series = torch::randn({samples, config.enc_in, config.seq_len}) *
                  (torch::rand({samples, 1, 1}) * 20 + 0.5) +
              torch::randn({samples, 1, 1}) * 50;
  const int64_t C = model->calendar_token_count();
  if (C > 0) {
    std::vector<at::Tensor> rows;
    for (int64_t b = 0; b < samples; ++b) {
      std::vector<int64_t> stamps;
      for (int64_t t = 0; t < config.seq_len; ++t) {
        stamps.push_back(1467331200 + 3600 * (37 * b + t));
      }
      rows.push_back(model->calendar_rows(stamps));
    }
    in.calendar = at::stack(rows);
  }
  return in;
}

// The requests of a batch: per head every layer, averaged the last layer and the first,
// none, per head the last layer twice, averaged every layer, ... cycling.
std::vector<RowMapRequest> itr_maps_requests(int64_t samples, int32_t layers) {
  std::vector<RowMapRequest> out;
  for (int64_t i = 0; i < samples; ++i) {
    RowMapRequest r;
    switch (i % 5) {
      case 0:
        for (int32_t l = 0; l < layers; ++l) r.layers.push_back(l);
        break;
      case 1:
        r.layers = {layers - 1, 0};
        r.average_heads = true;
        break;
      case 2:
        break;
      case 3:
        r.layers = {layers - 1, layers - 1};
        break;
      default:
        for (int32_t l = layers - 1; l >= 0; --l) r.layers.push_back(l);
        r.average_heads = true;
    }
    out.push_back(r);
  }
  return out;
}

// One copy of the kernels through fused_itransformer_forecast_with; forecast undefined
// when the CPU lacks it. With no requests, no maps argument.
ForecastWithRowMaps itr_maps_forecast_with(const char* isa, const FusedITransformer& fused,
                                           const ItrMapsInputs& in,
                                           const std::vector<RowMapRequest>* requests) {
  const FusedITransformerWeights& w = fused.weights();
  const int64_t S = in.series.size(0);
  const int64_t N = in.series.size(1);
  const int64_t P = N + w.calendar_tokens;
  const at::Tensor series = in.series.contiguous();
  const at::Tensor calendar = in.calendar.defined() ? in.calendar.contiguous() : at::Tensor();
  ForecastWithRowMaps out;
  out.maps.resize(S);
  std::vector<FusedRowMaps> maps(S);
  if (requests) {
    for (int64_t i = 0; i < S; ++i) {
      const RowMapRequest& r = (*requests)[i];
      if (r.layers.empty()) continue;
      const int64_t k = static_cast<int64_t>(r.layers.size());
      out.maps[i] =
          r.average_heads ? at::full({k, P, P}, -7.0f) : at::full({k, w.n_heads, P, P}, -7.0f);
      EXPECT_EQ(
          out.maps[i].numel(),
          fused_itransformer_map_floats(
              w, N, FusedRowMaps{nullptr, nullptr, static_cast<int32_t>(k), r.average_heads}));
      maps[i] = {out.maps[i].data_ptr<float>(), r.layers.data(), static_cast<int32_t>(k),
                 r.average_heads};
    }
  }
  at::Tensor forecast = at::empty({S, N, w.pred_len});
  if (!fused_itransformer_forecast_with(isa, w, series.data_ptr<float>(),
                                        calendar.defined() ? calendar.data_ptr<float>() : nullptr,
                                        S, N, forecast.data_ptr<float>(),
                                        requests ? maps.data() : nullptr)) {
    return {};
  }
  out.forecast = forecast;
  return out;
}

// The LibTorch module's maps of each request: [k, H, P, P] or [k, P, P] (mean over heads).
std::vector<at::Tensor> itr_maps_expected(ITransformer& model, const ItrMapsInputs& in,
                                          const std::vector<RowMapRequest>& requests) {
  at::InferenceMode guard;
  const SampleForecast torch_path = model->forecast_samples(in.series, in.calendar, true);
  std::vector<at::Tensor> out(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].layers.empty()) continue;
    std::vector<at::Tensor> layers;
    for (int32_t l : requests[i].layers) {
      const at::Tensor map = torch_path.attention.at(l)[static_cast<int64_t>(i)];
      layers.push_back(requests[i].average_heads ? map.mean(0) : map);
    }
    out[i] = at::stack(layers);
  }
  return out;
}

void expect_maps_near(const std::vector<at::Tensor>& got, const std::vector<at::Tensor>& expected,
                      const std::string& what) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].defined(), expected[i].defined()) << what << ", sample " << i;
    if (!expected[i].defined()) continue;
    ASSERT_EQ(got[i].sizes(), expected[i].sizes()) << what << ", sample " << i;
    const double error = (got[i] - expected[i]).abs().max().item<double>();
    EXPECT_LE(error, 1e-6) << what << ", sample " << i;
  }
}

// Every copy: maps within 1e-6 of LibTorch's, forecast bitwise the same without maps, and
// each of a few samples alone (with its maps) bitwise the same as inside the batch.
void expect_itr_maps_on_every_copy(ITransformer& model, int64_t samples, uint64_t seed) {
  const FusedITransformer fused(*model);
  const ItrMapsInputs in = itr_maps_inputs(model, samples, seed);
  const int32_t layers = static_cast<int32_t>(model->config().e_layers);
  const std::vector<RowMapRequest> requests = itr_maps_requests(samples, layers);
  const std::vector<at::Tensor> expected = itr_maps_expected(model, in, requests);
  int ran = 0;
  for (const char* isa : {"avx512", "avx2", "sse2"}) {
    SCOPED_TRACE(isa);
    const ForecastWithRowMaps plain = itr_maps_forecast_with(isa, fused, in, nullptr);
    if (!plain.forecast.defined()) continue;
    ++ran;
    const ForecastWithRowMaps with = itr_maps_forecast_with(isa, fused, in, &requests);
    EXPECT_TRUE(at::equal(with.forecast, plain.forecast));
    expect_maps_near(with.maps, expected, "batched");
    for (int64_t probe : {int64_t{0}, int64_t{1}, int64_t{3}, samples - 1}) {
      const at::Tensor index = at::tensor({probe});
      const ItrMapsInputs one{
          in.series.index_select(0, index),
          in.calendar.defined() ? in.calendar.index_select(0, index) : at::Tensor()};
      const std::vector<RowMapRequest> request{requests[probe]};
      const ForecastWithRowMaps alone = itr_maps_forecast_with(isa, fused, one, &request);
      EXPECT_TRUE(at::equal(alone.forecast[0], plain.forecast[probe])) << "sample " << probe;
      ASSERT_EQ(alone.maps[0].defined(), with.maps[probe].defined());
      if (alone.maps[0].defined()) {
        EXPECT_TRUE(at::equal(alone.maps[0], with.maps[probe])) << "sample " << probe;
      }
    }
  }
  EXPECT_EQ(ran, static_cast<int>(fused_instruction_sets_on_this_cpu().size()));
  // The tensor API on the dispatched copy.
  const ForecastWithRowMaps api =
      fused.forecast_samples_with_maps(in.series, in.calendar, requests);
  EXPECT_TRUE(at::equal(api.forecast, fused.forecast_samples(in.series, in.calendar)));
  expect_maps_near(api.maps, expected, std::string("dispatched ") + fused_instruction_set());
}

TEST(FusedITransformerMaps, BundledModelMapsMatchLibTorchOnEveryCopy) {
  ITransformer model = load_itransformer(kItrMapsBundled);
  expect_itr_maps_on_every_copy(model, 13, 41);
}

class FusedITransformerMapsFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(FusedITransformerMapsFixture, MapsMatchLibTorchOnEveryCopy) {
  ITransformer model = itr_maps_module(GetParam());
  expect_itr_maps_on_every_copy(model, 11, 43);
}

INSTANTIATE_TEST_SUITE_P(Cases, FusedITransformerMapsFixture,
                         ::testing::Values("itr_gelu_calendar_t_n21", "itr_relu_plain_n1",
                                           "itr_gelu_calendar_h_n7"));

TEST(FusedITransformerMaps, RejectsBadRequests) {
  ITransformer model = load_itransformer(kItrMapsBundled);
  const FusedITransformer fused(*model);
  const ItrMapsInputs in = itr_maps_inputs(model, 2, 5);
  RowMapRequest bad;
  bad.layers = {static_cast<int32_t>(model->config().e_layers)};
  EXPECT_THROW(fused.forecast_samples_with_maps(in.series, in.calendar, {bad, {}}), ModelError);
  EXPECT_THROW(fused.forecast_samples_with_maps(in.series, in.calendar, {{}}), ModelError);
  const ForecastWithRowMaps none =
      fused.forecast_samples_with_maps(in.series, in.calendar, {{}, {}});
  EXPECT_FALSE(none.maps[0].defined());
  EXPECT_FALSE(none.maps[1].defined());
}

}  // namespace
}  // namespace tsserve::testing
