// TimeXer against TSLib's models/TimeXer.py (tests/reference/timexer_reference.py, checked
// against TSLib's own file: make_timexer_fixtures.py --tslib): features "MS", "M" and "S",
// with and without time marks, use_norm on and off, seq_len 30 to 96, patch_len 6 to 16
// (one that does not divide seq_len). The LibTorch module and the fused kernels on every
// instruction set this CPU runs: forecasts within 1e-5 of the reference, the encoder output
// and both maps too; the fused maps within 1e-6 of LibTorch's; a sample's forecast bitwise
// the same alone and inside batches, and with or without maps. The calendar rows go through
// tsserve's own time features, computed from the fixtures' Unix timestamps.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "reference_fixture.h"
#include "tsserve/model/fused_timexer.h"
#include "tsserve/model/fused_timexer_forward.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/state_dict_loading.h"
#include "tsserve/model/timexer_checkpoint.h"
#include "tsserve/model/timexer_family.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

const std::vector<std::string> kTimeXerCases = {
    "tx_ms_calendar_norm", "tx_ms_plain_raw",       "tx_ms_two_variables_calendar_d",
    "tx_m_calendar_norm",  "tx_m_plain_raw_ragged", "tx_s_calendar_t"};
const char* const kInstructionSets[] = {"avx512", "avx2", "sse2"};

TimeXer timexer_module(const ReferenceFixture& fixture) {
  const ModelConfig config = parse_model_config(fixture.config.dump(), "fixture");
  TimeXer model(config);
  load_state_dict_into(*model, normalise_timexer_keys(fixture.params, config, "fixture"),
                       "fixture");
  return model;
}

// [B, C, T] calendar rows of the fixture's timestamps, or undefined without calendar.
at::Tensor timexer_calendar(const TimeXer& model, const ReferenceFixture& fixture) {
  if (!fixture.has_input("timestamps")) return {};
  const at::Tensor stamps = fixture.input("timestamps").contiguous();
  std::vector<at::Tensor> rows;
  for (int64_t b = 0; b < stamps.size(0); ++b) {
    const int64_t* first = stamps[b].data_ptr<int64_t>();
    rows.push_back(model->calendar_rows({first, first + stamps.size(1)}));
  }
  return at::stack(rows);
}

at::Tensor series_of(const ReferenceFixture& fixture) {
  return fixture.input("x").transpose(1, 2).contiguous();  // [B, N, T]
}

// The forecast [S, K, F] (and maps) of one copy of the kernels; undefined when the CPU
// lacks it.
at::Tensor fused_forecast_with(const char* isa, const FusedTimeXer& fused, const at::Tensor& series,
                               const at::Tensor& calendar,
                               const std::vector<FusedTimeXerMaps>* maps = nullptr) {
  const FusedTimeXerWeights& w = fused.weights();
  const at::Tensor input = series.contiguous();
  const at::Tensor marks = calendar.defined() ? calendar.contiguous() : at::Tensor();
  at::Tensor out = at::empty({series.size(0), w.endogenous(), w.pred_len});
  if (!fused_timexer_forecast_with(
          isa, w, input.data_ptr<float>(), marks.defined() ? marks.data_ptr<float>() : nullptr,
          series.size(0), out.data_ptr<float>(), maps ? maps->data() : nullptr)) {
    return {};
  }
  return out;
}

class TimeXerParity : public ::testing::TestWithParam<std::string> {};

TEST_P(TimeXerParity, TslibLayoutForecastMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  TimeXer model = timexer_module(fixture);
  const at::Tensor x_mark = fixture.has_input("x_mark") ? fixture.input("x_mark") : at::Tensor();
  at::InferenceMode guard;
  EXPECT_TRUE(
      matches_reference(model->forward(fixture.input("x"), x_mark), fixture.output("forecast")));
}

TEST_P(TimeXerParity, EncoderOutputAndBothMapsFromTimestampsMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  TimeXer model = timexer_module(fixture);
  at::InferenceMode guard;
  const TimeXerForecast out =
      model->forecast_samples(series_of(fixture), timexer_calendar(model, fixture), true);
  EXPECT_TRUE(matches_reference(out.forecast.transpose(1, 2), fixture.output("forecast")));
  const at::Tensor& encoded = fixture.output("encoder_output");  // [B * K, L, D]
  EXPECT_TRUE(matches_reference(out.encoder_output.reshape(encoded.sizes()), encoded));
  ASSERT_EQ(static_cast<int64_t>(out.self_attention.size()), model->config().e_layers);
  for (size_t i = 0; i < out.self_attention.size(); ++i) {
    const at::Tensor& self = fixture.output("self_attention." + std::to_string(i));
    EXPECT_TRUE(matches_reference(out.self_attention[i].reshape(self.sizes()), self))
        << "layer " << i;
    EXPECT_TRUE(matches_reference(out.cross_attention[i],
                                  fixture.output("cross_attention." + std::to_string(i))))
        << "layer " << i;
  }
}

