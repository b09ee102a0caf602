"""The Open Inference Protocol (KServe v2) against a running tsserve, from Python stubs
generated from proto/inference/grpc_service.proto (Debian's python3-grpcio and
python3-grpc-tools, which only /usr/bin/python3 sees):

  ServerLive, ServerReady, ModelReady, ServerMetadata, ModelMetadata; ModelInfer with
  typed (fp32_contents) and raw (raw_input_contents) inputs, each forecast equal to
  tsserve.v1's Forecast of the same window; a batch of two samples; bad requests; the
  model repository extension: RepositoryModelUnload takes the model out (ModelReady is
  then NOT_FOUND) and RepositoryModelLoad brings it back.

    /usr/bin/python3 tests/e2e/oip_client_check.py HOST:PORT STUB_DIR
"""

import math
import os
import random
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(ROOT, "proto")
MODEL = "patchtst-etth1"


def generate_stubs(out):
    os.makedirs(out, exist_ok=True)
    protos = ["inference/grpc_service.proto", "tsserve/v1/tensor.proto",
              "tsserve/v1/attention.proto", "tsserve/v1/forecast_service.proto"]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", PROTO_DIR,
                    "--python_out=" + out, "--grpc_python_out=" + out] + protos, check=True)
    sys.path.insert(0, out)


def window(seed, points, variables):
    """[points][variables] in raw units, seeded."""
    rng = random.Random(seed)
    return [[5 + v + 2 * math.sin(t / 12 + v) + rng.gauss(0, 0.2) for v in range(variables)]
            for t in range(points)]


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_error(call, request, code, part, grpc):
    try:
        call(request)
    except grpc.RpcError as error:
        expect(error.code() == code, "%s: got %s (%s)" % (part, error.code(), error.details()))
        expect(part in error.details(), "%r not in %r" % (part, error.details()))
        return error.details()
    raise AssertionError("%s: the call succeeded" % part)


