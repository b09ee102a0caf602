#include "server/config/parallelism.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace tsserve::server {

Parallelism resolve_parallelism(const ModelOptions& options, int cores, bool on_gpu) {
  cores = std::max(cores, 1);
  Parallelism resolved;
  resolved.threads = options.threads == kAuto ? 1 : options.threads;
  if (options.instances != kAuto) {
    resolved.instances = options.instances;
  } else if (!on_gpu) {
    resolved.instances = std::max(1, cores / resolved.threads);
  }
  return resolved;
}

int usable_cpu_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace tsserve::server
