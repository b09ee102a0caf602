#!/usr/bin/env bash
# Installs every build, test and run-time dependency of tsserve from Debian bookworm's
# packages. Idempotent and non-interactive; works as root (no sudo needed) or as a user
# with sudo. Skips apt entirely when everything is already installed, so repeated runs
# cost a second.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build pkg-config ccache make
  # model: LibTorch (CPU) and a fast BLAS (the reference BLAS makes Linear ~30x slower)
  libtorch-dev libopenblas0-pthread
  # server and client
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libspdlog-dev prometheus-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  # the HTTP door: Boost.Beast (headers), OpenSSL (HTTPS) and simdjson (its JSON reader)
  libboost-dev libsimdjson-dev libssl-dev
  # client plots (tsserve-client --plot/--attention): cairo draws the PNGs; their labels
  # are set in DejaVu Sans (a minimal image has no font for fontconfig to find)
  libcairo2-dev fonts-dejavu-core
  # tests and benchmarks (matplotlib draws the plots of BENCHMARKS.md)
  libgtest-dev libgmock-dev libbenchmark-dev prometheus python3-matplotlib
  # HTTP from outside: curl runs the docs' examples, wrk measures the HTTP door
  curl wrk
  # fuzzing (tests/fuzz/run.sh): clang with libFuzzer and the sanitizer runtimes
  clang-14 libclang-rt-14-dev
  # static checks (tests/static): clang-tidy with Clang's thread-safety analysis
  clang-tidy-14
  # security tests make a throw-away CA and certificates
  openssl
  # scale-out (issue 46): the shared series store (Redis and its C client) and the real
  # balancers the scale-out tests put in front of the replicas
  redis-server libhiredis-dev nginx haproxy
  # Python reference, fixtures and training (only /usr/bin/python3 sees these)
  python3 python3-torch python3-numpy python3-grpcio python3-grpc-tools
  # the time-feature test compares with TSLib's own utils/timefeatures.py (pandas)
  python3-pandas
  # deployment tests (tests/deploy): the dashboard and k8s checks read YAML; the image
  # test builds the Dockerfile and runs it with podman (runc: crun fails on these
  # machines' hybrid cgroups) on a debian:bookworm base made by debootstrap
  python3-yaml podman runc debootstrap
  # the REST binding's answers are validated against the published OpenAPI schemas
  python3-jsonschema
  # the browser console's test drives a real chromium, headless (tests/e2e/console)
  chromium
)
# kubectl (kustomize) and Node/npm (kubernetes-models) for the k8s manifest test, from
# Debian unless the machine already has them from elsewhere (vendor packages of the same
# commands conflict with Debian's).
command -v kubectl >/dev/null || packages+=(kubernetes-client)
command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then as_root=(sudo); fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
