"""Server reflection works: list tsserve's services and fetch the descriptor of the
ForecastService, as grpcurl would.

    /usr/bin/python3 tests/e2e/reflection_check.py TARGET WORK_DIR
"""

import os
import subprocess
import sys

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def main():
    target, work = sys.argv[1], sys.argv[2]
    out = os.path.join(work, "reflection-stubs")
    os.makedirs(out, exist_ok=True)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.join(HERE, "proto"),
                    "--python_out=" + out, "--grpc_python_out=" + out,
                    "reflection_client/reflection.proto"], check=True)
    sys.path.insert(0, out)
    # The file path, not the proto package, names the module: "grpc.reflection" would
    # collide with the grpc package itself.
    from reflection_client import reflection_pb2, reflection_pb2_grpc  # noqa: E402

    stub = reflection_pb2_grpc.ServerReflectionStub(grpc.insecure_channel(target))
    requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(file_containing_symbol="tsserve.v1.ForecastService")]
    responses = list(stub.ServerReflectionInfo(iter(requests), timeout=30))
    services = sorted(s.name for s in responses[0].list_services_response.service)
    print("reflection lists:", ", ".join(services))
    for wanted in ("tsserve.v1.ForecastService", "grpc.health.v1.Health"):
        require(wanted in services, "%s missing from %s" % (wanted, services))
    files = responses[1].file_descriptor_response.file_descriptor_proto
    require(files and any(b"ForecastService" in f for f in files), "no descriptor for tsserve.v1.ForecastService")
    print("reflection describes tsserve.v1.ForecastService (%d file descriptors)" % len(files))


if __name__ == "__main__":
    main()