TEST_P(TimeXerParity, LibTorchSampleAloneEqualsSampleInBatchBitwise) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  TimeXer model = timexer_module(fixture);
  const at::Tensor series = series_of(fixture);
  const at::Tensor calendar = timexer_calendar(model, fixture);
  at::InferenceMode guard;
  const at::Tensor batched = model->forecast_samples(series, calendar).forecast;
  for (int64_t b = 0; b < series.size(0); ++b) {
    const at::Tensor alone =
        model
            ->forecast_samples(series.narrow(0, b, 1),
                               calendar.defined() ? calendar.narrow(0, b, 1) : at::Tensor())
            .forecast;
    EXPECT_TRUE(at::equal(alone[0], batched[b])) << "sample " << b;
  }
}

TEST_P(TimeXerParity, FusedForecastMatchesReferenceOnEveryInstructionSet) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  TimeXer model = timexer_module(fixture);
  const FusedTimeXer fused(*model);
  const at::Tensor calendar = timexer_calendar(model, fixture);
  int ran = 0;
  for (const char* isa : kInstructionSets) {
    const at::Tensor out = fused_forecast_with(isa, fused, series_of(fixture), calendar);
    if (!out.defined()) continue;
    ++ran;
    EXPECT_TRUE(matches_reference(out.transpose(1, 2), fixture.output("forecast"))) << isa;
  }
  EXPECT_GE(ran, 1) << "no copy of the kernels runs here (sse2 always should)";
}

// Each sample at several positions of batches of 2, 7 and 64 samples (the others random,
// of another scale): bitwise its forecast alone, on every instruction set.
TEST_P(TimeXerParity, FusedSampleAloneEqualsSampleInBatchesBitwise) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  TimeXer model = timexer_module(fixture);
  const FusedTimeXer fused(*model);
  const at::Tensor series = series_of(fixture);
  const at::Tensor calendar = timexer_calendar(model, fixture);
  at::manual_seed(7);
  for (const char* isa : kInstructionSets) {
    const at::Tensor alone =
        fused_forecast_with(isa, fused, series.narrow(0, 0, 1),
                            calendar.defined() ? calendar.narrow(0, 0, 1) : at::Tensor());
    if (!alone.defined()) continue;
    for (int64_t size : {2, 7, 64}) {
      for (int64_t at_position : {int64_t{0}, size / 2, size - 1}) {
        at::Tensor batch = at::randn({size, series.size(1), series.size(2)}) * 50 + 3;
        batch[at_position] = series[0];
        at::Tensor marks;
        if (calendar.defined()) {
          marks = at::rand({size, calendar.size(1), calendar.size(2)}) - 0.5;
          marks[at_position] = calendar[0];
        }
        const at::Tensor out = fused_forecast_with(isa, fused, batch, marks);
        EXPECT_TRUE(at::equal(out[at_position], alone[0]))
            << isa << ": batch of " << size << " at " << at_position;
      }
    }
  }
}

