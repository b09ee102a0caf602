#!/bin/bash
# The model library on a CUDA LibTorch: configure a model-only build against the LibTorch
# inside python3's PyTorch (pip's torch ships one), build the model tests and the GPU
# benchmark, generate the reference fixtures with that python3, run the model tests (the
# CudaParity* ones run on the GPU) and the GPU forward benchmark.
#
#   tests/bench/cuda_check.sh [BUILD_DIR] [LOG_DIR]
#
# Extra CMake arguments can be passed in TSSERVE_CMAKE_ARGS (e.g. -DTSSERVE_WERROR=OFF).
set -u -o pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-cuda}
logs=${2:-$build/logs}
mkdir -p "$logs"
python=$(command -v python3)
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') || exit 1
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
    "device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'

# shellcheck disable=SC2086
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTSSERVE_MODEL_ONLY=ON \
  -DCMAKE_PREFIX_PATH="$prefix" -DTSSERVE_PYTHON="$python" ${TSSERVE_CMAKE_ARGS:-} \
  > "$logs/configure.log" 2>&1 || { tail -40 "$logs/configure.log"; exit 1; }
cmake --build "$build" --target model_tests gpu_forward_bench -- -k 0 \
  > "$logs/build.log" 2>&1 || { grep -B2 -A12 'error' "$logs/build.log" | head -120; exit 1; }
grep -c 'warning:' "$logs/build.log" | sed 's/^/compiler warnings: /'

ctest --test-dir "$build" -j "$(nproc)" --timeout 600 --output-on-failure > "$logs/ctest.log" 2>&1
ctest_rc=$?
grep -E 'tests passed|Failed|\*\*\*|Skipped' "$logs/ctest.log" | head -40
# The GPU tests by name, so a skip cannot pass for a run.
"$build/tests/model_tests" --gtest_filter='*Cuda*' > "$logs/cuda_tests.log" 2>&1
cuda_rc=$?
grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|tests ran' "$logs/cuda_tests.log"

"$build/tests/bench/gpu_forward_bench" 2>&1 | tee "$logs/gpu_forward_bench.txt"
bench_rc=$?
echo "ctest rc $ctest_rc, cuda tests rc $cuda_rc, bench rc $bench_rc"
[ "$ctest_rc" = 0 ] && [ "$cuda_rc" = 0 ] && [ "$bench_rc" = 0 ]
