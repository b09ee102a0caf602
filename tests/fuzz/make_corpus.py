"""Writes the fuzz targets' seed corpora, tests/fuzz/corpus/<target>/, from real things:
requests serialized by protobuf from the project's protos, checkpoints written by
PyTorch's torch.save (the tiny PatchTST of tests/bench/make_tiny_model.py and a state_dict
with shared views and every storage dtype), safetensors files as the reference writer lays
them out, and the project's own config files. A few seeds are refused inputs, so that
every refusal path starts covered. Deterministic: a rerun rewrites the same bytes.

    /usr/bin/python3 tests/fuzz/make_corpus.py [--out tests/fuzz/corpus]

Input layouts (the first byte of a request seed chooses how the target reads the rest; see
each *_fuzzer.cpp): 0x00 + a serialized message; 0x01 + bytes that drive the fields.
"""

import argparse
import collections
import io
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
import make_tiny_model  # noqa: E402
import patchtst_reference as ref  # noqa: E402

COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
PROTO_MODE, BUILT_MODE = b"\x00", b"\x01"
RAW_ENCODING = 2  # tensor.proto TENSOR_ENCODING_RAW; checked against tensor_pb2 in main()


def load_protos():
    """The project's protos compiled to Python with grpc_tools, imported from a temp dir."""
    out = tempfile.mkdtemp(prefix="tsserve-fuzz-protos-")
    protos = ["tsserve/v1/tensor.proto", "tsserve/v1/attention.proto",
              "tsserve/v1/forecast_service.proto", "inference/grpc_service.proto"]
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.join(ROOT, "proto"),
                    "--python_out", out] + protos, check=True)
    sys.path.insert(0, out)
    from tsserve.v1 import attention_pb2, forecast_service_pb2, tensor_pb2  # noqa: E402
    from inference import grpc_service_pb2  # noqa: E402
    return attention_pb2, forecast_service_pb2, tensor_pb2, grpc_service_pb2, out


def series(variables, points, seed=0):
    """[variables][points] smooth, ETTh1-like values."""
    return [[10.0 * math.sin(0.1 * t + v + seed) + v for t in range(points)]
            for v in range(variables)]


def flat(rows):
    return [x for row in rows for x in row]


def transpose(rows):
    return [list(col) for col in zip(*rows)]


def raw(values):
    return struct.pack("<%df" % len(values), *values)


def built_seeds(count, seed):
    """Bytes that drive a builder: arbitrary, deterministic."""
    rng = random.Random(seed)
    return [BUILT_MODE + bytes(rng.randrange(256) for _ in range(rng.randrange(16, 96)))
            for _ in range(count)]


# --------------------------------------------------------------------------------------
# Requests


def forecast_seeds(pb):
    seeds = {}

    def request(rows, names=(), by_time=False, raw_values=False, **fields):
        r = pb.ForecastRequest(**fields)
        data = transpose(rows) if by_time else rows
        r.series.shape.extend([len(data), len(data[0])])
        if raw_values:
            r.series.raw_values = raw(flat(data))
        else:
            r.series.values.extend(flat(data))
        r.layout = pb.SERIES_LAYOUT_TIME_BY_VARIABLES if by_time else pb.SERIES_LAYOUT_VARIABLES_BY_TIME
        r.variable_names.extend(names)
        return r

    etth1 = request(series(7, 336), COLUMNS, request_id="seed-etth1",
                    timestamps=[1467331200 + 3600 * t for t in range(336)])
    etth1.attention.enabled = True
    etth1.attention.layers.extend([0, 2])
    etth1.attention.variables.extend([6])
    etth1.attention.average_heads = True
    etth1.output_encoding = RAW_ENCODING
    seeds["etth1_named_attention"] = etth1
    seeds["by_time_raw_positional_required"] = request(
        series(7, 340, 1), by_time=True, raw_values=True, scaler_mode=pb.SCALER_MODE_REQUIRED)
    seeds["one_named_variable"] = request(series(1, 336, 2), ["OT"])
    seeds["unscaled_all_attention"] = request(series(3, 336, 3), ["x", "y", "z"],
                                              attention={"enabled": True})
    seeds["scaler_none_model_name"] = request(series(2, 400, 4), ["OT", "HUFL"],
                                              scaler_mode=pb.SCALER_MODE_NONE,
                                              model="patchtst-etth1")
    bad = series(2, 336, 5)
    bad[1][17] = float("nan")
    seeds["refused_nan"] = request(bad)
    seeds["refused_too_short"] = request(series(7, 335))
    seeds["refused_repeated_name"] = request(series(2, 336), ["OT", "OT"])
    out = {name + ".bin": PROTO_MODE + r.SerializeToString(deterministic=True) for name, r in seeds.items()}
    # Bit 1 of the first byte: the model without a scaler, where REQUIRED is refused.
    out["no_scaler_required.bin"] = b"\x02" + seeds["by_time_raw_positional_required"].SerializeToString(deterministic=True)
    out.update(("built_%d.bin" % i, s) for i, s in enumerate(built_seeds(6, 1)))
    return out


