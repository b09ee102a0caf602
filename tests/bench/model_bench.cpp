// Micro-benchmarks of the model library (not run by CI):
//  - Full vs ProbSparse vs Informer's naive ProbSparse (keys gathered through the expanded
//    [B,H,L_Q,L_K,E] view), B=1, H=8, E=64, L in {64, 256, 1024, 4096, 16384}: time per
//    forward and the peak tensor memory of one forward (counter peak_MiB);
//  - the default PatchTST shape (T=336, F=96, D=16, H=4, 3 layers, d_ff=128) at the batch
//    rows the server forms {1, 7, 56, 64, 448}: time per forward and rows/s;
//  - the bundled iTransformer (T=96, F=96, D=256, 2 layers, N=7 + 4 calendar tokens) at
//    {1, 8, 64} samples, attention maps off and on: samples/s and variable rows/s (N rows
//    per sample, comparable with PatchTST's rows/s: both forecast one variable per row).
//  - the fused CPU forward (fused_patchtst.h) of the bundled model at {1, 7, 56, 448} rows:
//    rows/s, GFLOP/s and the fraction of this core's measured FMA peak (BM_Roofline:
//    FMA peak and memory read bandwidth, measured here, not from a data sheet);
//  - attention maps on the serving path (BM_AttentionMapPaths): 7 rows x 3 layers of
//    head-averaged maps from the fused forward's own pass, against the fused forward
//    without maps, the fused forecast plus a LibTorch forward for the maps (the server
//    before fused maps) and the LibTorch reference path;
//  - the bundled iTransformer on the fused kernels (BM_FusedITransformerForward) at
//    {1, 64} samples: samples/s and GFLOP/s beside the measured FMA peak;
//  - the bundled TimeXer (BM_TimeXerForward, LibTorch; BM_FusedTimeXerForward, fused) at
//    {1, 64} samples: samples/s, and the fused GFLOP/s beside the measured FMA peak;
//  - the fused forward of 7 rows after the thread slept or polled for 1 ms
//    (BM_FusedForwardAfterIdle: why the batcher's idle workers poll).
//  - Encode, fused and LibTorch, in encode_bench.cpp (BM_EncodePaths).
// Threads: TSSERVE_BENCH_THREADS (default 1), the LibTorch intra-op thread count.
//
//   build/tests/bench/model_bench --benchmark_min_time=1

#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "counting_cpu_allocator.h"
#include "default_model_shape.h"
#include "naive_prob_attention.h"
#include "roofline.h"
#include "tsserve/model/encoder_decoder.h"
#include "tsserve/model/encoder_decoder_checkpoint.h"
#include "tsserve/model/full_attention.h"
#include "tsserve/model/fused_flops.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/fused_itransformer_flops.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/fused_timexer.h"
#include "tsserve/model/fused_timexer_flops.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/itransformer.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/kernel_choices.h"
#include "tsserve/model/malloc_retention.h"
#include "tsserve/model/patchtst.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/prob_attention.h"
#include "tsserve/model/row_attention_maps.h"
#include "tsserve/model/row_forecaster.h"
#include "tsserve/model/time_marks.h"
#include "tsserve/model/timexer_checkpoint.h"

