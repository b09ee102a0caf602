"""Ask a server's grpc.health.v1 service for its status, from outside the container.

    /usr/bin/python3 tests/deploy/grpc_health_check.py TARGET WORK_DIR [EXPECTED]

Exit 0 when the overall status ("" service) equals EXPECTED (default SERVING). Stubs are
generated from the project's own proto/grpc/health/v1/health.proto with grpc_tools.
"""

import os
import subprocess
import sys

import grpc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    target, work = sys.argv[1], sys.argv[2]
    expected = sys.argv[3] if len(sys.argv) > 3 else "SERVING"
    out = os.path.join(work, "health-stubs")
    os.makedirs(out, exist_ok=True)
    # Compiled from inside its folder, so the modules are top-level health_pb2*: under
    # their package path they would be grpc.health.v1.*, shadowed by the grpc package.
    # The wire name (grpc.health.v1.Health) comes from the proto's package line.
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc",
                    "-I", os.path.join(ROOT, "proto", "grpc", "health", "v1"),
                    "--python_out=" + out, "--grpc_python_out=" + out, "health.proto"], check=True)
    sys.path.insert(0, out)
    import health_pb2 as pb  # noqa: E402
    import health_pb2_grpc as pb_grpc  # noqa: E402

    stub = pb_grpc.HealthStub(grpc.insecure_channel(target))
    status = stub.Check(pb.HealthCheckRequest(service=""), timeout=10).status
    name = pb.HealthCheckResponse.ServingStatus.Name(status)
    print("grpc.health.v1 at %s: %s" % (target, name))
    sys.exit(0 if name == expected else 1)


if __name__ == "__main__":
    main()