def observe_seeds(pb):
    def request(steps, names=(), start=1467331200, **fields):
        r = pb.ObserveRequest(series_key="meter-1", **fields)
        rows = series(len(names) or 2, steps, 7)
        r.timestamps.extend(start + 3600 * t for t in range(steps))
        r.values.extend(flat(transpose(rows)))
        r.variable_names.extend(names)
        return r

    seeds = {
        "history_named_forecast": request(336, COLUMNS, forecast=True, request_id="seed-observe"),
        "one_point_unnamed": request(1),
        "levels_and_model": request(3, ["OT"], model="patchtst-etth1", interval_levels=[0.9, 0.99]),
    }
    gap = request(3, ["OT"])
    gap.timestamps[2] += 3600
    seeds["gap_taken_as_first_step"] = gap
    bad = request(2, ["OT", "HUFL"])
    bad.values[1] = float("nan")
    seeds["refused_nan"] = bad
    seeds["refused_no_key"] = pb.ObserveRequest(timestamps=[1], values=[1.0])
    out = {name + ".bin": PROTO_MODE + r.SerializeToString(deterministic=True) for name, r in seeds.items()}
    out.update(("built_%d.bin" % i, s) for i, s in enumerate(built_seeds(6, 9)))
    return out


def encode_seeds(pb):
    def request(length, width=16, raw_values=False, **fields):
        r = pb.EncodeRequest(**fields)
        values = [0.01 * i - 3.0 for i in range(length * width)]
        r.tokens.shape.extend([length, width])
        if raw_values:
            r.tokens.raw_values = raw(values)
        else:
            r.tokens.values.extend(values)
        return r

    seeds = {
        "patch_tokens": request(42, request_id="seed-encode"),
        "raw_attention": request(5, raw_values=True, attention={"enabled": True, "layers": [1]},
                                 output_encoding=RAW_ENCODING),
        "averaged_heads": request(2, attention={"enabled": True, "average_heads": True}),
        "refused_width": request(4, width=15),
        "refused_variables": request(3, attention={"enabled": True, "variables": [0]}),
    }
    out = {name + ".bin": PROTO_MODE + r.SerializeToString(deterministic=True) for name, r in seeds.items()}
    out.update(("built_%d.bin" % i, s) for i, s in enumerate(built_seeds(4, 2)))
    return out


def attention_seeds(apb):
    def seed(layers_minus_one, variables, options, oip_names=False):
        head = bytes([layers_minus_one | (8 if oip_names else 0), variables & 0xFF,
                      variables >> 8, 0])
        return head + options.SerializeToString(deterministic=True)

    A = apb.AttentionOptions
    out = {
        "all.bin": seed(2, 7, A(enabled=True)),
        "chosen.bin": seed(2, 7, A(enabled=True, layers=[2, 0], variables=[6, 1],
                                   average_heads=True)),
        "disabled_with_lists.bin": seed(2, 7, A(enabled=False, layers=[9], variables=[-1])),
        "refused_layer.bin": seed(2, 7, A(enabled=True, layers=[3])),
        "refused_repeat_oip.bin": seed(2, 448, A(enabled=True, variables=[5, 5]), True),
    }
    rng = random.Random(3)
    for i in range(4):
        out["built_%d.bin" % i] = bytes([rng.randrange(256), rng.randrange(256), 0, 1]) + bytes(
            rng.randrange(256) for _ in range(24))
    return out


def oip_seeds(ipb):
    def request(samples, points, variables, raw_input=False, outputs=(), parameters=None,
                datatype="FP32", **fields):
        r = ipb.ModelInferRequest(model_name="patchtst-etth1", **fields)
        series_input = r.inputs.add(name="series", datatype=datatype,
                                    shape=[samples, points, variables])
        values = flat(flat(transpose(series(variables, points, b)) for b in range(samples)))
        if raw_input:
            r.raw_input_contents.append(raw(values))
        else:
            series_input.contents.fp32_contents.extend(values)
        for name in outputs:
            r.outputs.add(name=name)
        for key, value in (parameters or {}).items():
            param = r.parameters[key]
            if isinstance(value, bool):
                param.bool_param = value
            elif isinstance(value, int):
                param.int64_param = value
            else:
                param.string_param = value
        return r

    seeds = {
        "etth1_named": request(1, 336, 7, id="seed-oip",
                               parameters={"variable_names": ",".join(COLUMNS)}),
        "batch_raw_attention": request(2, 340, 3, raw_input=True,
                                       outputs=["forecast", "attention"],
                                       parameters={"attention_layers": "0,2",
                                                   "attention_variables": 1,
                                                   "attention_average_heads": True,
                                                   "scaler_mode": "none"}),
        "positional_required": request(1, 336, 7, parameters={"scaler_mode": "required"}),
        "attention_only": request(1, 336, 1, outputs=["attention"]),
        "refused_datatype": request(1, 336, 7, datatype="FP64"),
        "refused_parameter": request(1, 336, 2, parameters={"scaler": "none"}),
    }
    out = {name + ".bin": PROTO_MODE + r.SerializeToString(deterministic=True) for name, r in seeds.items()}
    out["no_scaler_required.bin"] = b"\x02" + seeds["positional_required"].SerializeToString(deterministic=True)
    out.update(("built_%d.bin" % i, s) for i, s in enumerate(built_seeds(6, 4)))
    return out


