"""Live series against full windows on ETTh1's test split (the equivalence in
docs/intervals-and-accuracy.md, "Equivalence on ETTh1's test split").

    /usr/bin/python3 tests/accuracy/observe_equivalence.py --tsserve BIN --work DIR \
        [--data ETTh1.csv] [--rows 0]

Two tsserve processes (the bundled model, metrics on). The first takes TSLib's ETTh1 test
split (rows 11520 .. 14399, --rows to shorten it) through Observe: the seq_len rows before
it in one call, then one row per call, each with `forecast`. The second gets what a caller
without Observe sends for the same steps: ReportActuals of the new row (after the first
forecast), then Forecast with the whole window (the same rows, names, timestamps and
interval levels, all the model's calibrated ones). Checked:
  - every Observe forecast and its interval bands equal that step's Forecast answer bit for
    bit (float32 values);
  - the two servers' live accuracy (GET /v1/accuracy: points, MAE and MSE per horizon
    bucket, interval coverage per level) is the same, since the same forecasts score the
    same actuals.
Prints the live MAE/MSE per horizon bucket. Exit 0 when all holds, 77 without the dataset.
"""

import argparse
import calendar
import csv
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from tsserve_http import call, start_tsserve_ports, stop_tsserve  # noqa: E402

DEFAULT_CSV = os.path.join(os.path.dirname(ROOT), "shared", "data", "ETTh1.csv")
TEST_ROWS = (12 * 30 * 24 + 4 * 30 * 24, 12 * 30 * 24 + 8 * 30 * 24)
SEQ_LEN = 336


