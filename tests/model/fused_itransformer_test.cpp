// The fused iTransformer forward (fused_itransformer.h) on every copy of the kernels this
// CPU can run: against the independent PyTorch reference on every Full-attention
// iTransformer fixture (gelu and relu, with and without calendar tokens, N from 1 to 21,
// heads narrower than a vector) and the bundled checkpoint on ETTh1, and against the
// LibTorch module on wide-ranging inputs, within 1e-5; a sample's forecast bitwise the same
// alone and inside batches of 2, 7 and 64 other samples at any position; ProbSparse
// refused by name.

#include "tsserve/model/fused_itransformer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "reference_fixture.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer_forward.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

const std::string kFusedItrBundled =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt";

ITransformer fused_itr_module(const ReferenceFixture& fixture) {
  const ModelConfig config = parse_model_config(fixture.config.dump(), "fixture");
  ITransformer model(config);
  load_state_dict_into(*model, normalise_itransformer_keys(fixture.params, config, "fixture"),
                       "fixture");
  return model;
}

// [B, C, T] calendar rows of the fixture's timestamps, or undefined without calendar.
at::Tensor fused_itr_calendar(const ITransformer& model, const ReferenceFixture& fixture) {
  if (!fixture.has_input("timestamps")) return {};
  const at::Tensor stamps = fixture.input("timestamps").contiguous();
  std::vector<at::Tensor> rows;
  for (int64_t b = 0; b < stamps.size(0); ++b) {
    const int64_t* first = stamps[b].data_ptr<int64_t>();
    rows.push_back(model->calendar_rows({first, first + stamps.size(1)}));
  }
  return at::stack(rows);
}

// The forecast [S, N, F] of one copy of the kernels; undefined when the CPU lacks it.
at::Tensor fused_itr_forecast_with(const char* isa, const FusedITransformer& fused,
                                   const at::Tensor& series, const at::Tensor& calendar) {
  const FusedITransformerWeights& w = fused.weights();
  const at::Tensor input = series.contiguous();
  const at::Tensor marks = calendar.defined() ? calendar.contiguous() : at::Tensor();
  at::Tensor out = at::empty({series.size(0), series.size(1), w.pred_len});
  if (!fused_itransformer_forecast_with(isa, w, input.data_ptr<float>(),
                                        marks.defined() ? marks.data_ptr<float>() : nullptr,
                                        series.size(0), series.size(1), out.data_ptr<float>())) {
    return {};
  }
  return out;
}

// Every copy this CPU can run gives `expected` ([S, N, F]) within the parity bar.
// Each sample against its own scale: one tolerance from the batch's largest sample (offsets
// up to 300, scales up to 40) would be ~70x looser than 1e-5 for its quietest.
::testing::AssertionResult matches_reference_by_sample(const at::Tensor& actual,
                                                       const at::Tensor& expected) {
  if (actual.sizes() != expected.sizes()) return matches_reference(actual, expected);
  for (int64_t b = 0; b < expected.size(0); ++b) {
    ::testing::AssertionResult sample = matches_reference(actual[b], expected[b]);
    if (!sample) return sample << " (sample " << b << ")";
  }
  return ::testing::AssertionSuccess();
}

void expect_every_copy_matches(const FusedITransformer& fused, const at::Tensor& series,
                               const at::Tensor& calendar, const at::Tensor& expected,
                               const std::string& what) {
  int ran = 0;
  for (const char* isa : {"avx512", "avx2", "sse2"}) {
    const at::Tensor out = fused_itr_forecast_with(isa, fused, series, calendar);
    if (!out.defined()) continue;
    ++ran;
    EXPECT_TRUE(matches_reference_by_sample(out, expected)) << what << ", instruction set " << isa;
  }
  EXPECT_EQ(ran, static_cast<int>(fused_instruction_sets_on_this_cpu().size()));
  // And the dispatched copy, through the tensor API.
  EXPECT_TRUE(matches_reference_by_sample(fused.forecast_samples(series, calendar), expected))
      << what << ", dispatched " << fused_instruction_set();
}

class ITransformerFusedParity : public ::testing::TestWithParam<std::string> {};