def oip_json_seeds():
    """REST inference bodies (the HTTP door): the bundled model's window flat and nested,
    with parameters and outputs, and JSON each kind of refusal starts from."""
    def body(samples, points, variables, nested=False, **fields):
        rows = [transpose(series(variables, points, b)) for b in range(samples)]
        data = [[[round(x, 4) for x in row] for row in sample] for sample in rows]
        tensor = {"name": "series", "shape": [samples, points, variables], "datatype": "FP32",
                  "data": data if nested else flat(flat(data))}
        return dict({"inputs": [tensor]}, **fields)

    def encoded(value):
        return json.dumps(value).encode()

    etth1 = body(1, 336, 7, id="seed-rest",
                 parameters={"variable_names": ",".join(COLUMNS)})
    seeds = {
        "etth1_flat.json": encoded(etth1),
        "etth1_nested.json": encoded(body(1, 336, 7, nested=True)),
        "batch_attention.json": encoded(body(2, 340, 3, outputs=[{"name": "forecast"},
                                                                  {"name": "attention"}],
                                             parameters={"attention_layers": "0,2",
                                                         "attention_variables": 1,
                                                         "attention_average_heads": True,
                                                         "scaler_mode": "none"})),
        "spec_example.json": encoded({"id": "42", "inputs": [
            {"name": "input0", "shape": [2, 2], "datatype": "UINT32", "data": [1, 2, 3, 4]},
            {"name": "input1", "shape": [3], "datatype": "BOOL", "data": [True]}],
            "outputs": [{"name": "output0"}]}),
        "refused_truncated.json": encoded(etth1)[:500],
        "refused_nan.json": b'{"inputs": [{"name": "series", "shape": [1], "datatype": "FP32", '
                            b'"data": [NaN]}]}',
        "refused_overflow.json": b'{"inputs": [{"name": "series", "shape": [1], '
                                 b'"datatype": "FP32", "data": [1e39]}]}',
        "refused_duplicate.json": b'{"inputs": [], "inputs": []}',
        "refused_deep.json": b'{"inputs": [{"name": "s", "shape": [1], "datatype": "FP32", '
                             b'"data": ' + b"[" * 64 + b"1" + b"]" * 64 + b"}]}",
        "strings.json": '{"id": "\\u00e9\\n\\ud83d\\ude00", "inputs": [{"name": "b", '
                        '"shape": [2], "datatype": "BYTES", "data": ["x", "\\u0000"]}]}'.encode(),
    }
    return seeds


def json_float_array_seeds():
    """Arrays of numbers as the JSON doors' windows hold them (flat, nested, every number
    form) and the things the scan must give up on."""
    rows = [[round(x, 3) for x in row] for row in series(len(COLUMNS), 16, 0)]
    return {
        "flat.json": json.dumps(rows[0]).encode(),
        "nested.json": json.dumps([rows]).encode(),
        "forms.json": b"[0, -0, 1e3, 2E-3, -1.5e+2, 123456789012345678901234, 1e39, 3.4028235e38 ]",
        "spaces.json": b"[ 1 ,\n\t2\r\n, 3 ] trailing",
        "ragged.json": b"[[1, 2], [3]]",
        "mixed.json": b"[1, \"2\", null, true]",
        "unclosed.json": b"[1, 2,",
    }