namespace {

using namespace tsserve::model;
using tsserve::testing::CountingCpuAllocator;

constexpr int64_t kHeads = 8;
constexpr int64_t kWidth = 64;

double peak_mib_of(const std::function<void()>& run) {
  CountingCpuAllocator::reset_peak();
  const int64_t before = CountingCpuAllocator::live_bytes();
  run();
  return static_cast<double>(CountingCpuAllocator::peak_bytes() - before) / (1 << 20);
}

using AttentionCall =
    std::function<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>;

void attention_bench(benchmark::State& state, const AttentionCall& attention) {
  const int64_t length = state.range(0);
  torch::manual_seed(0);
  const at::Tensor q = torch::randn({1, length, kHeads, kWidth});
  const at::Tensor k = torch::randn({1, length, kHeads, kWidth});
  const at::Tensor v = torch::randn({1, length, kHeads, kWidth});
  at::InferenceMode guard;
  state.counters["peak_MiB"] = peak_mib_of([&] { benchmark::DoNotOptimize(attention(q, k, v)); });
  for (auto _ : state) benchmark::DoNotOptimize(attention(q, k, v));
}

AttentionCall inner(std::shared_ptr<InnerAttention> attention) {
  return [attention](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
    return attention->forward(q, k, v, {}, false).context;
  };
}

constexpr int64_t kInformerFactor = 5;  // Informer's default

void BM_FullAttention(benchmark::State& state) {
  attention_bench(state, inner(std::make_shared<FullAttention>()));
}

void BM_ProbAttention(benchmark::State& state) {
  ProbAttentionOptions options;
  options.factor = kInformerFactor;
  attention_bench(state, inner(std::make_shared<ProbAttention>(options)));
}

void BM_NaiveProbAttention(benchmark::State& state) {
  attention_bench(state, [](const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
    return tsserve::bench::naive_prob_attention(q, k, v, kInformerFactor);
  });
}

// The bundled model itself, its weights and its config, as the server loads it (trained
// weights, not a random initialisation of the same shape: the limit is this model's).
PatchTST bundled_model(bool batch_invariant, AttentionKind attention = AttentionKind::kFull) {
  ModelConfig config = load_model_config(config_path_for(TSSERVE_DEFAULT_MODEL));
  config.batch_invariant = batch_invariant;
  config.attention = attention;
  return load_patchtst(TSSERVE_DEFAULT_MODEL, config);
}

void BM_PatchTSTForward(benchmark::State& state) {
  const int64_t rows = state.range(0);
  PatchTST model = bundled_model(state.range(1) != 0);
  const ModelConfig& config = model->config();
  torch::manual_seed(0);
  const at::Tensor series = torch::randn({rows, config.seq_len});
  at::InferenceMode guard;
  for (auto _ : state) benchmark::DoNotOptimize(model->forecast_rows(series).forecast);
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
}

// One core's FMA peak, measured once per process (about 0.1 s).
double fma_peak_gflops() {
  static const double peak = [] {
    const char* isa = "";
    return tsserve::bench::measure_fma_peak_gflops(&isa);
  }();
  return peak;
}

void BM_Roofline(benchmark::State& state) {
  const char* isa = "";
  double peak = 0;
  double read = 0;
  for (auto _ : state) {
    peak = tsserve::bench::measure_fma_peak_gflops(&isa);
    read = tsserve::bench::measure_read_bandwidth_gbs(size_t{1} << 30);
  }
  state.counters["fma_peak_GFLOPs"] = peak;
  state.counters["read_GBs"] = read;
  state.SetLabel(isa);
}

// The fused forward of the bundled model; its FLOPs are the model's (no padding counted).
void BM_FusedForward(benchmark::State& state) {
  const int64_t rows = state.range(0);
  PatchTST model = bundled_model(true);
  const FusedPatchTST fused(*model);
  torch::manual_seed(0);
  const at::Tensor series = torch::randn({rows, model->config().seq_len});
  const ForwardFlops flops = forward_flops_per_row(fused.weights());
  const double peak = fma_peak_gflops();
  for (auto _ : state) benchmark::DoNotOptimize(fused.forecast_rows(series));
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOPs"] = benchmark::Counter(static_cast<double>(rows) * flops.total() / 1e9,
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPs"] = peak;
  state.counters["MFLOP_per_row"] = flops.total() / 1e6;
  state.SetLabel(fused_instruction_set());
}

// The bundled model with ProbSparse attention (as `--attention prob` serves it), on the
// fused kernels or LibTorch's batch-invariant path: both paths, side by side.
void BM_ProbSparseForward(benchmark::State& state) {
  const int64_t rows = state.range(0);
  PatchTST model = bundled_model(true, AttentionKind::kProb);
  const FusedPatchTST fused(*model);
  torch::manual_seed(0);
  const at::Tensor series = torch::randn({rows, model->config().seq_len});
  at::InferenceMode guard;
  if (state.range(1) != 0) {
    for (auto _ : state) benchmark::DoNotOptimize(fused.forecast_rows(series));
    state.SetLabel(std::string("fused ") + fused_instruction_set());
  } else {
    for (auto _ : state) benchmark::DoNotOptimize(model->forecast_rows(series).forecast);
    state.SetLabel("torch");
  }
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
}

// The tiny model (tiny_model_shape): the forward time a served tiny model's latency is
// compared with, to show the serving overhead.
void BM_TinyForward(benchmark::State& state) {
  const ModelConfig config = tsserve::testing::tiny_model_shape();
  PatchTST model(config);
  const at::Tensor series = torch::randn({state.range(0), config.seq_len});
  at::InferenceMode guard;
  for (auto _ : state) benchmark::DoNotOptimize(model->forecast_rows(series).forecast);
}

// What asking for attention maps costs a batch (the server computes them only for batches
// holding a request that asked): forward with need_attention off vs on.
void BM_PatchTSTAttentionMaps(benchmark::State& state) {
  const auto attention = state.range(1) ? AttentionKind::kProb : AttentionKind::kFull;
  PatchTST model(tsserve::testing::default_model_shape(attention));
  const at::Tensor series = torch::randn({state.range(0), model->config().seq_len});
  const bool maps = state.range(2) != 0;
  at::InferenceMode guard;
  for (auto _ : state) benchmark::DoNotOptimize(model->forecast_rows(series, maps).forecast);
}

// What attention maps cost on the serving path (RowForecaster), for the bundled model
// (Full or ProbSparse): `rows` rows (7: one ETTh1 request) each asking for every layer's
// head-averaged map. path 0: the fused forward without maps; 1: the fused forward writing
// the maps in the same pass (forecast_rows_with_maps); 2: the fused forecast, then the
// maps from a second forward of the LibTorch modules, averaged per row and layer (what
// the server did before the fused maps); 3: the reference path, --cpu-kernels torch
// (forecast_rows_with_maps on the modules: a forward without maps and one with).
void BM_AttentionMapPaths(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const auto attention = state.range(1) ? AttentionKind::kProb : AttentionKind::kFull;
  const int64_t path = state.range(2);
  PatchTST model = bundled_model(true, attention);
  const RowForecaster fused(model, CpuKernels::kFused);
  const RowForecaster reference(model, CpuKernels::kTorch);
  torch::manual_seed(0);
  const at::Tensor series = torch::randn({rows, model->config().seq_len});
  std::vector<int32_t> layers;
  for (int32_t i = 0; i < model->config().e_layers; ++i) layers.push_back(i);
  const std::vector<RowMapRequest> requests(static_cast<size_t>(rows), {layers, true});
  at::InferenceMode guard;
  for (auto _ : state) {
    switch (path) {
      case 0:
        benchmark::DoNotOptimize(fused.forecast_rows(series).forecast);
        break;
      case 1:
        benchmark::DoNotOptimize(fused.forecast_rows_with_maps(series, requests).maps);
        break;
      case 2: {
        benchmark::DoNotOptimize(fused.forecast_rows(series).forecast);
        const std::vector<at::Tensor> maps = model->forecast_rows(series, true).attention;
        for (int64_t row = 0; row < rows; ++row) {
          for (const at::Tensor& layer : maps) {
            benchmark::DoNotOptimize(layer[row].mean(0).contiguous());
          }
        }
        break;
      }
      default:
        benchmark::DoNotOptimize(reference.forecast_rows_with_maps(series, requests).maps);
        break;
    }
  }
  static const char* const kPaths[] = {"fused, no maps", "fused maps", "fused + torch maps",
                                       "torch maps (reference)"};
  state.SetLabel(std::string(kPaths[std::min<int64_t>(path, 3)]) + " " + fused_instruction_set());
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
}

// The bundled iTransformer's input for `samples` samples: random series, and the calendar
// rows of hourly timestamps, computed once (the request codec computes them, not the model).
struct ITransformerInput {
  at::Tensor series;    // [samples, variables, seq_len]
  at::Tensor calendar;  // [samples, calendar tokens, seq_len]
};

ITransformerInput itransformer_input(ITransformer& model, int64_t samples) {
  const int64_t T = model->config().seq_len;
  torch::manual_seed(0);
  ITransformerInput input;
  input.series = torch::randn({samples, model->config().enc_in, T});
  std::vector<int64_t> stamps;
  for (int64_t t = 0; t < T; ++t) stamps.push_back(1467331200 + 3600 * t);
  input.calendar = model->calendar_rows(stamps).unsqueeze(0).expand({samples, -1, -1});
  return input;
}

// invariant 1: each sample a pass of its own (unit_passes.h, the served path on the CPU);
// 0: the batch at once (batch_invariant: false), to price the invariance.
void BM_ITransformerForward(benchmark::State& state) {
  const int64_t samples = state.range(0);
  const bool maps = state.range(1) != 0;
  ModelConfig config = load_model_config(config_path_for(TSSERVE_DEFAULT_ITRANSFORMER));
  config.batch_invariant = state.range(2) != 0;
  ITransformer model = load_itransformer(TSSERVE_DEFAULT_ITRANSFORMER, config);
  const int64_t variables = model->config().enc_in;
  const auto [series, calendar] = itransformer_input(model, samples);
  at::InferenceMode guard;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->forecast_samples(series, calendar, maps).forecast);
  }
  state.counters["samples_per_s"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["rows_per_s"] = benchmark::Counter(static_cast<double>(samples * variables),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}

// The bundled iTransformer on the fused kernels (fused_itransformer.h), beside
// BM_ITransformerForward: the same inputs, one thread. GFLOPs counts what the fused
// forward executes (it skips the calendar tokens' last-layer work, whose outputs the
// forecast drops: fused_itransformer_flops.h), model_GFLOPs the LibTorch module's FLOPs
// at the same rate (comparable with BM_ITransformerForward's samples_per_s).
void BM_FusedITransformerForward(benchmark::State& state) {
  const int64_t samples = state.range(0);
  ITransformer model = load_itransformer(TSSERVE_DEFAULT_ITRANSFORMER);
  const FusedITransformer fused(*model);
  const auto [series, calendar_view] = itransformer_input(model, samples);
  const at::Tensor calendar = calendar_view.contiguous();
  const int64_t variables = series.size(1);
  const double executed =
      itransformer_flops_per_sample(fused.weights(), variables, ITransformerFlopsCount::kFused)
          .total();
  const double modelled =
      itransformer_flops_per_sample(fused.weights(), variables, ITransformerFlopsCount::kModel)
          .total();
  const double peak = fma_peak_gflops();
  for (auto _ : state) benchmark::DoNotOptimize(fused.forecast_samples(series, calendar));
  const auto rate = [&](double per_sample) {
    return benchmark::Counter(static_cast<double>(samples) * per_sample,
                              benchmark::Counter::kIsIterationInvariantRate);
  };
  state.counters["samples_per_s"] = rate(1.0);
  state.counters["GFLOPs"] = rate(executed / 1e9);
  state.counters["model_GFLOPs"] = rate(modelled / 1e9);
  state.counters["peak_GFLOPs"] = peak;
  state.counters["MFLOP_per_sample"] = executed / 1e6;
  state.SetLabel(fused_instruction_set());
}

// The bundled TimeXer (ETTh1, "MS": OT the target, six covariates and four calendar
// tokens; T=96, patch 16, D=512, 2 layers) on `samples` windows of random series with the
// calendar rows of hourly timestamps, computed once (the request codec computes them).
struct TimeXerInput {
  at::Tensor series;    // [samples, variables, seq_len]
  at::Tensor calendar;  // [samples, calendar tokens, seq_len]
};

TimeXerInput timexer_input(TimeXer& model, int64_t samples) {
  const int64_t T = model->config().seq_len;
  torch::manual_seed(0);
  std::vector<int64_t> stamps;
  for (int64_t t = 0; t < T; ++t) stamps.push_back(1467331200 + 3600 * t);
  return {torch::randn({samples, model->config().enc_in, T}),
          model->calendar_rows(stamps).unsqueeze(0).expand({samples, -1, -1}).contiguous()};
}

// The LibTorch module, each sample a pass of its own (the served path's reference).
void BM_TimeXerForward(benchmark::State& state) {
  const int64_t samples = state.range(0);
  TimeXer model = load_timexer(TSSERVE_DEFAULT_TIMEXER);
  const auto [series, calendar] = timexer_input(model, samples);
  at::InferenceMode guard;
  for (auto _ : state) benchmark::DoNotOptimize(model->forecast_samples(series, calendar).forecast);
  state.counters["samples_per_s"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsIterationInvariantRate);
}

// The same inputs on the fused kernels (fused_timexer.h), one thread: GFLOPs counts the
// module's FLOPs (fused_timexer_flops.h) beside this core's measured FMA peak.
void BM_FusedTimeXerForward(benchmark::State& state) {
  const int64_t samples = state.range(0);
  TimeXer model = load_timexer(TSSERVE_DEFAULT_TIMEXER);
  const FusedTimeXer fused(*model);
  const auto [series, calendar] = timexer_input(model, samples);
  const double flops = timexer_flops_per_sample(fused.weights());
  const double peak = fma_peak_gflops();
  for (auto _ : state) benchmark::DoNotOptimize(fused.forecast_samples(series, calendar));
  const auto rate = [&](double per_sample) {
    return benchmark::Counter(static_cast<double>(samples) * per_sample,
                              benchmark::Counter::kIsIterationInvariantRate);
  };
  state.counters["samples_per_s"] = rate(1.0);
  state.counters["GFLOPs"] = rate(flops / 1e9);
  state.counters["peak_GFLOPs"] = peak;
  state.counters["MFLOP_per_sample"] = flops / 1e6;
  state.SetLabel(fused_instruction_set());
}

// The bundled Informer (T=96, label 48, F=96, D=128, 2 + 1 layers, distilling, ProbSparse)
// on `samples` samples of random series with the marks of hourly timestamps (input and
// forecast steps, computed once: the request codec computes them, not the model).
// family 1: a vanilla Transformer of the same shape (Full attention, no distilling,
// untrained weights: its cost does not depend on their values), as none is bundled.
void BM_EncoderDecoderForward(benchmark::State& state) {
  const int64_t samples = state.range(0);
  const bool maps = state.range(1) != 0;
  ModelConfig config = load_model_config(config_path_for(TSSERVE_DEFAULT_INFORMER));
  EncoderDecoder model{nullptr};
  if (state.range(2) == 0) {
    model = load_encoder_decoder(TSSERVE_DEFAULT_INFORMER, config);
  } else {
    config.family = "Transformer";
    config.attention = AttentionKind::kFull;
    config.prob_layout = ProbLayout::kCanonical;
    config.distil = false;
    model = EncoderDecoder(config);
    model->eval();
  }
  torch::manual_seed(0);
  const at::Tensor series = torch::randn({samples, config.enc_in, config.seq_len});
  std::vector<int64_t> stamps;
  for (int64_t t = 0; t < config.seq_len + config.pred_len; ++t)
    stamps.push_back(1467331200 + 3600 * t);
  const std::vector<float> values = time_marks(config.embed, config.freq, stamps);
  const at::Tensor marks = torch::tensor(values)
                               .view({1, config.seq_len + config.pred_len, -1})
                               .expand({samples, -1, -1})
                               .contiguous();
  at::InferenceMode guard;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->forecast_samples(series, marks, maps).forecast);
  }
  state.counters["samples_per_s"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsIterationInvariantRate);
}