def main():
    target, stub_dir = sys.argv[1], sys.argv[2]
    generate_stubs(stub_dir)
    import grpc
    from inference import grpc_service_pb2 as oip
    from inference import grpc_service_pb2_grpc as oip_grpc
    from tsserve.v1 import forecast_service_pb2 as v1
    from tsserve.v1 import forecast_service_pb2_grpc as v1_grpc

    channel = grpc.insecure_channel(target)
    infer = oip_grpc.GRPCInferenceServiceStub(channel)
    forecast = v1_grpc.ForecastServiceStub(channel)

    expect(infer.ServerLive(oip.ServerLiveRequest()).live, "not live")
    expect(infer.ServerReady(oip.ServerReadyRequest()).ready, "not ready")
    expect(infer.ModelReady(oip.ModelReadyRequest(name=MODEL)).ready, "model not ready")
    server = infer.ServerMetadata(oip.ServerMetadataRequest())
    print("ServerMetadata: %s %s, extensions %s" % (server.name, server.version, list(server.extensions)))
    metadata = infer.ModelMetadata(oip.ModelMetadataRequest(name=MODEL))
    inputs = {t.name: (t.datatype, list(t.shape)) for t in metadata.inputs}
    outputs = {t.name: (t.datatype, list(t.shape)) for t in metadata.outputs}
    print("ModelMetadata: %s %s inputs %s outputs %s" % (metadata.name, list(metadata.versions), inputs, outputs))
    expect(inputs == {"series": ("FP32", [-1, 336, -1]), "timestamps": ("INT64", [-1, -1])}, inputs)
    expect(outputs["forecast"] == ("FP32", [-1, 96, -1]), outputs)
    expect("attention" in outputs, outputs)

    points, variables, horizon = 400, 7, 96
    samples = [window(11, points, variables), window(12, points, variables)]

    def v1_forecast(rows):
        request = v1.ForecastRequest(model=MODEL, layout=v1.SERIES_LAYOUT_TIME_BY_VARIABLES)
        request.series.shape.extend([points, variables])
        request.series.values.extend(x for row in rows for x in row)
        response = forecast.Forecast(request)
        expect(response.scaler_applied, "v1: scaler not applied")
        return list(response.forecast.values)  # [F, N]

    expected = [v1_forecast(rows) for rows in samples]

    def infer_request(batch, raw):
        request = oip.ModelInferRequest(model_name=MODEL, id="e2e-%s" % ("raw" if raw else "typed"))
        tensor = request.inputs.add(name="series", datatype="FP32", shape=[len(batch), points, variables])
        flat = [x for rows in batch for row in rows for x in row]
        if raw:
            request.raw_input_contents.append(struct.pack("<%df" % len(flat), *flat))
        else:
            tensor.contents.fp32_contents.extend(flat)
        return request

    for raw in (False, True):
        response = infer.ModelInfer(infer_request(samples[:1], raw))
        expect(response.id == infer_request([], raw).id, "id not echoed")
        expect([o.name for o in response.outputs] == ["forecast"], "outputs: %s" % response.outputs)
        out = response.outputs[0]
        expect(list(out.shape) == [1, horizon, variables] and out.datatype == "FP32", out)
        if raw:
            expect(len(response.raw_output_contents) == 1 and not out.contents.fp32_contents,
                   "raw inputs should get raw outputs")
            got = list(struct.unpack("<%df" % (horizon * variables), response.raw_output_contents[0]))
        else:
            expect(not response.raw_output_contents, "typed inputs should get typed outputs")
            got = list(out.contents.fp32_contents)
        expect(got == expected[0], "ModelInfer (%s) differs from tsserve.v1 Forecast" % ("raw" if raw else "typed"))
        print("ModelInfer %s: forecast [1, %d, %d] equals tsserve.v1 Forecast exactly"
              % ("raw" if raw else "typed", horizon, variables))

    response = infer.ModelInfer(infer_request(samples, True))
    got = list(struct.unpack("<%df" % (2 * horizon * variables), response.raw_output_contents[0]))
    block = horizon * variables
    expect(got[:block] == expected[0] and got[block:] == expected[1], "batch of 2 differs")
    print("ModelInfer batch of 2 samples: each equals its tsserve.v1 Forecast exactly")

    bad = infer_request(samples[:1], False)
    bad.inputs[0].datatype = "FP64"
    print("bad datatype:", expect_error(infer.ModelInfer, bad, grpc.StatusCode.INVALID_ARGUMENT, "datatype", grpc))
    bad = infer_request(samples[:1], True)
    bad.raw_input_contents[0] = bad.raw_input_contents[0][:-4]
    print("short raw bytes:", expect_error(infer.ModelInfer, bad, grpc.StatusCode.INVALID_ARGUMENT,
                                           "raw_input_contents[0]", grpc))
    bad = infer_request(samples[:1], False)
    bad.model_name = "nope"
    print("unknown model:", expect_error(infer.ModelInfer, bad, grpc.StatusCode.NOT_FOUND, "nope", grpc))
    unloaded = infer.RepositoryModelUnload(oip.RepositoryModelUnloadRequest(model_name=MODEL))
    expect(unloaded.isUnloaded, "RepositoryModelUnload did not unload")
    print("after RepositoryModelUnload, ModelReady:",
          expect_error(infer.ModelReady, oip.ModelReadyRequest(name=MODEL),
                       grpc.StatusCode.NOT_FOUND, MODEL, grpc))
    loaded = infer.RepositoryModelLoad(oip.RepositoryModelLoadRequest(model_name=MODEL))
    expect(loaded.isLoaded, "RepositoryModelLoad did not load")
    expect(infer.ModelReady(oip.ModelReadyRequest(name=MODEL)).ready, "not ready after load")
    print("RepositoryModelLoad: loaded and ready again")
    print("oip e2e ok")


if __name__ == "__main__":
    main()
