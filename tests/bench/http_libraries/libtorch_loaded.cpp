// Runs one LibTorch op before the HTTP server starts, so that each candidate's threads are
// created in a process that has LibTorch's static TLS and thread pools, as in tsserve
// (civetweb's 100 KiB thread stacks failed exactly there).
#include "libtorch_loaded.h"

#include <ATen/ATen.h>

namespace http_bench {

double libtorch_loaded() { return at::ones({4, 4}).sum().item<double>(); }

}  // namespace http_bench