// Maps of every layer (per head, and averaged) in the forecast's pass: the forecast bitwise
// the same as without maps, the maps within 1e-6 of LibTorch's. Without use_norm the raw
// inputs (about 10 here) reach the softmax unscaled: tx_m_plain_raw_ragged's first-layer
// scores run to 34.7, where float32's spacing is 3.8e-6, so one rounding apart moves a
// weight near 0.5 by about 1e-6 (measured 1.07e-6 under OpenBLAS's Sandybridge kernels,
// which have no FMA); those cases get 4e-6, a few such roundings.
TEST_P(TimeXerParity, FusedMapsMatchLibTorchAndLeaveTheForecastUnchanged) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  TimeXer model = timexer_module(fixture);
  const FusedTimeXer fused(*model);
  const at::Tensor series = series_of(fixture);
  const at::Tensor calendar = timexer_calendar(model, fixture);
  const int64_t S = series.size(0);
  const double bar = model->config().use_norm ? 1e-6 : 4e-6;
  std::vector<int32_t> layers;
  for (int32_t l = model->config().e_layers - 1; l >= 0; --l) layers.push_back(l);
  layers.push_back(0);  // a layer named twice gets its map twice
  at::InferenceMode guard;
  const TimeXerForecast torch_out = model->forecast_samples(series, calendar, true);
  const at::Tensor plain = fused.forecast_samples(series, calendar);
  for (bool average : {false, true}) {
    std::vector<TimeXerMapRequest> requests(static_cast<size_t>(S), {layers, average});
    requests[0] = {};  // a sample without maps beside samples with them
    const TimeXerForecastWithMaps out =
        fused.forecast_samples_with_maps(series, calendar, requests);
    EXPECT_TRUE(at::equal(out.forecast, plain)) << "average " << average;
    EXPECT_FALSE(out.self_maps[0].defined());
    for (int64_t s = 1; s < S; ++s) {
      for (size_t j = 0; j < layers.size(); ++j) {
        const size_t layer = static_cast<size_t>(layers[j]);
        at::Tensor self = torch_out.self_attention[layer][s];    // [K, H, L, L]
        at::Tensor cross = torch_out.cross_attention[layer][s];  // [H, K, V]
        if (average) {
          self = self.mean(1);
          cross = cross.mean(0);
        }
        EXPECT_TRUE(all_close(out.self_maps[s][static_cast<int64_t>(j)], self, {bar, 0}))
            << "sample " << s << " layer " << layer << " average " << average;
        EXPECT_TRUE(all_close(out.cross_maps[s][static_cast<int64_t>(j)], cross, {bar, 0}))
            << "sample " << s << " layer " << layer << " average " << average;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, TimeXerParity, ::testing::ValuesIn(kTimeXerCases));

TEST(TimeXerCheckpoint, TslibCheckpointFileLoadsAndForecastsAsTheReference) {
  const std::string stem = fixture_dir() + "/checkpoints/timexer";
  TimeXer model = load_timexer(stem + ".pt");
  const ReferenceFixture expected = load_reference_fixture("timexer_checkpoint_case");
  const at::Tensor stamps = expected.input("timestamps")[0].contiguous();
  const int64_t* first = stamps.data_ptr<int64_t>();
  const at::Tensor calendar = model->calendar_rows({first, first + stamps.numel()}).unsqueeze(0);
  at::InferenceMode guard;
  const at::Tensor out =
      model->forecast_samples(series_of(expected), calendar).forecast.transpose(1, 2);
  EXPECT_TRUE(matches_reference(out, expected.output("forecast")));
}

std::string config_error(const std::string& json) {
  try {
    parse_model_config(json, "test.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(TimeXerConfig, RefusesWhatTslibsModuleCannotRunNamingTheKey) {
  const std::string base =
      R"({"model": "TimeXer", "seq_len": 96, "pred_len": 24, "d_model": 16, "n_heads": 4,
          "e_layers": 2, "d_ff": 32)";
  EXPECT_NE(config_error(base + "}").find("'enc_in' is required"), std::string::npos);
  EXPECT_NE(config_error(base + R"(, "enc_in": 7, "patch_len": 97})").find("'patch_len'"),
            std::string::npos);
  EXPECT_NE(config_error(base + R"(, "enc_in": 1, "features": "MS", "calendar_tokens": false})")
                .find("needs calendar tokens"),
            std::string::npos);
  EXPECT_NE(config_error(base + R"(, "enc_in": 3, "features": "S"})").find("'enc_in' must be 1"),
            std::string::npos);
  EXPECT_NE(config_error(base + R"(, "enc_in": 7, "embed": "fixed"})").find("'embed'"),
            std::string::npos);
  EXPECT_NE(config_error(base + R"(, "enc_in": 7, "attention": "prob"})").find("'attention'"),
            std::string::npos);
  EXPECT_NE(config_error(base + R"(, "enc_in": 7, "use_norm": 2})").find("'use_norm'"),
            std::string::npos);
  EXPECT_EQ(config_error(base + R"(, "enc_in": 7, "use_norm": 0, "features": "MS"})"), "");
  const ModelConfig config = parse_model_config(base + R"(, "enc_in": 7, "features": "MS"})", "t");
  EXPECT_TRUE(config.use_norm);                          // TSLib's default
  EXPECT_EQ(timexer_covariate_count(config, 7), 6 + 4);  // six variables, four hourly features
}

}  // namespace
}  // namespace tsserve::testing
