#include "tsserve/model/intra_op_threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

namespace tsserve::model {
namespace {

// OpenBLAS's own entry points, looked up in the process rather than linked: LibTorch
// reaches the BLAS through libblas.so.3, which Debian points at whichever BLAS is
// installed, so OpenBLAS is there only when the machine has it.
template <typename Function>
Function* openblas_function(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, name));
}

// The environment variable that sizes OpenBLAS's pool, if the operator set one.
const char* operator_blas_setting(const EnvironmentLookup& lookup) {
  const EnvironmentLookup environment = environment_or(lookup);
  for (const char* name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"}) {
    const char* value = environment(name);
    if (value != nullptr && *value != '\0') return name;
  }
  return nullptr;
}

}  // namespace

std::optional<int> blas_pool_threads() {
  auto* get = openblas_function<int()>("openblas_get_num_threads");
  if (get == nullptr) return std::nullopt;
  return get();
}

void set_intra_op_threads(int threads, const EnvironmentLookup& lookup) {
  at::set_num_threads(threads);
  auto* set = openblas_function<void(int)>("openblas_set_num_threads");
  if (set != nullptr && operator_blas_setting(lookup) == nullptr) set(threads);
}

std::string describe_blas_pool(const EnvironmentLookup& lookup) {
  const std::optional<int> threads = blas_pool_threads();
  if (!threads) return "BLAS: not OpenBLAS, its threads left as they are";
  std::string text = "OpenBLAS pool: " + std::to_string(*threads) +
                     (*threads == 1 ? " thread" : " threads");
  if (const char* name = operator_blas_setting(lookup)) {
    text += std::string(", as ") + name + " sets";
  }
  return text;
}

}  // namespace tsserve::model