TEST_P(ITransformerFusedParity, ForecastMatchesReferenceAndLibTorchOnEveryCopy) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  ITransformer model = fused_itr_module(fixture);
  ASSERT_EQ(fused_itransformer_unsupported_reason(model->config()), "");
  const FusedITransformer fused(*model);
  const at::Tensor series = fixture.input("x").transpose(1, 2).contiguous();  // [B, N, T]
  const at::Tensor calendar = fused_itr_calendar(model, fixture);
  const at::Tensor reference = fixture.output("forecast").transpose(1, 2);  // [B, N, F]
  expect_every_copy_matches(fused, series, calendar, reference, "reference");
  at::InferenceMode guard;
  const at::Tensor torch_path = model->forecast_samples(series, calendar).forecast;
  expect_every_copy_matches(fused, series, calendar, torch_path, "LibTorch path");
}

INSTANTIATE_TEST_SUITE_P(Cases, ITransformerFusedParity,
                         ::testing::Values("itr_gelu_calendar_h_n7", "itr_relu_plain_n1",
                                           "itr_gelu_calendar_t_n21", "itr_relu_calendar_d_n3",
                                           "itr_gelu_plain_n12"));

TEST(FusedITransformer, BundledModelMatchesReferenceOnEtth1) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's first test window
  const ReferenceFixture fixture = load_reference_fixture("itransformer_bundled_case");
  ITransformer model = load_itransformer(kFusedItrBundled);
  const FusedITransformer fused(*model);
  const at::Tensor series = fixture.input("x").transpose(1, 2).contiguous();
  expect_every_copy_matches(fused, series, fused_itr_calendar(model, fixture),
                            fixture.output("forecast").transpose(1, 2), "reference");
}

// The bundled model's inputs: `samples` distinct random windows (offsets and scales
// varying by sample) and the calendar rows of distinct hourly timestamps.
struct FusedItrInputs {
  at::Tensor series;    // [S, 7, T]
  at::Tensor calendar;  // [S, 4, T]
};

FusedItrInputs fused_itr_inputs(const ITransformer& model, int64_t samples, uint64_t seed) {
  const int64_t T = model->config().seq_len;
  torch::manual_seed(seed);
  FusedItrInputs in;
  in.series = torch::randn({samples, model->config().enc_in, T}) *
                  (torch::rand({samples, 1, 1}) * 40 + 0.5) +
              torch::randn({samples, 1, 1}) * 100;
  std::vector<at::Tensor> calendar;
  for (int64_t b = 0; b < samples; ++b) {
    std::vector<int64_t> stamps;
    for (int64_t t = 0; t < T; ++t) stamps.push_back(1467331200 + 3600 * (53 * b + t));
    calendar.push_back(model->calendar_rows(stamps));
  }
  in.calendar = at::stack(calendar);
  return in;
}

TEST(FusedITransformer, BundledModelMatchesLibTorchOnWideRangingInputs) {
  ITransformer model = load_itransformer(kFusedItrBundled);
  const FusedITransformer fused(*model);
  const FusedItrInputs in = fused_itr_inputs(model, 64, 17);
  at::InferenceMode guard;
  const at::Tensor torch_path = model->forecast_samples(in.series, in.calendar).forecast;
  expect_every_copy_matches(fused, in.series, in.calendar, torch_path, "LibTorch path");
}

