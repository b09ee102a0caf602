#include "tsserve/model/kernel_choices.h"

#include <ATen/Version.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>

#include "tsserve/model/fused_isa.h"

namespace tsserve::model {
namespace {

// The flags that decide which kernels run (fused_isa.h, ATen, OpenBLAS).
const char* const kFlagsThatMatter[] = {"avx2",     "fma",      "avx512f",    "avx512vl",
                                        "avx512bw", "avx512dq", "avx512_bf16"};

std::string cpuinfo_field(const std::string& field) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind(field, 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

// Every flag /proc/cpuinfo lists for the first CPU.
std::vector<std::string> cpu_flags() {
  std::istringstream line(cpuinfo_field("flags"));
  std::vector<std::string> flags;
  for (std::string each; line >> each;) flags.push_back(each);
  return flags;
}

// ATen does not export its capability; at::show_config() prints it on one line.
std::string aten_capability() {
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const size_t at = config.find(key);
  if (at == std::string::npos) return "unknown";
  const size_t end = config.find('\n', at);
  return config.substr(at + key.size(), end - at - key.size());
}

std::string openblas_core() {
  using CoreName = char*();
  auto* corename = reinterpret_cast<CoreName*>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return corename == nullptr ? "" : std::string(corename());
}

}  // namespace

bool cpu_has(const std::string& flag) {
  const std::vector<std::string> flags = cpu_flags();
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

KernelChoices kernel_choices() {
  KernelChoices choices;
  choices.cpu_model = cpuinfo_field("model name");
  const std::vector<std::string> flags = cpu_flags();  // one read of /proc/cpuinfo
  for (const char* flag : kFlagsThatMatter) {
    if (std::find(flags.begin(), flags.end(), flag) != flags.end()) {
      choices.cpu_flags.emplace_back(flag);
    }
  }
  try {
    choices.fused_isa = fused_instruction_set();
  } catch (const std::exception& refused) {
    choices.fused_isa = std::string("refused: ") + refused.what();
  }
  choices.aten_capability = aten_capability();
  choices.blas_core = openblas_core();
  for (const char* variable : {kFusedIsaVariable, "ATEN_CPU_CAPABILITY", "OPENBLAS_CORETYPE"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') {
      choices.forced.push_back(std::string(variable) + "=" + value);
    }
  }
  return choices;
}

std::string describe(const KernelChoices& choices) {
  std::string flags;
  for (const std::string& flag : choices.cpu_flags) flags += (flags.empty() ? "" : " ") + flag;
  const auto& present = choices.cpu_flags;
  if (std::find(present.begin(), present.end(), "avx512f") == present.end())
    flags += flags.empty() ? "no avx512f" : "; no avx512f";
  std::string forced;
  for (const std::string& each : choices.forced) forced += (forced.empty() ? "" : ", ") + each;
  return "CPU " + (choices.cpu_model.empty() ? std::string("unknown") : choices.cpu_model) + " (" +
         flags + "); fused kernels " + choices.fused_isa + "; ATen " + choices.aten_capability +
         "; " +
         (choices.blas_core.empty() ? std::string("BLAS not OpenBLAS")
                                    : "OpenBLAS " + choices.blas_core) +
         "; forced: " + (forced.empty() ? std::string("none") : forced);
}

}  // namespace tsserve::model
