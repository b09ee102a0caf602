// Attention maps from the fused forward (fused_row_maps.h) against the LibTorch modules'
// maps, on every copy of the kernels this CPU can run: Full attention (the Full fixtures
// and the bundled checkpoint) and ProbSparse (TSLib's layout from its fixture, the
// canonical one on the bundled checkpoint and on random weights). Each batch mixes rows
// asking for per-head maps, head-averaged maps, a subset of layers (in another order, one
// named twice) and no maps; the maps are within 1e-6 of the modules', and a row's
// forecast is bitwise the same with or without maps, alone or in the batch.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "bundled_checkpoint.h"
#include "default_model_shape.h"
#include "fixture_modules.h"
#include "reference_fixture.h"
#include "tsserve/model/fused_forward.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/row_attention_maps.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

// The bar for maps: absolute, on weights in [0, 1].
constexpr double kMapAtol = 1e-6;

struct MapsCase {
  PatchTST model{nullptr};
  at::Tensor rows;  // [R, seq_len], contiguous
};

// A fixture's input x [B, T, N] as series rows, followed by a few seeded random rows (so
// every case has rows of each request kind).
at::Tensor series_rows_with_extra(const at::Tensor& x) {
  torch::manual_seed(17);
  const at::Tensor rows = x.permute({0, 2, 1}).reshape({-1, x.size(1)});
  return at::cat({rows, torch::randn({5, x.size(1)}) * 3 + 1}).contiguous();
}

MapsCase load_maps_case(const std::string& name) {
  if (name == "bundled" || name == "bundled_prob") {
    ModelConfig config = load_model_config(config_path_for(kBundled));
    if (name == "bundled_prob") config.attention = AttentionKind::kProb;
    const ReferenceFixture fixture = load_reference_fixture("bundled_model");
    return {load_patchtst(kBundled, config), series_rows_with_extra(fixture.input("x"))};
  }
  if (name == "random_prob") {
    torch::manual_seed(29);
    PatchTST model(default_model_shape(AttentionKind::kProb));
    return {model, (torch::randn({11, 336}) * 2 - 1).contiguous()};
  }
  const ReferenceFixture fixture = load_reference_fixture(name);
  return {make_patchtst(fixture), series_rows_with_extra(fixture.input("x"))};
}

// Row r's request, cycling through: every layer per head; every layer averaged; none;
// the last layer then the first, per head; the last layer twice, averaged.
RowMapRequest request_of_row(int64_t row, int32_t layers) {
  std::vector<int32_t> all;
  for (int32_t i = 0; i < layers; ++i) all.push_back(i);
  switch (row % 5) {
    case 0:
      return {all, false};
    case 1:
      return {all, true};
    case 2:
      return {};
    case 3:
      return {{layers - 1, 0}, false};
    default:
      return {{layers - 1, layers - 1}, true};
  }
}

struct FusedRun {
  at::Tensor forecast;           // [R, F]
  std::vector<at::Tensor> maps;  // per row, as ForecastWithRowMaps::maps
};

// The fused forward on one copy of the kernels, with `requests` (empty: no maps at all);
// nullopt when this CPU lacks the instruction set.
std::optional<FusedRun> run_fused_on(const char* isa, const FusedWeights& w, const at::Tensor& rows,
                                     const std::vector<RowMapRequest>& requests) {
  FusedRun run;
  run.forecast = at::empty({rows.size(0), w.pred_len});
  run.maps.resize(requests.size());
  std::vector<FusedRowMaps> maps(requests.size());
  for (size_t r = 0; r < requests.size(); ++r) {
    const RowMapRequest& request = requests[r];
    if (request.layers.empty()) continue;
    const auto n = static_cast<int64_t>(request.layers.size());
    run.maps[r] = request.average_heads ? at::full({n, w.patches, w.patches}, -1.0f)
                                        : at::full({n, w.n_heads, w.patches, w.patches}, -1.0f);
    maps[r] = {run.maps[r].data_ptr<float>(), request.layers.data(), static_cast<int32_t>(n),
               request.average_heads};
  }
  const FusedRowMaps* asked = requests.empty() ? nullptr : maps.data();
  if (!fused_forecast_rows_with(isa, w, rows.data_ptr<float>(), rows.size(0),
                                run.forecast.data_ptr<float>(), asked)) {
    return std::nullopt;
  }
  return run;
}

// The LibTorch modules' map of `row` for a request's layer, as the server shapes it.
at::Tensor module_map(const std::vector<at::Tensor>& attention, int64_t row, int32_t layer,
                      bool average_heads) {
  const at::Tensor map = attention.at(static_cast<size_t>(layer))[row];  // [H, P, P]
  return average_heads ? map.mean(0) : map;
}

class FusedAttentionMaps : public ::testing::TestWithParam<std::string> {};