// One sample alone, then at several positions of batches of 2, 7 and 64 whose other
// samples differ: its forecast is bitwise the same every time, on every copy. 64 samples
// of the bundled model's 11 tokens span several chunks, so the positions cover the first,
// middle and last rows of a chunk and of the last (partial) chunk.
void expect_sample_alone_equals_sample_in_batches(const FusedITransformer& fused,
                                                  const at::Tensor& series,
                                                  const at::Tensor& calendar) {
  const int64_t samples = series.size(0);
  ASSERT_GE(samples, 65);
  const auto calendar_of = [&](const at::Tensor& index) {
    return calendar.defined() ? calendar.index_select(0, index) : at::Tensor();
  };
  int ran = 0;
  for (const char* isa : {"avx512", "avx2", "sse2"}) {
    const at::Tensor probe = at::tensor({int64_t{0}});
    const at::Tensor alone =
        fused_itr_forecast_with(isa, fused, series.index_select(0, probe), calendar_of(probe));
    if (!alone.defined()) continue;
    ++ran;
    for (int64_t batch : {2, 7, 64}) {
      for (int64_t position :
           {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{6}, batch / 2, batch - 1}) {
        if (position < 0 || position >= batch) continue;
        // The probe at `position`, others (samples 1 ..) around it.
        std::vector<int64_t> order;
        for (int64_t i = 1; i < batch; ++i) order.push_back(i);
        order.insert(order.begin() + position, 0);
        const at::Tensor index = at::tensor(order);
        const at::Tensor batched =
            fused_itr_forecast_with(isa, fused, series.index_select(0, index), calendar_of(index));
        EXPECT_TRUE(at::equal(alone[0], batched[position]))
            << isa << ": the sample at " << position << " of a batch of " << batch;
      }
    }
  }
  EXPECT_EQ(ran, static_cast<int>(fused_instruction_sets_on_this_cpu().size()));
}

TEST(FusedITransformer, BundledModelSampleAloneEqualsSampleInBatchesOf2_7And64Bitwise) {
  ITransformer model = load_itransformer(kFusedItrBundled);
  const FusedITransformer fused(*model);
  const FusedItrInputs in = fused_itr_inputs(model, 65, 23);
  expect_sample_alone_equals_sample_in_batches(fused, in.series, in.calendar);
}

// Odd shapes: heads narrower than a panel (E = 8), d_model 16, 21 variables + 5 calendar
// tokens (more than one panel of keys); and one variable with no calendar tokens.
TEST(FusedITransformer, FixtureShapesSampleAloneEqualsSampleInBatchesBitwise) {
  for (const char* name : {"itr_gelu_calendar_t_n21", "itr_relu_plain_n1"}) {
    SCOPED_TRACE(name);
    const ReferenceFixture fixture = load_reference_fixture(name);
    ITransformer model = fused_itr_module(fixture);
    const FusedITransformer fused(*model);
    const ModelConfig& config = model->config();
    torch::manual_seed(29);
    const at::Tensor series = torch::randn({65, config.enc_in, config.seq_len}) * 3 + 1;
    at::Tensor calendar;
    if (model->calendar_token_count() > 0) {
      calendar = torch::rand({65, model->calendar_token_count(), config.seq_len}) - 0.5;
    }
    expect_sample_alone_equals_sample_in_batches(fused, series, calendar);
  }
}

TEST(FusedITransformer, ProbSparseIsRefusedByName) {
  const ReferenceFixture fixture = load_reference_fixture("itr_prob_every_query");
  ITransformer model = fused_itr_module(fixture);
  ASSERT_EQ(model->config().attention, AttentionKind::kProb);
  EXPECT_NE(fused_itransformer_unsupported_reason(model->config()).find("ProbSparse"),
            std::string::npos);
  EXPECT_THROW(FusedITransformer{*model}, ModelError);
}

TEST(FusedITransformer, RejectsInputsOfTheWrongShape) {
  ITransformer model = load_itransformer(kFusedItrBundled);
  const FusedITransformer fused(*model);
  const FusedItrInputs in = fused_itr_inputs(model, 2, 3);
  const auto message_of = [&](const at::Tensor& series, const at::Tensor& calendar) {
    try {
      fused.forecast_samples(series, calendar);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message_of(in.series.narrow(2, 0, 95), in.calendar).find("[samples, variables >= 1, 96]"),
      std::string::npos);
  EXPECT_NE(message_of(in.series, at::Tensor()).find("calendar rows [2, 4, 96]"),
            std::string::npos);
  EXPECT_NE(message_of(in.series, in.calendar.narrow(0, 0, 1)).find("calendar rows [2, 4, 96]"),
            std::string::npos);
  EXPECT_NE(message_of(in.series.to(at::kDouble), in.calendar).find("float32"), std::string::npos);
}

}  // namespace
}  // namespace tsserve::testing
