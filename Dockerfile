# tsserve container: a build stage with Debian's -dev packages that builds the server and
# the client with the project's own CMake; a staging stage that collects exactly the
# shared libraries the two binaries load; and a runtime stage that is debian:bookworm-slim
# plus those libraries, the two binaries and the bundled model (about 0.6 GB instead of 1.3 GB
# with the runtime packages, which pull in OpenCV, FFmpeg, Qt, Mesa and LLVM).
#
#   podman build --format docker -t tsserve .      (or: docker build -t tsserve .)
#   podman run -p 50051:50051 -p 8000:8000 -p 9464:9464 tsserve
#
# tests/deploy/image_test.sh builds and runs this file with podman (--format docker keeps
# the HEALTHCHECK: the OCI image format has no place for it).
#
# Configuration: every option has a TSSERVE_* environment variable (`tsserve --help`),
# and TSSERVE_CONFIG names a JSON config file. Models and configs are mounted under
# /models (for example TSSERVE_MODEL=/models/my_model.pt, with my_model.json beside it).

FROM debian:bookworm AS build
# The libraries the CMake project finds (LibTorch, gRPC, protobuf, spdlog, prometheus-cpp,
# nlohmann-json, CLI11, Boost.Beast, OpenSSL and simdjson for the HTTP door, cairo for the
# client's plots, hiredis for the shared series store --series-store redis://), the toolchain, and nothing for tests: TSSERVE_BUILD_TESTS=OFF. No
# ccache here: a container build starts cold anyway.
# libopenblas0-pthread: LibTorch links libblas.so.3, which is the reference BLAS (about
# 30x slower for the model's Linear layers) unless OpenBLAS is installed to take the
# alternative; the libraries staged below are the ones this stage resolves.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build pkg-config \
      libtorch-dev libopenblas0-pthread \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
      libspdlog-dev prometheus-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev \
      libboost-dev libsimdjson-dev libssl-dev libcairo2-dev libhiredis-dev \
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
# The JSON API's OpenAPI document is compiled into the server (GET /openapi.json).
COPY docs/api docs/api
# The default checkpoint path is compiled in: point it at where the runtime stage puts
# the bundled model.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTSSERVE_BUILD_TESTS=OFF -DTSSERVE_BUILD_BENCHMARKS=OFF \
      -DTSSERVE_DEFAULT_MODEL=/opt/tsserve/model/patchtst_etth1.pt \
 && cmake --build /build --target tsserve tsserve-client \
 && strip /build/server/tsserve /build/client/tsserve-client

# Everything above is the expensive, cached part; what follows changes without rebuilding.
FROM build AS stage
# fc-cache, to build the fonts' cache in the runtime stage: the client's fontconfig cannot
# write one in the image (read-only root, no home) and would say so on every plot. A cache
# made here (fc-cache --sysroot) is not accepted there: copying the font directories into
# the runtime stage gives them new modification times, which invalidates it.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fontconfig \
 && rm -rf /var/lib/apt/lists/*
# The runtime base's own file system, so that what it already has (the C library, the
# loader) is not copied over it.
COPY --from=debian:bookworm-slim / /base/
COPY deploy/stage-runtime-libs.sh /usr/local/bin/
# Data files the libraries read at run time: gRPC's root certificates (a TLS client with
# no --tls-ca) and fontconfig's configuration with the DejaVu fonts (the client's plots),
# and fc-cache with its libraries. tar, not cp --parents: bookworm's cp 9.1 fails on
# nested parents.
RUN stage-runtime-libs.sh /stage /base /build/server/tsserve /build/client/tsserve-client \
      /usr/bin/fc-cache \
 && tar -C / -c usr/share/grpc/roots.pem etc/fonts usr/share/fontconfig \
      usr/share/fonts/truetype/dejavu usr/bin/fc-cache | tar -C /stage -x \
 && mkdir -p /stage/opt/tsserve/bin \
 && cp -p /build/server/tsserve /build/client/tsserve-client /stage/opt/tsserve/bin/

FROM debian:bookworm-slim AS runtime
COPY --from=stage /stage/ /
# ldconfig: the base's loader cache does not know the staged libraries yet. fc-cache: the
# fonts' cache, made where the font directories now are (no later layer touches them).
RUN ldconfig \
 && fc-cache --system-only \
 && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin tsserve \
 && mkdir /models
COPY model/default/patchtst_etth1.pt model/default/patchtst_etth1.json /opt/tsserve/model/

ENV PATH=/opt/tsserve/bin:$PATH \
    TSSERVE_GRPC_ADDRESS=0.0.0.0:50051 \
    TSSERVE_HTTP_ADDRESS=0.0.0.0:8000 \
    TSSERVE_METRICS_ADDRESS=0.0.0.0:9464 \
    TSSERVE_LOG_FORMAT=json
# A numeric user, so Kubernetes can check runAsNonRoot without a passwd lookup.
USER 10001:10001
# The copy is complete, or the build stops here: both binaries run, libblas.so.3 is
# OpenBLAS, and the server starts as this user on the bundled model (any free loopback
# port, metrics off; its one stdout line says it listens), answers SERVING to the client,
# and drains on SIGTERM with exit 0. A server that dies closes the FIFO: read fails.
RUN tsserve --help >/dev/null \
 && tsserve-client --help >/dev/null \
 && blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3) \
 && case $blas in */openblas-pthread/*) ;; *) echo "libblas.so.3 is $blas, not OpenBLAS" >&2; exit 1;; esac \
 && timeout 300 sh -ec ' \
      fifo=$(mktemp -u); mkfifo "$fifo"; \
      tsserve --grpc-address 127.0.0.1:0 --http-address "" --metrics-address "" >"$fifo" & pid=$!; \
      exec 3<"$fifo"; rm "$fifo"; \
      read -r ready <&3; \
      port=${ready#*grpc_port=}; port=${port%% *}; \
      tsserve-client health --target "127.0.0.1:$port"; \
      kill -TERM $pid; wait $pid'

EXPOSE 50051 8000 9464
VOLUME ["/models"]
# grpc.health.v1 through the client: exit 0 only when the server says SERVING (it says
# NOT_SERVING while loading and while draining). Assumes the default gRPC port.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["tsserve-client", "health", "--target", "127.0.0.1:50051"]
# tsserve is PID 1 and handles SIGTERM itself (sigwait, then a graceful drain bounded by
# TSSERVE_DRAIN_TIMEOUT_S); it starts no children, so no init process is needed.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tsserve"]
