#!/usr/bin/env python3
"""W3C traceparent on every door: a real tsserve (--log-level debug) gets one forecast
through each of its four doors (the JSON API, the REST binding, tsserve.v1 and the Open
Inference Protocol over gRPC), each with its own traceparent (an HTTP header, gRPC
metadata) and request id; the server's log must hold, for each, one call line with that
request id and that trace. A malformed traceparent is ignored, never refused.

    /usr/bin/python3 tests/e2e/trace_check.py --tsserve build/server/tsserve
"""
import argparse
import math
import os
import re
import struct
import sys
import tempfile

from oip_client_check import generate_stubs
from tsserve_http import call, start_tsserve_ports, stop_tsserve

COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
MODEL = "patchtst-etth1"


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def traceparent(door):
    return "00-%032x-%016x-01" % (0x4bf92f3577b34da6a3ce929d0e0e0000 + door, 0xf067aa0ba9020000 + door)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="trace-check-")
    generate_stubs(os.path.join(work, "stubs"))
    import grpc
    from inference import grpc_service_pb2 as oip, grpc_service_pb2_grpc as oip_grpc
    from tsserve.v1 import forecast_service_pb2 as v1, forecast_service_pb2_grpc as v1_grpc

    rows = [[10 * math.sin(t / 24 + v) + v for v in range(7)] for t in range(336)]
    by_column = {c: [row[v] for row in rows] for v, c in enumerate(COLUMNS)}
    server, ports = start_tsserve_ports(args.tsserve, work, "--log-level", "debug")
    try:
        http = ports["http_port"]
        status, answer = call(http, "/v1/models/%s/forecast" % MODEL,
                              {"series": by_column, "request_id": "trace-v1-json"},
                              headers={"traceparent": traceparent(1)})
        require(status == 200, (status, str(answer)[:200]))
        status, answer = call(http, "/v2/models/%s/infer" % MODEL,
                              {"id": "trace-oip-rest", "inputs": [{"name": "series", "datatype": "FP32",
                                                                   "shape": [1, 336, 7], "data": [rows]}]},
                              headers={"traceparent": traceparent(2)})
        require(status == 200, (status, str(answer)[:200]))
        channel = grpc.insecure_channel("127.0.0.1:%d" % ports["grpc_port"])
        request = v1.ForecastRequest(model=MODEL, request_id="trace-grpc-v1",
                                     variable_names=COLUMNS)
        request.series.shape.extend([7, 336])
        request.series.values.extend(by_column[c][t] for c in COLUMNS for t in range(336))
        v1_grpc.ForecastServiceStub(channel).Forecast(
            request, metadata=[("traceparent", traceparent(3))], timeout=60)
        infer = oip.ModelInferRequest(model_name=MODEL, id="trace-grpc-oip")
        infer.inputs.add(name="series", datatype="FP32", shape=[1, 336, 7])
        infer.raw_input_contents.append(struct.pack("<2352f", *(x for row in rows for x in row)))
        oip_grpc.GRPCInferenceServiceStub(channel).ModelInfer(
            infer, metadata=[("traceparent", traceparent(4))], timeout=60)
        # Malformed: ignored, the call served.
        status, _ = call(http, "/v1/models/%s/forecast" % MODEL,
                         {"series": by_column, "request_id": "trace-malformed"},
                         headers={"traceparent": "00-zz-00"})
        require(status == 200, status)
    finally:
        stop_tsserve(server, work)

    log = open(os.path.join(work, "tsserve.log")).read()
    doors = [(1, "http Forecast", "trace-v1-json"), (2, "http ModelInfer", "trace-oip-rest"),
             (3, "grpc Forecast", "trace-grpc-v1"), (4, "grpc ModelInfer", "trace-grpc-oip")]
    for door, call_name, request_id in doors:
        _, trace_id, parent_id, _ = traceparent(door).split("-")
        pattern = r"%s finished OK in [0-9.]+ ms request_id=%s trace_id=%s parent_id=%s" % (
            call_name, request_id, trace_id, parent_id)
        lines = re.findall(pattern, log)
        require(len(lines) == 1, "no log line %r in %s" % (pattern, os.path.join(work, "tsserve.log")))
        print("  logged: " + lines[0])
    untraced = re.findall(r"request_id=trace-malformed( trace_id)?", log)
    require(untraced == [""], "the malformed traceparent: %r" % untraced)
    print("PASS: every door logs its caller's trace with the request id")


if __name__ == "__main__":
    sys.exit(main())
