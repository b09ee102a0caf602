// Fused Encode's memory (commit 1e2e197): a thread keeps its scratch buffers between calls
// only up to the model's own token count (or 128 tokens); a longer sequence gets buffers of
// its own, freed on return, so one long Encode (L x L scores) is not held by the batcher
// thread for its lifetime. Measured as glibc's heap in use (mallinfo2, as
// tests/server/heap_in_use.h), in the thread that encoded, before its thread_local scratch
// could go with it: what the long call leaves held must be far below its scores, on every
// copy of the kernels this CPU runs, PatchTST and the iTransformer. The measure is proved
// able to see a kept scratch: a fresh thread's first Encode at the cached size leaves at
// least its L x L scores held.

#include <gtest/gtest.h>
#include <malloc.h>
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bundled_checkpoint.h"
#include "tsserve/model/fused_encode.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcHeap = false;
#else
constexpr bool kGlibcHeap = true;
#endif

// The longest sequence whose scratch a thread keeps (both kernels' kCachedEncodeTokens).
constexpr int64_t kCachedTokens = 128;
// Long enough that its scores (L x L floats, 4 MB) dwarf any noise.
constexpr int64_t kLongTokens = 1024;

std::ptrdiff_t heap_bytes_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::ptrdiff_t>(info.uordblks + info.hblkhd);
}

// encode(tokens, length, output): one sequence of `length` tokens of d_model floats.
using EncodeOne = std::function<void(const float*, int64_t, float*)>;

// In a fresh thread: an Encode of `warm` tokens first (0: none), then heap in use across an
// Encode of `length` tokens, measured before the thread (and its thread_local scratch) ends.
std::ptrdiff_t held_by_encode(const EncodeOne& encode, int64_t d_model, int64_t warm,
                              int64_t length) {
  std::ptrdiff_t held = 0;
  std::thread worker([&] {
    std::vector<float> tokens(static_cast<size_t>(length * d_model));
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = 0.5f + 0.001f * (i % 997);
    std::vector<float> output(tokens.size());
    if (warm > 0) {
      std::vector<float> warm_output(static_cast<size_t>(warm * d_model));
      encode(tokens.data(), warm, warm_output.data());
    }
    const std::ptrdiff_t before = heap_bytes_in_use();
    encode(tokens.data(), length, output.data());
    held = heap_bytes_in_use() - before;
  });
  worker.join();
  return held;
}

void expect_long_encode_releases_its_scratch(const EncodeOne& encode, int64_t d_model,
                                             int64_t cached, const std::string& what) {
  const std::ptrdiff_t scores_cached = static_cast<std::ptrdiff_t>(cached * cached * 4);
  const std::ptrdiff_t kept_at_cached = held_by_encode(encode, d_model, 0, cached);
  EXPECT_GE(kept_at_cached, scores_cached)
      << what << ": a fresh thread's Encode of " << cached << " tokens should keep its "
      << cached << " x " << cached << " scores (thread_local scratch); the heap measure saw "
      << kept_at_cached << " bytes, so it proves nothing";

  const std::ptrdiff_t scores_long = static_cast<std::ptrdiff_t>(kLongTokens * kLongTokens * 4);
  const std::ptrdiff_t kept_after_long = held_by_encode(encode, d_model, cached, kLongTokens);
  EXPECT_LT(kept_after_long, scores_long / 8)
      << what << ": an Encode of " << kLongTokens << " tokens left " << kept_after_long
      << " bytes held by its thread after it returned (its scores alone are " << scores_long
      << "): a sequence past " << cached << " tokens must get scratch of its own, freed";
}

TEST(FusedEncodeMemory, ALongSequencesScratchIsFreedOnReturnPatchTST) {
  if (!kGlibcHeap) GTEST_SKIP() << "a sanitizer's allocator replaces glibc's here";
  PatchTST model = load_patchtst(kBundled);
  const FusedPatchTST fused(*model);
  const FusedWeights& w = fused.weights();
  const int64_t cached = std::max<int64_t>(w.patches, kCachedTokens);
  ASSERT_GT(kLongTokens, cached);
  for (const char* isa : fused_instruction_sets_on_this_cpu()) {
    const EncodeOne encode = [&](const float* tokens, int64_t length, float* output) {
      ASSERT_TRUE(fused_patchtst_encode_with(isa, w, tokens, 1, length, output));
    };
    expect_long_encode_releases_its_scratch(encode, w.d_model, cached,
                                            std::string("PatchTST, ") + isa);
  }
}

TEST(FusedEncodeMemory, ALongSequencesScratchIsFreedOnReturnITransformer) {
  if (!kGlibcHeap) GTEST_SKIP() << "a sanitizer's allocator replaces glibc's here";
  ITransformer model =
      load_itransformer(std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt");
  const FusedITransformer fused(*model);
  const FusedITransformerWeights& w = fused.weights();
  const int64_t d_model = model->config().d_model;
  for (const char* isa : fused_instruction_sets_on_this_cpu()) {
    const EncodeOne encode = [&](const float* tokens, int64_t length, float* output) {
      ASSERT_TRUE(fused_itransformer_encode_with(isa, w, tokens, 1, length, output));
    };
    expect_long_encode_releases_its_scratch(encode, d_model, kCachedTokens,
                                            std::string("iTransformer, ") + isa);
  }
}

}  // namespace
}  // namespace tsserve::testing