TEST_P(FusedAttentionMaps, MatchTheModulesAndLeaveTheForecastBitwiseAlone) {
  MapsCase c = load_maps_case(GetParam());
  const FusedPatchTST fused(*c.model);
  const FusedWeights& w = fused.weights();
  const auto layers = static_cast<int32_t>(w.layers.size());
  const int64_t rows = c.rows.size(0);
  std::vector<RowMapRequest> requests;
  for (int64_t r = 0; r < rows; ++r) requests.push_back(request_of_row(r, layers));

  std::vector<at::Tensor> attention;
  {
    at::InferenceMode guard;
    attention = c.model->forecast_rows(c.rows, true).attention;
  }
  ASSERT_EQ(attention.size(), static_cast<size_t>(layers));

  const std::vector<const char*> sets = fused_instruction_sets_on_this_cpu();
  for (const char* isa : sets) {
    SCOPED_TRACE(isa);
    const std::optional<FusedRun> plain = run_fused_on(isa, w, c.rows, {});
    const std::optional<FusedRun> mapped = run_fused_on(isa, w, c.rows, requests);
    ASSERT_TRUE(plain && mapped);
    EXPECT_TRUE(at::equal(mapped->forecast, plain->forecast));

    for (int64_t r = 0; r < rows; ++r) {
      const RowMapRequest& request = requests[static_cast<size_t>(r)];
      const at::Tensor& maps = mapped->maps[static_cast<size_t>(r)];
      if (request.layers.empty()) continue;
      for (size_t slot = 0; slot < request.layers.size(); ++slot) {
        const int32_t layer = request.layers[slot];
        EXPECT_TRUE(all_close(maps[static_cast<int64_t>(slot)],
                              module_map(attention, r, layer, request.average_heads),
                              {kMapAtol, 0.0}))
            << "row " << r << " layer " << layer << " averaged " << request.average_heads;
      }
    }

    // Alone, with and without its maps: the same forecast bits and the same map bits.
    for (int64_t r : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}, rows - 1}) {
      const at::Tensor row = c.rows.narrow(0, r, 1).contiguous();
      const RowMapRequest& request = requests[static_cast<size_t>(r)];
      const std::optional<FusedRun> alone = run_fused_on(isa, w, row, {request});
      const std::optional<FusedRun> alone_plain = run_fused_on(isa, w, row, {});
      ASSERT_TRUE(alone && alone_plain);
      EXPECT_TRUE(at::equal(alone->forecast[0], plain->forecast[r])) << "row " << r;
      EXPECT_TRUE(at::equal(alone_plain->forecast[0], plain->forecast[r])) << "row " << r;
      if (!request.layers.empty()) {
        EXPECT_TRUE(at::equal(alone->maps[0], mapped->maps[static_cast<size_t>(r)])) << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, FusedAttentionMaps,
                         ::testing::Values("patchtst_batchnorm_gelu", "patchtst_layernorm_relu",
                                           "patchtst_h1_odd", "patchtst_small_scale",
                                           "patchtst_prob_tslib", "bundled", "bundled_prob",
                                           "random_prob"));

// ProbSparse maps have the structure ProbAttention gives them: per head, P - u rows that
// are exactly 1 / P (the lazy queries) and u softmax rows.
TEST(FusedAttentionMapsProbSparse, LazyQueriesRowsAreExactlyUniform) {
  const MapsCase c = load_maps_case("bundled_prob");
  const FusedPatchTST fused(*c.model);
  const FusedWeights& w = fused.weights();
  ASSERT_LT(w.prob_active, w.patches);
  const ForecastWithRowMaps out =
      fused.forecast_rows_with_maps(c.rows.narrow(0, 0, 1), {{{0, 1, 2}, false}});
  const at::Tensor maps = out.maps[0];  // [3, H, P, P]
  const float uniform = static_cast<float>(1.0 / static_cast<double>(w.patches));
  const at::Tensor uniform_rows = (maps == uniform).all(-1).sum(-1);  // [3, H]
  EXPECT_TRUE(at::equal(uniform_rows, at::full_like(uniform_rows, w.patches - w.prob_active)))
      << uniform_rows;
}

TEST(FusedAttentionMapsRequests, AreCheckedBeforeAnyRowRuns) {
  PatchTST model(default_model_shape());
  const FusedPatchTST fused(*model);
  const at::Tensor rows = torch::randn({2, 336});
  std::vector<float> forecast(2 * 96, -7.0f);
  std::vector<float> maps(4 * 42 * 42);
  const int32_t bad_layer[] = {0, 3};
  const FusedRowMaps requests[] = {{}, {maps.data(), bad_layer, 2, false}};
  try {
    fused_forecast_rows(fused.weights(), rows.data_ptr<float>(), 2, forecast.data(), requests);
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("row 1: layer 3 is not in [0, 3)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(forecast[0], -7.0f);  // nothing ran
  const int32_t first[] = {0};
  const FusedRowMaps no_destination[] = {{nullptr, first, 1, true}, {}};
  EXPECT_THROW(fused_forecast_rows(fused.weights(), rows.data_ptr<float>(), 2, forecast.data(),
                                   no_destination),
               ModelError);
  EXPECT_THROW(fused.forecast_rows_with_maps(rows, {{{0}, true}}), ModelError);  // 1 for 2 rows
}

}  // namespace
}  // namespace tsserve::testing