// L = 16384: Full needs 8 GiB of scores per forward; the naive gather 1.6 GiB of key copies.
BENCHMARK(BM_FullAttention)->RangeMultiplier(4)->Range(64, 16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbAttention)->RangeMultiplier(4)->Range(64, 16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NaiveProbAttention)
    ->RangeMultiplier(4)
    ->Range(64, 16384)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PatchTSTForward)
    ->ArgNames({"rows", "invariant"})
    ->ArgsProduct({{1, 7, 56, 64, 448}, {1, 0}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ITransformerForward)
    ->ArgNames({"samples", "maps", "invariant"})
    ->ArgsProduct({{1, 8, 64}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FusedITransformerForward)
    ->ArgName("samples")
    ->Arg(1)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimeXerForward)->ArgName("samples")->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FusedTimeXerForward)
    ->ArgName("samples")
    ->Arg(1)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncoderDecoderForward)
    ->ArgNames({"samples", "maps", "family"})
    ->ArgsProduct({{1, 8, 64}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FusedForward)
    ->ArgName("rows")
    ->Arg(1)
    ->Arg(7)
    ->Arg(56)
    ->Arg(448)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbSparseForward)
    ->ArgNames({"rows", "fused"})
    ->ArgsProduct({{7, 56, 448}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Roofline)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TinyForward)->ArgName("rows")->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PatchTSTAttentionMaps)
    ->ArgNames({"rows", "prob", "maps"})
    ->ArgsProduct({{64}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttentionMapPaths)
    ->ArgNames({"rows", "prob", "path"})
    ->ArgsProduct({{7}, {0, 1}, {0, 1, 2, 3}})
    ->Unit(benchmark::kMicrosecond);

// The fused forward as a server at concurrency 1 runs it: after the thread waited 1 ms
// for the next request (idle_us) by sleeping (wait 0), by a busy poll (1) or by a poll
// that yields (2, as the batcher's workers do: server/batching/idle_spin.h), and, with
// sweep_kib, after other work streamed that much memory through this core's caches (gRPC
// and protobuf between two forwards). Only the forward is timed (manual time). Compare
// with --benchmark_repetitions and --benchmark_enable_random_interleaving: this
// machine's speed drifts more than these differences from one minute to the next.
void BM_FusedForwardAfterIdle(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const auto idle = std::chrono::microseconds(state.range(1));
  const int64_t wait = state.range(2);
  const size_t sweep_bytes = static_cast<size_t>(state.range(3)) * 1024;
  PatchTST model = bundled_model(true);
  const FusedPatchTST fused(*model);
  torch::manual_seed(0);
  const at::Tensor series = torch::randn({rows, model->config().seq_len});
  std::vector<char> sweep(std::max<size_t>(sweep_bytes, 64), 1);
  for (auto _ : state) {
    if (idle.count() > 0 && wait == 0) std::this_thread::sleep_for(idle);
    if (idle.count() > 0 && wait > 0) {
      const auto until = std::chrono::steady_clock::now() + idle;
      while (std::chrono::steady_clock::now() < until) {
        if (wait == 2) std::this_thread::yield();
      }
    }
    for (size_t i = 0; i < sweep_bytes; i += 64) sweep[i] = static_cast<char>(sweep[i] + 1);
    benchmark::ClobberMemory();
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(fused.forecast_rows(series));
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}
BENCHMARK(BM_FusedForwardAfterIdle)
    ->ArgNames({"rows", "idle_us", "wait", "sweep_kib"})
    ->Args({7, 0, 0, 0})
    ->Args({7, 0, 0, 1024})
    ->Args({7, 1000, 0, 0})
    ->Args({7, 1000, 1, 0})
    ->Args({7, 1000, 2, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

// The LibTorch forward while another thread runs one too (two batcher instances, or a
// version loading beside one serving), with OpenBLAS's pool at blas_threads: 1 (what the
// server sets for 1 intra-op thread: tsserve/model/intra_op_threads.h) or 2 (OpenBLAS's
// default here, a thread per core). neighbour 0 times it alone. Only the timed thread's
// forward counts (manual time); the neighbour's forwards are reported as a rate.
void BM_ITransformerForwardBesideAnother(benchmark::State& state) {
  const int64_t samples = state.range(0);
  const int blas_threads = static_cast<int>(state.range(1));
  const bool neighbour = state.range(2) != 0;
  ITransformer model = load_itransformer(TSSERVE_DEFAULT_ITRANSFORMER);
  const ITransformerInput input = itransformer_input(model, samples);
  const tsserve::model::EnvironmentLookup no_operator_setting = [](const char*) {
    return static_cast<const char*>(nullptr);
  };
  const int torch_threads = at::get_num_threads();
  const int blas_before = tsserve::model::blas_pool_threads().value_or(1);
  tsserve::model::set_intra_op_threads(blas_threads, no_operator_setting);
  at::set_num_threads(torch_threads);  // LibTorch's pool as the run set it; the BLAS's varies
  std::atomic<bool> stop{false};
  std::atomic<int64_t> neighbour_forwards{0};
  std::thread other;
  if (neighbour) {
    other = std::thread([&] {
      at::InferenceMode guard;
      while (!stop.load()) {
        benchmark::DoNotOptimize(
            model->forecast_samples(input.series, input.calendar, false).forecast);
        neighbour_forwards.fetch_add(1);
      }
    });
  }
  at::InferenceMode guard;
  double timed = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(model->forecast_samples(input.series, input.calendar, false).forecast);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(seconds);
    timed += seconds;
  }
  stop = true;
  if (other.joinable()) other.join();
  state.counters["neighbour_per_s"] = timed > 0 ? neighbour_forwards.load() / timed : 0;
  tsserve::model::set_intra_op_threads(blas_before, no_operator_setting);
  at::set_num_threads(torch_threads);
}
BENCHMARK(BM_ITransformerForwardBesideAnother)
    ->ArgNames({"samples", "blas_threads", "neighbour"})
    ->ArgsProduct({{8}, {1, 2}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  // Counting every tensor allocation is only needed for the attention benchmarks' peak
  // memory; TSSERVE_BENCH_COUNT_MEMORY=0 leaves LibTorch's own allocator in place.
  const char* count_memory = std::getenv("TSSERVE_BENCH_COUNT_MEMORY");
  if (count_memory == nullptr || std::string(count_memory) != "0") CountingCpuAllocator::install();
  // The server's allocator settings (server/app/main.cpp), so the limit is measured alike.
  benchmark::AddCustomContext("malloc", tsserve::model::keep_freed_memory_for_reuse().detail);
  // The server's intra-op setting: LibTorch's pool and OpenBLAS's alike.
  const char* threads = std::getenv("TSSERVE_BENCH_THREADS");
  tsserve::model::set_intra_op_threads(threads ? std::atoi(threads) : 1);
  benchmark::AddCustomContext("torch_threads", std::to_string(at::get_num_threads()));
  benchmark::AddCustomContext("blas", tsserve::model::describe_blas_pool());
  benchmark::AddCustomContext("kernels",
                              tsserve::model::describe(tsserve::model::kernel_choices()));
  // Extra batch sizes (e.g. the mean batches a server formed): TSSERVE_BENCH_ROWS=56,182
  if (const char* extra = std::getenv("TSSERVE_BENCH_ROWS")) {
    std::stringstream rows(extra);
    for (std::string item; std::getline(rows, item, ',');) {
      benchmark::RegisterBenchmark("BM_PatchTSTForwardAt", BM_PatchTSTForward)
          ->Args({std::stoll(item), 0})
          ->ArgNames({"rows", "invariant"})
          ->Unit(benchmark::kMillisecond);
      // The server's default forward (--cpu-kernels fused) at the same batch.
      benchmark::RegisterBenchmark("BM_FusedForwardAt", BM_FusedForward)
          ->Arg(std::stoll(item))
          ->ArgName("rows")
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
