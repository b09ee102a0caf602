// Encode in-process (part of model_bench): the bundled PatchTST and iTransformer encoding
// one sequence of their own token count (42 patch tokens; 7 variables + 4 calendar tokens)
// on the fused kernels (fused_encode.h) and on the LibTorch encoders the server ran before
// (`--cpu-kernels torch`), with and without every layer's per-head weights.
//
//   build/tests/bench/model_bench --benchmark_filter=BM_EncodePaths

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <string>

#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/patchtst_checkpoint.h"

namespace {

using namespace tsserve::model;

// family 0 PatchTST, 1 iTransformer; path 0 fused, 1 LibTorch; maps 0/1.
void BM_EncodePaths(benchmark::State& state) {
  const bool itransformer = state.range(0) != 0;
  const bool fused_path = state.range(1) == 0;
  const bool maps = state.range(2) != 0;
  const int64_t sequences = state.range(3);
  at::InferenceMode guard;
  if (itransformer) {
    ITransformer model = load_itransformer(TSSERVE_DEFAULT_ITRANSFORMER);
    const FusedITransformer fused(*model);
    const int64_t tokens = model->config().enc_in + model->calendar_token_count();
    torch::manual_seed(0);
    const at::Tensor input = torch::randn({sequences, tokens, model->config().d_model});
    for (auto _ : state) {
      benchmark::DoNotOptimize(fused_path ? fused.encode(input, maps).output
                                          : model->encoder->forward(input, {}, maps).output);
    }
    state.SetLabel(std::string("iTransformer, ") + std::to_string(tokens) + " tokens, " +
                   (fused_path ? std::string("fused ") + fused_instruction_set() : "LibTorch"));
  } else {
    PatchTST model = load_patchtst(TSSERVE_DEFAULT_MODEL);
    const FusedPatchTST fused(*model);
    const int64_t tokens = model->config().patch_count();
    torch::manual_seed(0);
    const at::Tensor input = torch::randn({sequences, tokens, model->config().d_model});
    for (auto _ : state) {
      benchmark::DoNotOptimize(fused_path ? fused.encode(input, maps).output
                                          : model->encode(input, {}, maps).output);
    }
    state.SetLabel(std::string("PatchTST, ") + std::to_string(tokens) + " tokens, " +
                   (fused_path ? std::string("fused ") + fused_instruction_set() : "LibTorch"));
  }
  state.counters["sequences_per_s"] = benchmark::Counter(
      static_cast<double>(sequences), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_EncodePaths)
    ->ArgNames({"itransformer", "torch", "maps", "sequences"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}, {1, 8}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
