# tsserve container, first version: one stage that installs the Debian dependencies with
# the project's own script, builds the server and serves the bundled model.
# Not yet verified by a container build on these machines, and not yet lean: the
# deployment issue turns it into a multi-stage build (runtime libraries only) with a
# health check, and tests it with podman.
FROM debian:bookworm

COPY . /opt/tsserve/src
WORKDIR /opt/tsserve/src
RUN bash deploy/install-deps.sh \
 && cmake -S . -B /opt/tsserve/build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTSSERVE_BUILD_TESTS=OFF -DTSSERVE_BUILD_BENCHMARKS=OFF \
      -DTSSERVE_DEFAULT_MODEL=/opt/tsserve/src/model/default/patchtst_etth1.pt \
 && cmake --build /opt/tsserve/build --target tsserve \
 && useradd --system --no-create-home tsserve

USER tsserve
EXPOSE 50051 9464
ENTRYPOINT ["/opt/tsserve/build/server/tsserve"]
