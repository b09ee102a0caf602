"""Ask a running tsserve for a forecast of the last window of a CSV.

    /usr/bin/python3 client/python/forecast_from_csv.py [--target localhost:50051] data.csv

The CSV has a header row; a column named "date" is passed as-is, every other column is a
variable. The client asks the server how many points the model reads (GetModelInfo),
sends the last ones with the column names (so the server applies the model's scaler by
name), and prints the forecast. Stubs are generated from proto/ with Debian's
python3-grpc-tools on first use (only /usr/bin/python3 sees python3-grpcio).
"""

import argparse
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(ROOT, "proto")


def load_stubs():
    out = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                       "tsserve", "python-stubs")
    protos = ["tsserve/v1/tensor.proto", "tsserve/v1/attention.proto",
              "tsserve/v1/forecast_service.proto"]
    newest = max(os.path.getmtime(os.path.join(PROTO_DIR, p)) for p in protos)
    marker = os.path.join(out, ".generated")
    if not os.path.exists(marker) or os.path.getmtime(marker) < newest:
        os.makedirs(out, exist_ok=True)
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", PROTO_DIR,
                        "--python_out=" + out, "--grpc_python_out=" + out] + protos, check=True)
        open(marker, "w").close()
    sys.path.insert(0, out)
    from tsserve.v1 import forecast_service_pb2, forecast_service_pb2_grpc  # noqa: E402
    return forecast_service_pb2, forecast_service_pb2_grpc


def read_columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [r for r in rows[1:] if r]
    names = [h for h in header if h != "date"]
    index = [header.index(n) for n in names]
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            sys.exit("%s: line %d has %d cells; the header has %d" % (path, line, len(row), len(header)))
    return names, [[float(row[i]) for row in body] for i in index], body[-1][header.index("date")] if "date" in header else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--target", default="localhost:50051")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds")
    args = parser.parse_args()

    import grpc
    pb, pb_grpc = load_stubs()
    stub = pb_grpc.ForecastServiceStub(grpc.insecure_channel(args.target))
    info = stub.GetModelInfo(pb.GetModelInfoRequest(), timeout=args.timeout).info
    names, columns, last_date = read_columns(args.csv)
    if len(columns[0]) < info.seq_len:
        sys.exit("%s: %d rows; the model needs at least %d" % (args.csv, len(columns[0]), info.seq_len))

    request = pb.ForecastRequest(variable_names=names)
    request.series.shape.extend([len(names), info.seq_len])
    for column in columns:
        request.series.values.extend(column[-info.seq_len:])
    try:
        response = stub.Forecast(request, timeout=args.timeout)
    except grpc.RpcError as e:
        sys.exit("tsserve answered %s: %s" % (e.code().name, e.details()))

    horizon = response.forecast.shape[1]
    values = response.forecast.values
    print("model %s v%s, %d variables x %d steps after %s (scaler applied: %s; queue %.2f ms, compute %.2f ms)"
          % (response.model_name, response.model_version, len(names), horizon, last_date or "the last row",
             response.scaler_applied, response.timing.queue_seconds * 1e3, response.timing.compute_seconds * 1e3))
    print("%5s" % "step" + "".join(" %10s" % n for n in names))
    for h in range(horizon):
        print("%5d" % (h + 1) + "".join(" %10.4f" % values[v * horizon + h] for v in range(len(names))))


if __name__ == "__main__":
    main()