def forecast_json_seeds():
    """Bodies of the forecasting JSON API (/v1): the bundled model's window by column with
    every optional field, a report of actuals, a live series' observation, and JSON each
    kind of refusal starts from."""
    def window(points=336, **fields):
        columns = {c: [round(x, 4) for x in series(len(COLUMNS), points, 0)[v]]
                   for v, c in enumerate(COLUMNS)}
        return dict({"series": columns}, **fields)

    def encoded(value):
        return json.dumps(value).encode()

    stamps = ["2016-07-%02d %02d:00:00" % (1 + t // 24, t % 24) for t in range(336)]
    full = window(timestamps=stamps, intervals=[0.8, 0.95], scaler="auto", series_key="k",
                  request_id="seed-v1", attention={"layers": [0, 2], "average_heads": True,
                                                   "variables": ["OT"]})
    return {
        "etth1_full.json": encoded(full),
        "etth1_seconds.json": encoded(window(timestamps=[1467331200 + 3600 * t for t in range(336)])),
        "short_window.json": encoded(window(points=4, scaler="none")),
        "actuals.json": encoded({"series_key": "k", "timestamps": ["2016-07-15T00:00:00Z", 1],
                                 "actuals": {"OT": [1.5, None], "HUFL": [2, 3]}}),
        "refused_truncated.json": encoded(full)[:700],
        "refused_mixed_stamps.json": b'{"series": {"OT": [1, 2]}, "timestamps": [0, "x"]}',
        "refused_overflow.json": b'{"series": {"OT": [1e39]}}',
        "refused_duplicate_column.json": b'{"series": {"OT": [1], "OT": [2]}}',
        "refused_offset.json": b'{"series": {"OT": [1]}, "timestamps": ["2016-02-30T00:00:00+25:00"]}',
        "observation.json": encoded({"timestamps": stamps[:3], "values": {c: [1.5, 2, 3] for c in COLUMNS},
                                     "forecast": True, "intervals": [0.99], "model": "patchtst-etth1",
                                     "scaler": "auto", "request_id": "seed-observe"}),
        "refused_observation_null.json": b'{"timestamps": [1, 2], "values": {"OT": [1, null]}}',
    }


def http_request_rules_seeds():
    """What the HTTP door reads before the JSON: paths, traceparents, and binary extension
    bodies (a JSON header of the length in bytes 1-4, then the inputs' bytes)."""
    def framed(text, header_length=None):
        has = header_length is not None
        return bytes([1 if has else 0]) + struct.pack("<I", header_length or 0) + text

    header = json.dumps({"inputs": [{"name": "series", "datatype": "FP32", "shape": [1, 2, 1],
                                     "parameters": {"binary_data_size": 8}}],
                         "parameters": {"binary_data_output": True}}).encode()
    mixed = json.dumps({"inputs": [{"name": "a", "datatype": "INT64", "shape": [1], "data": [7]},
                                   {"name": "b", "datatype": "BOOL", "shape": [2],
                                    "parameters": {"binary_data_size": 2}}],
                        "outputs": [{"name": "a", "parameters": {"binary_data": True}}]}).encode()
    return {
        "path.bin": framed(b"/v2/models/patchtst%2Detth1/versions/1/infer"),
        "path_bad_escape.bin": framed(b"/v1/models/%zz/forecast"),
        "traceparent.bin": framed(b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        "binary_body.bin": framed(header + struct.pack("<2f", 1.5, -2.0), len(header)),
        "binary_mixed.bin": framed(mixed + b"\x01\x00", len(mixed)),
        "binary_short.bin": framed(header + b"\x00", len(header)),
        "json_only.bin": framed(b'{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1], "data": [1]}]}'),
    }


def http_framing_seeds():
    """One connection's bytes for the HTTP server's read loop (http_framing_fuzzer.cpp):
    byte 0 chooses the server's default limits (0) or small ones (1, then header, framing
    and 2 body bytes); then the number of read sizes and each (2 bytes); then the stream,
    where 0xFE b1 b2 c is c repeated 1 + (b1 | b2 << 8) times. Keep-alive and pipelined
    requests, chunked bodies with extensions and trailers, and each limit just passed."""
    def connection(stream, reads=(), small=None):
        head = b"\x00" if small is None else b"\x01" + bytes(small[:2]) + struct.pack("<H", small[2])
        return head + bytes([len(reads)]) + b"".join(struct.pack("<H", r - 1) for r in reads) + stream

    def repeat(byte, count):  # count bytes of `byte`, in escapes of up to 65536
        out = b""
        while count > 0:
            n = min(count, 65536)
            out += b"\xfe" + struct.pack("<H", n - 1) + byte
            count -= n
        return out

    body = b'{"series": {"OT": [1, 2, 3]}}'
    post = (b"POST /v1/models/patchtst-etth1/forecast HTTP/1.1\r\nHost: tsserve\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
    get = b"GET /v2/health/live HTTP/1.1\r\nHost: tsserve\r\n\r\n"
    chunked = (b"POST /v1/actuals HTTP/1.1\r\nHost: tsserve\r\nTransfer-Encoding: chunked\r\n"
               b"Content-Type: application/json\r\n\r\n"
               b"5;name=value;q=\"quoted\"\r\n{\"a\":\r\n4\r\n 1}\n\r\n0\r\nX-Trailer: t\r\n\r\n")
    chunked_head = b"POST /v1/actuals HTTP/1.1\r\nHost: tsserve\r\nTransfer-Encoding: chunked\r\n\r\n"
    return {
        "pipelined.bin": connection(get + post + chunked + b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"),
        "pipelined_split.bin": connection(get + post + chunked, reads=(1, 7, 3, 64)),
        "http10_not_kept.bin": connection(b"GET / HTTP/1.0\r\n\r\n" + get),
        "expect_continue.bin": connection(post.replace(b"Host: tsserve\r\n",
                                                       b"Host: tsserve\r\nExpect: 100-continue\r\n")),
        "head_then_get.bin": connection(b"HEAD /console/ HTTP/1.1\r\nHost: x\r\n\r\n" + get),
        # Each limit of the defaults, just passed: a chunk-size line with its extension, a
        # trailer (max_framing_bytes), a header field (max_header_bytes), a declared and a
        # chunked body (max_body_bytes).
        "refused_chunk_line.bin": connection(chunked_head + b"1;x=" + repeat(b"a", 80 * 1024) + b"\r\na\r\n0\r\n\r\n"),
        "refused_trailer.bin": connection(chunked_head + b"1\r\na\r\n0\r\nX-Long: " + repeat(b"b", 80 * 1024) + b"\r\n\r\n"),
        "refused_header.bin": connection(b"GET / HTTP/1.1\r\nX-Long: " + repeat(b"c", 16 * 1024) + b"\r\n\r\n"),
        "refused_declared_body.bin": connection(b"POST / HTTP/1.1\r\nContent-Length: 16777217\r\n\r\n{}"),
        "refused_chunked_body.bin": connection(chunked_head + b"1000001\r\n" + repeat(b"d", 1000)),
        "refused_smuggling.bin": connection(b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get),
        "refused_two_lengths.bin": connection(b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
        # Small limits (headers 96 bytes, framing 32, body 64): the same, in reach of short inputs.
        "small_limits.bin": connection(get + b"POST / HTTP/1.1\r\nContent-Length: 64\r\n\r\n" + b"e" * 64 + get,
                                       reads=(5,), small=(20, 31, 64)),
        "small_chunked.bin": connection(chunked_head.replace(b"Host: tsserve\r\n", b"") +
                                        b"20;e=1\r\n" + b"f" * 32 + b"\r\n21\r\n" + b"g" * 33 + b"\r\n0\r\nT: " + b"h" * 40 + b"\r\n\r\n",
                                        small=(20, 31, 64)),
    }


def http_routes_seeds():
    """Requests as the HTTP door's head check and routes see them (http_routes_fuzzer.cpp):
    a config byte (1: a CORS origin, 2: any origin, 4: a Host allow-list), the method's
    index, the path (its flags, then the number of segments less one and each word's index,
    bit 7 percent-escaping it; index 24 is text: a length byte and the bytes), the number of
    header fields, each a name's index (8: text) and a value's (bit 7: text), then the body.
    Every route the door serves, with and without each header it judges."""
    methods = ["GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH", "get", "post", "CONNECT", "TRACE"]
    words = ["v1", "v2", "health", "live", "ready", "models", "versions", "infer", "forecast",
             "observe", "series", "actuals", "repository", "index", "load", "unload", "console",
             "openapi.json", "accuracy", "patchtst-etth1", "1", "", ".", ".."]
    headers = {  # name: the values in the target's dictionary, in order
        "authorization": ["Bearer s3cret-token", "bearer  s3cret-token ", "Bearer wrong"],
        "content-type": ["application/json", "application/json; charset=utf-8", "Application/JSON ",
                         "text/plain", "application/x-www-form-urlencoded",
                         "multipart/form-data; boundary=x", "application/octet-stream"],
        "origin": ["https://app.example", "https://evil.example", "http://tsserve.local"],
        "host": ["tsserve.local", "tsserve.local:8000", "127.0.0.1:8000"],
        "inference-header-content-length": ["0"],
        "access-control-request-method": ["POST"],
        "request-timeout-ms": ["1000", "0", "-5", "9223372036854775807"],
        "expect": ["100-continue"],
    }
    names = list(headers)

    def text(data):
        return bytes([len(data)]) + data

    def request(method, path, fields=(), body=b"", config=0):
        out = bytes([config, methods.index(method)])
        segments = [s for s in path.strip("/").split("/")]
        out += bytes([(8 if path.endswith("/") and len(path) > 1 else 0), len(segments) - 1])
        for segment in segments:
            escaped = segment.startswith("%")
            word = segment[1:] if escaped else segment
            flag = 0x80 if escaped else 0
            if word in words:
                out += bytes([flag | words.index(word)])
            else:
                out += bytes([flag | len(words)]) + text(word.encode())
        out += bytes([len(fields)])
        for name, value in fields:
            if value in headers[name]:
                out += bytes([names.index(name), headers[name].index(value)])
            else:
                out += bytes([names.index(name), 0x80]) + text(value.encode())
        return out + body

    auth = ("authorization", "Bearer s3cret-token")
    json_type = ("content-type", "application/json")
    forecast = json.dumps({"series": {"OT": [1.0, 2.0, 3.0], "HUFL": [4, 5, 6]},
                           "timestamps": [1467331200, 1467334800, 1467338400]}).encode()
    observe = json.dumps({"timestamps": [1467331200], "values": {"OT": [1.5]}, "forecast": True}).encode()
    actuals = json.dumps({"series_key": "k", "timestamps": [1467331200], "actuals": {"OT": [1.5]}}).encode()
    infer = json.dumps({"inputs": [{"name": "series", "datatype": "FP32", "shape": [1, 3, 1],
                                    "data": [1, 2, 3]}]}).encode()
    binary_header = json.dumps({"inputs": [{"name": "series", "datatype": "FP32", "shape": [1, 2, 1],
                                            "parameters": {"binary_data_size": 8}}]}).encode()
    return {
        "health_live.bin": request("GET", "/v2/health/live", config=4),
        "health_ready_escaped.bin": request("GET", "/v2/%health/%ready", [("host", "evil.example")], config=4),
        "forecast.bin": request("POST", "/v1/models/patchtst-etth1/forecast",
                                [auth, json_type, ("request-timeout-ms", "1000")], forecast),
        "forecast_version.bin": request("POST", "/v1/models/patchtst-etth1/versions/1/forecast",
                                        [("content-type", "Application/JSON "), ("host", "tsserve.local")],
                                        forecast, config=4),
        "observe.bin": request("POST", "/v1/series/k/observe", [auth, json_type], observe),
        "actuals.bin": request("POST", "/v1/actuals", [json_type, ("origin", "https://app.example")],
                               actuals, config=1),
        "refused_actuals_plain.bin": request("POST", "/v1/actuals", [("content-type", "text/plain")], actuals),
        "refused_actuals_no_type.bin": request("POST", "/v1/actuals", [], actuals),
        "infer.bin": request("POST", "/v2/models/patchtst-etth1/infer", [auth, json_type], infer),
        "infer_binary.bin": request("POST", "/v2/models/patchtst-etth1/versions/1/infer",
                                    [("content-type", "application/octet-stream"),
                                     ("inference-header-content-length", str(len(binary_header)))],
                                    binary_header + struct.pack("<2f", 1.5, -2.0)),
        "load.bin": request("POST", "/v2/repository/models/patchtst-etth1/load", [json_type], b"{}"),
        "refused_unload_origin.bin": request("POST", "/v2/repository/models/m/%unload",
                                             [json_type, ("origin", "https://evil.example"),
                                              ("host", "tsserve.local")], b""),
        "index.bin": request("POST", "/v2/repository/index", [auth, json_type], b'{"ready": true}'),
        "preflight.bin": request("OPTIONS", "/v1/actuals",
                                 [("origin", "https://app.example"), ("access-control-request-method", "POST")],
                                 config=1),
        "console.bin": request("HEAD", "/console/index.html"),
        "openapi.bin": request("GET", "/openapi.json", [("authorization", "Bearer wrong")]),
        "refused_timeout.bin": request("POST", "/v1/models/m/forecast",
                                       [json_type, ("request-timeout-ms", "9223372036854775807")], forecast),
    }


# --------------------------------------------------------------------------------------
# Checkpoints


def tiny_state_dict():
    """The tiny PatchTST's state_dict, its positional table cut to the 4 rows the model
    reads (the full 5000 x 8 table is 160 KB: big for a seed, slow to mutate)."""
    torch.manual_seed(0)
    sd = ref.PatchTST(make_tiny_model.CONFIG).eval().state_dict()
    key = "patch_embedding.position_embedding.pe"
    sd[key] = sd[key][:, :4].clone()
    return sd


def views_state_dict():
    """Shared storages, views with offsets and strides, a Parameter, every storage dtype."""
    torch.manual_seed(1)
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    sd = collections.OrderedDict()
    sd["weight"] = torch.nn.Parameter(base.clone())
    sd["weight_t"] = sd["weight"].data.t()
    sd["row"] = sd["weight"].data[1]
    sd["column"] = sd["weight"].data[:, 2]
    sd["scalar"] = torch.tensor(3.5)
    sd["empty"] = torch.empty(0, 4)
    for dtype in [torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
                  torch.int16, torch.int8, torch.uint8, torch.bool]:
        sd["t_" + str(dtype).split(".")[1]] = (torch.arange(6) % 3).to(dtype).reshape(2, 3)
    return sd


def torch_save_bytes(obj, **kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


def without_crcs(archive):
    """The archive with every CRC-32 zeroed (local and central headers), as a writer that
    leaves them out stores it: the reader then skips the check, so mutated records reach
    the parsers behind it."""
    data = bytearray(archive)
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        for info in z.infolist():
            data[info.header_offset + 14:info.header_offset + 18] = b"\0\0\0\0"
    p = data.rfind(b"PK\x05\x06")
    (directory_offset,) = struct.unpack_from("<I", data, p + 16)
    q = directory_offset
    while data[q:q + 4] == b"PK\x01\x02":
        data[q + 16:q + 20] = b"\0\0\0\0"
        names, extra, comment = struct.unpack_from("<HHH", data, q + 28)
        q += 46 + names + extra + comment
    return bytes(data)


SAFETENSORS_DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def safetensors_bytes(tensors, metadata=None):
    """The safetensors layout (as tests/reference/make_checkpoint_files.py writes it)."""
    header, chunks, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        t = t.detach().contiguous()
        data = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def checkpoint_file_seeds():
    tiny = torch_save_bytes(tiny_state_dict())
    views = torch_save_bytes(views_state_dict())
    small = collections.OrderedDict(list(views_state_dict().items())[4:])
    return {
        "tiny_patchtst.pt": tiny,
        "tiny_patchtst_no_crc.pt": without_crcs(tiny),
        "views_dtypes.pt": views,
        "views_dtypes_no_crc.pt": without_crcs(views),
        "tiny_patchtst.safetensors": safetensors_bytes(tiny_state_dict(), {"format": "pt"}),
        "dtypes.safetensors": safetensors_bytes(small),
        # The legacy format's head: its magic number and protocol version (what follows
        # names storages by memory address, so it changes from run to run).
        "legacy_format_head.pt": torch_save_bytes({"w": torch.ones(2)},
                                                  _use_new_zipfile_serialization=False)[:24],
        "training_checkpoint.pt": torch_save_bytes({"model": {"w": torch.ones(2)}, "epoch": 3}),
    }


def pickle_records(archive):
    """data.pkl, then data/0, data/1, ... of a torch.save archive, as the torch_pickle
    target reads them: each a 4-byte little-endian length and the bytes."""
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        records = {info.filename.split("/", 1)[1]: z.read(info) for info in z.infolist()}
    ordered = [records["data.pkl"]]
    key = 0
    while "data/%d" % key in records:
        ordered.append(records["data/%d" % key])
        key += 1
    return b"".join(struct.pack("<I", len(r)) + r for r in ordered)


def torch_pickle_seeds():
    return {
        "tiny_patchtst.bin": pickle_records(torch_save_bytes(tiny_state_dict())),
        "views_dtypes.bin": pickle_records(torch_save_bytes(views_state_dict())),
        "training_checkpoint.bin": pickle_records(
            torch_save_bytes({"model": {"w": torch.ones(2)}, "epoch": 3})),
    }


# --------------------------------------------------------------------------------------
# Live series snapshots (server/live/series_snapshot.h's layout, written here from its
# documentation). The first byte: 0x00, the file as it is; 0x01, the target rewrites the
# trailing checksum, so mutations reach the windows behind it.


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def series_snapshot_bytes(windows, version=1):
    """windows: (key, model, pinned_version, names, variables, step, last, accepted,
    rows), rows a list of points, each N floats; least recently used first."""
    def text(s):
        b = s.encode()
        return struct.pack("<I", len(b)) + b

    out = b"TSSERIES" + struct.pack("<IQ", version, len(windows))
    for key, model, pinned, names, variables, step, last, accepted, rows in windows:
        out += text(key) + text(model) + text(pinned) + struct.pack("<I", len(names))
        out += b"".join(text(n) for n in names)
        out += struct.pack("<qqqqqQ", variables, step, last, accepted, len(rows),
                           len(rows) * variables)
        out += raw(flat(rows))
    return out + struct.pack("<Q", fnv1a64(out))


def series_snapshot_seeds():
    hourly = [round(x, 3) for x in flat(transpose(series(len(COLUMNS), 8, 0)))]
    etth1_rows = [hourly[t * len(COLUMNS):(t + 1) * len(COLUMNS)] for t in range(8)]
    two_keys = series_snapshot_bytes([
        ("etth1-transformer-7", "patchtst-etth1", "", COLUMNS, len(COLUMNS), 3600,
         1467331200 + 7 * 3600, 500, etth1_rows),
        ("meter/42", "patchtst-etth1", "2", [], 1, 0, 1700000000, 1, [[-0.0]]),
    ])
    return {
        "two_keys.bin": PROTO_MODE + two_keys,
        "two_keys_checksum_rewritten.bin": BUILT_MODE + two_keys[:-8] + bytes(8),
        "empty.bin": PROTO_MODE + series_snapshot_bytes([]),
        "refused_version.bin": PROTO_MODE + series_snapshot_bytes([], version=2),
        "refused_truncated.bin": PROTO_MODE + two_keys[:100],
    }


# --------------------------------------------------------------------------------------
# The shared store's layouts (server/redis/forecast_layout.h and window_layout.h, written
# here from their documentation). The first byte: 0x00, a meta; 0x01, a kept forecast (a
# u32 length, a meta, then its F steps' entries); 0x02, a u32 length, a window's head and
# its ring.
META_MODE, ENTRY_MODE, WINDOW_MODE = b"\x00", b"\x01", b"\x02"


def store_text(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def kept_forecast_meta_bytes(model, version, names, mean, std, levels, times, widths_id=""):
    out = store_text(model) + store_text(version) + struct.pack("<I", len(names))
    out += b"".join(store_text(n) for n in names) + struct.pack("<I", len(mean))
    out += b"".join(struct.pack("<d", m) for m in mean + std)
    out += struct.pack("<I", len(levels)) + b"".join(struct.pack("<d", l) for l in levels)
    out += struct.pack("<I", len(times)) + b"".join(struct.pack("<q", t) for t in times)
    return out + store_text(widths_id)


def kept_forecast_entry_bytes(values, bands):
    """bands: (lower, upper) pairs of len(values) floats."""
    out = raw(values)
    for lower, upper in bands:
        out += raw(lower) + raw(upper)
    return out


def window_head_bytes(key, model, version, names, variables, step, last, accepted, points,
                      capacity):
    out = store_text(key) + store_text(model) + store_text(version)
    out += struct.pack("<I", len(names)) + b"".join(store_text(n) for n in names)
    return out + struct.pack("<6q", variables, step, last, accepted, points, capacity)


def prefixed(first, rest):
    return struct.pack("<I", len(first)) + first + rest


def shared_store_seeds():
    seven = [round(0.1 * i, 3) for i in range(len(COLUMNS))]
    band = ([v - 1 for v in seven], [v + 1 for v in seven])
    hours = [1_700_000_000 + 3600 * i for i in range(1, 97)]
    scaled = kept_forecast_meta_bytes("patchtst-etth1", "1", COLUMNS, [1.0] * len(COLUMNS),
                                      [2.0] * len(COLUMNS), [0.8, 0.99], hours)
    plain = kept_forecast_meta_bytes("m", "", ["0"], [], [], [], [1_700_000_000])
    entry = kept_forecast_entry_bytes(seven, [band, band])
    with_widths = kept_forecast_meta_bytes("patchtst-etth1", "1", COLUMNS, [], [], [0.8, 0.99],
                                           hours, "0123456789abcdef0123456789abcdef")
    # A full ring of 4 points of 7 variables that wrapped: the key's points 6..9 in slots
    # 2, 3, 0, 1.
    head = window_head_bytes("plant-1", "patchtst-etth1", "", COLUMNS, len(COLUMNS), 3600,
                             1_700_032_400, 10, 4, 4)
    ring = raw([float(i) for i in range(4 * len(COLUMNS))])
    return {
        "meta_scaled.bin": META_MODE + scaled,
        "meta_plain.bin": META_MODE + plain,
        "refused_meta_truncated.bin": META_MODE + plain[:9],
        "forecast.bin": ENTRY_MODE + prefixed(scaled, entry * len(hours)),
        "refused_forecast_truncated.bin": ENTRY_MODE + prefixed(scaled, (entry * len(hours))[:-3]),
        "forecast_with_widths.bin": ENTRY_MODE + prefixed(with_widths, raw(seven) * len(hours)),
        "window.bin": WINDOW_MODE + prefixed(head, ring),
        "refused_window_ring_short.bin": WINDOW_MODE + prefixed(head, ring[:-4]),
    }


# --------------------------------------------------------------------------------------
# Server config: part 0 is the config file, then NUL-separated arguments and TSSERVE_*=v.


def config_seed(file_text, *parts):
    return b"\0".join([file_text.encode()] + [p.encode() for p in parts])


def k8s_config():
    """The config file of deploy/k8s/configmap.yaml."""
    with open(os.path.join(ROOT, "deploy", "k8s", "configmap.yaml")) as f:
        text = f.read()
    return text[text.index("{"):text.rindex("}") + 1]


def server_config_seeds():
    readme_example = json.dumps({"model": "/models/etth1.pt", "device": "cuda:0", "instances": 2,
                                 "max_queue_delay_ms": 1.5, "batch_invariant": True,
                                 "log_format": "json"})
    return {
        "k8s_configmap.bin": config_seed(k8s_config()),
        "readme_example.bin": config_seed(readme_example),
        "comments_tls_pair.bin": config_seed(
            '// TLS from files\n{"tls_cert": "server.pem", "tls_key": "server.key",\n'
            ' /* mutual */ "tls_ca": "ca.pem"}'),
        "flags.bin": config_seed("", "--threads", "2", "--max-batch-rows", "64",
                                 "--max-queue-rows=128", "--attention", "prob",
                                 "--metrics-address", ""),
        "environment.bin": config_seed("", "TSSERVE_LOG_FORMAT=json", "TSSERVE_THREADS=4",
                                       "TSSERVE_BATCH_INVARIANT=off", "TSSERVE_DEVICE=auto"),
        "config_from_environment.bin": config_seed('{"log_level": "debug"}',
                                                   "TSSERVE_CONFIG=@config", "--config", "@config"),
        "help.bin": config_seed("", "--help"),
        "refused_unknown_key.bin": config_seed('{"max_batch_row": 64, "threads": "2"}'),
        "refused_ranges.bin": config_seed("", "--threads", "0", "--max-queue-rows", "7",
                                          "TSSERVE_MAX_QUEUE_DELAY_MS=-1"),
        "refused_json.bin": config_seed('{"threads": 2,'),
        "refused_tls_half.bin": config_seed("", "--tls-cert", "server.pem"),
        "refused_same_port.bin": config_seed("", "--grpc-address", "0.0.0.0:9000",
                                             "--metrics-address", "0.0.0.0:9000"),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "corpus"))
    out = parser.parse_args().out
    attention_pb2, forecast_pb2, tensor_pb2, inference_pb2, proto_dir = load_protos()
    assert tensor_pb2.TENSOR_ENCODING_RAW == RAW_ENCODING
    corpora = {
        "forecast_request": forecast_seeds(forecast_pb2),
        "encode_request": encode_seeds(forecast_pb2),
        "observe_request": observe_seeds(forecast_pb2),
        "attention_selection": attention_seeds(attention_pb2),
        "oip_request": oip_seeds(inference_pb2),
        "oip_json_request": oip_json_seeds(),
        "forecast_json_request": forecast_json_seeds(),
        "json_float_array": json_float_array_seeds(),
        "http_request_rules": http_request_rules_seeds(),
        "http_framing": http_framing_seeds(),
        "http_routes": http_routes_seeds(),
        "checkpoint_file": checkpoint_file_seeds(),
        "torch_pickle": torch_pickle_seeds(),
        "server_config": server_config_seeds(),
        "series_snapshot": series_snapshot_seeds(),
        "shared_store": shared_store_seeds(),
    }
    shutil.rmtree(proto_dir)
    total = 0
    for target, files in corpora.items():
        folder = os.path.join(out, target)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
        size = sum(len(d) for d in files.values())
        total += size
        print("%-20s %3d files %8d bytes" % (target, len(files), size))
    print("%-20s %3s       %8d bytes" % ("total", "", total))


if __name__ == "__main__":
    main()
