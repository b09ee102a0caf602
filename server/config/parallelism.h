#pragma once
// What --instances auto and --threads auto become on this machine.
//
// The fused CPU forward runs a batch on one core, and LibTorch's batch-invariant path
// gains little from intra-op threads on this model's tiny operators; BENCHMARKS.md
// measured two instances at one thread each on the 2-core machine at about twice the
// requests/s of one (concurrency 32). So: threads auto = 1, instances auto = the cores
// divided by each instance's threads. On a GPU the batches queue on one device, so
// instances auto = 1 there.

#include "server/config/server_config.h"

namespace tsserve::server {

struct Parallelism {
  int instances = 1;
  int threads = 1;
};

// options.instances / options.threads as set, or resolved where kAuto. `cores` is what
// usable_cpu_cores() says (at least 1 is assumed).
Parallelism resolve_parallelism(const ModelOptions& options, int cores, bool on_gpu);

// The CPUs this process may run on (its affinity mask: a container's cpuset, taskset),
// at least 1. A CPU quota (cgroup cpu.max) is not seen: set --instances where one applies.
int usable_cpu_cores();

}  // namespace tsserve::server