def fail(message):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (not an assert)."""
    print("FAIL: %s" % message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def stubs(out):
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.join(ROOT, "proto"),
                    "--python_out=" + out, "--grpc_python_out=" + out, "tsserve/v1/tensor.proto",
                    "tsserve/v1/attention.proto", "tsserve/v1/forecast_service.proto"], check=True)
    sys.path.insert(0, out)
    from tsserve.v1 import forecast_service_pb2, forecast_service_pb2_grpc
    return forecast_service_pb2, forecast_service_pb2_grpc


def read_rows(path, first, end):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1 + first:1 + end]
    times = [calendar.timegm(time.strptime(r[0], "%Y-%m-%d %H:%M:%S")) for r in body]
    values = [[float(x) for x in r[1:]] for r in body]
    return header[1:], times, values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--data", default=DEFAULT_CSV)
    parser.add_argument("--rows", type=int, default=0, help="test rows used (0: all 2880)")
    args = parser.parse_args()
    if not os.path.exists(args.data):
        print("SKIPPED: %s is missing" % args.data)
        return 77
    os.makedirs(args.work, exist_ok=True)
    pb, pb_grpc = stubs(tempfile.mkdtemp(prefix="observe-equivalence-"))
    import grpc

    end = TEST_ROWS[1] if args.rows == 0 else TEST_ROWS[0] + args.rows
    columns, times, values = read_rows(args.data, TEST_ROWS[0] - SEQ_LEN, end)
    servers = []
    for name in ("observe", "full"):
        work = os.path.join(args.work, name)
        os.makedirs(work, exist_ok=True)
        server, ports = start_tsserve_ports(args.tsserve, work, "--metrics-address", "127.0.0.1:0")
        servers.append((server, ports, work))
    try:
        live = pb_grpc.ForecastServiceStub(grpc.insecure_channel("127.0.0.1:%d" % servers[0][1]["grpc_port"]))
        full = pb_grpc.ForecastServiceStub(grpc.insecure_channel("127.0.0.1:%d" % servers[1][1]["grpc_port"]))
        levels = list(full.GetModelInfo(pb.GetModelInfoRequest()).info.calibration_levels)

        def window_forecast(last):  # rows [last - seq_len, last)
            request = pb.ForecastRequest(variable_names=columns, interval_levels=levels,
                                         series_key="full", timestamps=times[last - SEQ_LEN:last])
            request.series.shape.extend([len(columns), SEQ_LEN])
            for n in range(len(columns)):
                request.series.values.extend(values[t][n] for t in range(last - SEQ_LEN, last))
            return full.Forecast(request)

        def same(a, b, what):
            if list(a.forecast.values) != list(b.forecast.values):
                fail("%s: the forecasts differ" % what)
            for x, y in zip(a.intervals, b.intervals):
                if x.level != y.level or list(x.lower.values) != list(y.lower.values) or \
                        list(x.upper.values) != list(y.upper.values):
                    fail("%s: the %g bands differ" % (what, x.level))
            if len(a.intervals) != len(b.intervals) or not a.intervals:
                fail("%s: %d and %d bands" % (what, len(a.intervals), len(b.intervals)))

        steps = 0
        for last in range(SEQ_LEN, len(times) + 1):
            first = 0 if last == SEQ_LEN else last - 1
            request = pb.ObserveRequest(series_key="live", variable_names=columns,
                                        timestamps=times[first:last], forecast=True)
            for t in range(first, last):
                request.values.extend(values[t])
            answer = live.Observe(request)
            if answer.forecast_code != 0:
                fail("row %d: %s" % (last, answer.forecast_message))
            if last > SEQ_LEN:
                report = pb.ReportActualsRequest(series_key="full", variable_names=columns,
                                                 timestamps=[times[last - 1]], values=values[last - 1])
                full.ReportActuals(report)
            same(answer.forecast, window_forecast(last), "row %d" % (TEST_ROWS[0] - SEQ_LEN + last))
            pred_len = len(answer.forecast.forecast.values) // len(columns)
            steps += 1
        accuracy = [call(ports["http_port"], "/v1/accuracy")[1] for _, ports, _ in servers]
    finally:
        for server, _, work in servers:
            stop_tsserve(server, work)
    if accuracy[0] != accuracy[1]:
        fail("live accuracy differs:\n%s\n%s" % (accuracy[0], accuracy[1]))
    version = accuracy[0]["versions"][0]
    # Equal reports prove nothing when both counted nothing: each server scored exactly the
    # points sent. The forecast made with the window ending before row `last` covers rows
    # last .. last + pred_len - 1, and the actuals of rows seq_len .. end - 1 were sent (one
    # per step, before that step's forecast): it scores min(pred_len, end - last) steps,
    # each of every variable.
    expected = len(columns) * sum(min(pred_len, len(times) - last)
                                  for last in range(SEQ_LEN, len(times) + 1))
    for name, report in zip(("observe", "full"), accuracy):
        scored = sum(b["points"] for b in report["versions"][0]["horizons"])
        print("%s server: %d points scored, %d expected from what was sent" % (name, scored, expected))
        check(expected > 0 and scored == expected,
              "the %s server scored %d points, not the %d sent" % (name, scored, expected))
        for interval in report["versions"][0].get("intervals", []):
            covered = sum(h["points"] for h in interval["horizons"])
            check(covered == expected, "the %s server scored %d points at level %g, not %d" % (
                name, covered, interval["level"], expected))
        check(report["versions"][0].get("intervals"), "the %s server scored no intervals" % name)
    print("%d Observe forecasts equal the full-window Forecast calls bit for bit" % steps)
    print("live accuracy, the same on both servers:")
    for bucket in version["horizons"]:
        if bucket["points"]:
            print("  steps %-8s points %8d  MAE %.4f  MSE %.4f" % (
                bucket["steps"], bucket["points"], bucket["mae"], bucket["mse"]))
    for interval in version.get("intervals", []):
        scored = [h for h in interval["horizons"] if h["points"]]
        points = sum(h["points"] for h in scored)
        covered = sum(h["points"] * h["coverage"] for h in scored)
        print("  level %-5g coverage %.4f over %d points" % (interval["level"], covered / points, points))
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
