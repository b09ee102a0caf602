#pragma once
// What every checkpoint read must end in (checkpoint_file.h): a state_dict of well-formed
// CPU tensors, or ModelError saying which file and what was wrong. Any other exception,
// a crash or a sanitizer report is a bug.

#include <functional>
#include <set>
#include <string>

#include "fuzz_target.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/state_dict.h"

namespace tsserve::fuzz {

// The readers may copy overlapping views up to 4x the file's bytes plus 256 MiB
// (tensor_view_copy.h); nothing may make them hold more.
inline uint64_t max_state_dict_bytes(uint64_t file_size) { return 4 * file_size + (256u << 20); }

inline void check_checkpoint_read(const std::function<model::StateDict()>& read,
                                  const std::string& path, uint64_t file_size) {
  model::StateDict state_dict;
  try {
    state_dict = read();
  } catch (const model::ModelError& e) {
    const std::string message = e.what();
    const std::string prefix = "checkpoint " + path + ": ";
    FUZZ_CHECK(message.size() > prefix.size() + 4 && message.compare(0, prefix.size(), prefix) == 0,
               "the error does not name the file and the problem: " + message);
    return;
  }
  std::set<std::string> names;
  uint64_t bytes = 0;
  for (const auto& [name, tensor] : state_dict) {
    FUZZ_CHECK(names.insert(name).second, "two tensors named " + name);
    FUZZ_CHECK(tensor.defined() && tensor.device().is_cpu() && tensor.is_contiguous(),
               "tensor " + name + " is not a defined, contiguous CPU tensor");
    bytes += tensor.numel() * tensor.element_size();
  }
  FUZZ_CHECK(bytes <= max_state_dict_bytes(file_size),
             std::to_string(bytes) + " tensor bytes from a file of " + std::to_string(file_size));
}

}  // namespace tsserve::fuzz
