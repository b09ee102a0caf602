# tsserve container: a build stage with Debian's -dev packages that builds the server and
# the client with the project's own CMake, and a runtime stage with only the runtime
# libraries, the two binaries and the bundled model.
#
#   podman build --format docker -t tsserve .      (or: docker build -t tsserve .)
#   podman run -p 50051:50051 -p 9464:9464 tsserve
#
# tests/deploy/image_test.sh builds and runs this file with podman (--format docker keeps
# the HEALTHCHECK: the OCI image format has no place for it).
#
# Configuration: every option has a TSSERVE_* environment variable (`tsserve --help`),
# and TSSERVE_CONFIG names a JSON config file. Models and configs are mounted under
# /models (for example TSSERVE_MODEL=/models/my_model.pt, with my_model.json beside it).

FROM debian:bookworm AS build
# The libraries the CMake project finds (LibTorch, gRPC, protobuf, spdlog, prometheus-cpp,
# nlohmann-json, CLI11, cairo for the client's plots), the toolchain, and nothing for
# tests: TSSERVE_BUILD_TESTS=OFF. No ccache here: a container build starts cold anyway.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build pkg-config \
      libtorch-dev \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
      libspdlog-dev prometheus-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev \
      libcairo2-dev \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake cmake
COPY proto proto
COPY csv csv
COPY status_names status_names
COPY model model
COPY server server
COPY client client
# The default checkpoint path is compiled in: point it at where the runtime stage puts
# the bundled model.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTSSERVE_BUILD_TESTS=OFF -DTSSERVE_BUILD_BENCHMARKS=OFF \
      -DTSSERVE_DEFAULT_MODEL=/opt/tsserve/model/patchtst_etth1.pt \
 && cmake --build /build --target tsserve tsserve-client \
 && strip /build/server/tsserve /build/client/tsserve-client

FROM debian:bookworm AS runtime
# Runtime libraries only. libtorch1.13 brings its own closure (Debian's LibTorch links
# OpenCV and FFmpeg); OpenBLAS must be named: without it LibTorch falls back to the
# reference BLAS, about 30x slower for the model's Linear layers.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libtorch1.13 libopenblas0-pthread \
      libgrpc++1.51 libprotobuf32 libspdlog1.10 libprometheus-cpp-core1.0 \
      libcairo2 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tsserve \
 && mkdir /models

COPY --from=build /build/server/tsserve /build/client/tsserve-client /opt/tsserve/bin/
COPY model/default/patchtst_etth1.pt model/default/patchtst_etth1.json /opt/tsserve/model/

ENV PATH=/opt/tsserve/bin:$PATH \
    TSSERVE_GRPC_ADDRESS=0.0.0.0:50051 \
    TSSERVE_METRICS_ADDRESS=0.0.0.0:9464 \
    TSSERVE_LOG_FORMAT=json
# A numeric user, so Kubernetes can check runAsNonRoot without a passwd lookup.
USER 10001:10001
EXPOSE 50051 9464
VOLUME ["/models"]
# grpc.health.v1 through the client: exit 0 only when the server says SERVING (it says
# NOT_SERVING while loading and while draining). Assumes the default gRPC port.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["tsserve-client", "health", "--target", "127.0.0.1:50051"]
# tsserve is PID 1 and handles SIGTERM itself (sigwait, then a graceful drain bounded by
# TSSERVE_DRAIN_TIMEOUT_S); it starts no children, so no init process is needed.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tsserve"]
