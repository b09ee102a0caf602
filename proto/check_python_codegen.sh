#!/usr/bin/env bash
# Checks that the protos compile for Python with grpc_tools (Debian's python3-grpc-tools,
# which only /usr/bin/python3 sees) and that the generated tsserve.v1 modules import and
# round-trip a request. Usage: proto/check_python_codegen.sh [python]
#
# grpc.health.v1 is compiled but not imported: a top-level "grpc" folder of generated code
# cannot coexist with the grpcio package of the same name; Python clients use
# grpcio-health-checking's grpc_health.v1 instead.
set -euo pipefail

python=${1:-/usr/bin/python3}
proto_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cd "$proto_root"
"$python" -m grpc_tools.protoc --proto_path=. --python_out="$out" --grpc_python_out="$out" \
  tsserve/v1/tensor.proto tsserve/v1/attention.proto tsserve/v1/forecast_service.proto \
  grpc/health/v1/health.proto inference/grpc_service.proto

cd "$out"
"$python" - <<'PY'
import struct

from tsserve.v1 import forecast_service_pb2 as pb
from tsserve.v1 import forecast_service_pb2_grpc as pb_grpc
from tsserve.v1 import tensor_pb2

request = pb.ForecastRequest(model="patchtst-etth1", request_id="check-1",
                             layout=pb.SERIES_LAYOUT_TIME_BY_VARIABLES,
                             scaler_mode=pb.SCALER_MODE_REQUIRED,
                             output_encoding=tensor_pb2.TENSOR_ENCODING_RAW)
request.series.shape.extend([3, 2])
request.series.raw_values = struct.pack("<6f", 1, 2, 3, 4, 5, 6.5)
request.variable_names.extend(["HUFL", "OT"])
request.attention.enabled = True
request.attention.layers.extend([0, 2])

back = pb.ForecastRequest.FromString(request.SerializeToString())
assert back == request, back
assert struct.unpack("<6f", back.series.raw_values)[-1] == 6.5
assert pb.SeriesLayout.Name(back.layout) == "SERIES_LAYOUT_TIME_BY_VARIABLES"

methods = {m.name for m in pb.DESCRIPTOR.services_by_name["ForecastService"].methods}
assert methods == {"Forecast", "Encode", "GetModelInfo"}, methods
assert hasattr(pb_grpc, "ForecastServiceStub") and hasattr(pb_grpc, "ForecastServiceServicer")

from inference import grpc_service_pb2 as oip
oip_methods = {m.name for m in oip.DESCRIPTOR.services_by_name["GRPCInferenceService"].methods}
assert {"ServerLive", "ServerReady", "ModelReady", "ServerMetadata", "ModelMetadata",
        "ModelInfer"} <= oip_methods, oip_methods
print("python codegen ok:", sorted(methods))
PY
