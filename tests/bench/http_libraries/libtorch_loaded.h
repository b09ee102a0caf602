#pragma once
namespace http_bench {
// 16.0, computed by LibTorch (at::ones(4, 4).sum()).
double libtorch_loaded();
}  // namespace http_bench
