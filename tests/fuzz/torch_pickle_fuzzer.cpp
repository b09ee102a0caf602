// Fuzz target: the pickle and tensor storages of a torch.save archive, read by
// read_torch_state_dict. The fuzzer's bytes are records, each a 4-byte little-endian
// length and that many bytes: data.pkl, then the storages data/0, data/1, ...; they are
// wrapped into a well-formed archive (stored, correct CRC-32s, version 3), so that every
// mutation reaches the restricted unpickler, the persistent ids, the storages and the
// tensor views rather than stopping at the zip layer (checkpoint_file covers that).
//
// Invariants: checkpoint_checks.h.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint_checks.h"
#include "fuzz_target.h"
#include "memory_file.h"
#include "stored_zip.h"
#include "tsserve/model/checkpoint_file.h"

namespace tsserve::fuzz {
namespace {

// Length-prefixed records; a length past the end takes what is left.
std::vector<std::string> split_records(const uint8_t* data, size_t size) {
  std::vector<std::string> records;
  size_t p = 0;
  while (p < size) {
    uint32_t length = 0;
    for (int i = 0; i < 4 && p < size; ++i, ++p) length |= uint32_t{data[p]} << (8 * i);
    const size_t take = std::min<size_t>(length, size - p);
    records.emplace_back(reinterpret_cast<const char*>(data + p), take);
    p += take;
  }
  return records;
}

}  // namespace
}  // namespace tsserve::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve;
  static fuzz::MemoryFile file("tsserve-fuzz-torch-pickle");
  const std::vector<std::string> records = fuzz::split_records(data, size);
  if (records.empty()) return 0;
  std::vector<std::pair<std::string, std::string>> entries;
  entries.emplace_back("archive/data.pkl", records[0]);
  for (size_t i = 1; i < records.size(); ++i) {
    entries.emplace_back("archive/data/" + std::to_string(i - 1), records[i]);
  }
  entries.emplace_back("archive/version", "3\n");
  const std::string archive = fuzz::stored_zip(entries);
  file.write(archive);
  fuzz::check_checkpoint_read([] { return model::read_torch_state_dict(file.path()); }, file.path(),
                              archive.size());
  return 0;
}
