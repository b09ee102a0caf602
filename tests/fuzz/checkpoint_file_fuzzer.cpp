// Fuzz target: read_checkpoint_file on the fuzzer's bytes as a file - the format sniffing,
// torch.save's zip archive (our directory checks, LibTorch's PyTorchStreamReader, the
// restricted unpickler, the tensor views) and safetensors (header JSON, offsets, dtypes).
// The seeds are real files written by PyTorch and by make_corpus.py; some have their
// CRC-32s zeroed (a writer may leave them out), so that mutated records still reach the
// pickle and the tensors instead of stopping at the checksum.
//
// Invariants: checkpoint_checks.h.

#include "checkpoint_checks.h"
#include "fuzz_target.h"
#include "memory_file.h"
#include "tsserve/model/checkpoint_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  static fuzz::MemoryFile file("tsserve-fuzz-checkpoint");
  file.write(data, size);
  fuzz::check_checkpoint_read([] { return model::read_checkpoint_file(file.path()); }, file.path(),
                              size);
  return 0;
}
