"""Live accuracy end to end: replay over ETTh1's test split, scraped by a real Prometheus.

    /usr/bin/python3 tests/accuracy/replay_accuracy_test.py --tsserve BIN --client BIN \
        --work DIR [--stride 24] [--limit 0]

1. tsserve (the bundled model) and Debian's Prometheus scraping it every second;
   `tsserve-client replay` over ETTh1's test split (TSLib's rows 11520 .. 14399), forecasts
   every --stride rows, actuals reported as they arrive, every forecast written out.
   Prometheus' sums per horizon bucket (abs and squared error, points) must equal those
   offline_accuracy.py computes from the written forecasts and the CSV (relative 1e-5:
   the server scores its float32 model-space forecast, the offline side rescales the
   float32 answer), and MAE/MSE are printed. The replay asks for 0.8 and 0.95 intervals:
   Prometheus' covered / scored interval points per level and bucket must equal the
   offline count of actuals inside the answered bands (scored exactly; covered within
   max(2, 1e-4 of the points): the server compares in the model's space, offline in the
   float32 raw units of the answer, so an actual within float rounding of a bound may
   fall either side), and the coverage is printed beside nominal.
2. Bounded memory: a server with --forecast-store-max-entries 20 and a replay of 300
   forecasts over 50 keys: Prometheus' max_over_time of the store's entries stays <= 20
   and evictions are exactly 300 - 20.
Exit 0 when all holds; 77 (skipped) when Prometheus is not installed.
"""

import argparse
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

from offline_accuracy import offline_accuracy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The dataset lives beside the project (../shared/data, as the calibration tests read it);
# --data names another copy.
DEFAULT_CSV = os.path.join(os.path.dirname(ROOT), "shared", "data", "ETTh1.csv")
CONFIG = os.path.join(ROOT, "model", "default", "patchtst_etth1.json")
PROMETHEUS = "/usr/bin/prometheus"
LEVELS = ("0.8", "0.95")  # calibrated levels of the bundled model the replay asks for
TEST_ROWS = (12 * 30 * 24 + 4 * 30 * 24, 12 * 30 * 24 + 8 * 30 * 24)  # TSLib's ETTh1 test split


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_tsserve(binary, work, extra):
    log = open(os.path.join(work, "tsserve.log"), "w")
    server = subprocess.Popen([binary, "--grpc-address", "127.0.0.1:0", "--http-address", "",
                               "--metrics-address", "127.0.0.1:0"] + extra,
                              stdout=subprocess.PIPE, stderr=log, text=True)
    ready, _, _ = select.select([server.stdout], [], [], 120)
    line = server.stdout.readline() if ready else ""
    fields = dict(f.split("=") for f in line.split() if "=" in f)
    require("grpc_port" in fields, "tsserve did not start: %r (log in %s)" % (line, work))
    return server, int(fields["grpc_port"]), int(fields["metrics_port"])


def start_prometheus(work, metrics_port):
    web_port = free_port()
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: tsserve\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % metrics_port)
    log = open(os.path.join(work, "prometheus.log"), "w")
    prometheus = subprocess.Popen([PROMETHEUS, "--config.file=" + os.path.join(work, "prometheus.yml"),
                                   "--storage.tsdb.path=" + os.path.join(work, "data"),
                                   "--web.listen-address=127.0.0.1:%d" % web_port],
                                  stdout=log, stderr=log)
    return prometheus, web_port


def query(web_port, expr):
    url = "http://127.0.0.1:%d/api/v1/query?query=%s" % (web_port, urllib.parse.quote(expr))
    try:
        body = json.load(urllib.request.urlopen(url, timeout=10))
    except OSError:
        return None
    return body["data"]["result"] if body.get("status") == "success" else None


def wait_for(web_port, expr, want, what, limit=60):
    """Polls Prometheus (each query a round trip) until the scalar result equals `want`."""
    deadline = time.time() + limit
    got = None
    while time.time() < deadline:
        result = query(web_port, expr)
        if result:
            got = float(result[0]["value"][1])
            if got == want:
                return
        time.sleep(0.5)  # the script waits for Prometheus' next scrape, bounded above
    raise AssertionError("%s: Prometheus says %s, expected %s after %ds" % (what, got, want, limit))


def replay(opts, grpc_port, work, args):
    command = [opts.client, "replay", opts.data, "--target", "127.0.0.1:%d" % grpc_port] + args
    started = time.time()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print(done.stdout.strip())
    require(done.returncode == 0, "replay failed (%d): %s" % (done.returncode, done.stderr))
    return time.time() - started


def stop(process):
    process.terminate()
    process.wait(timeout=60)


def accuracy_equals_offline(opts):
    work = os.path.join(opts.work, "accuracy")
    os.makedirs(work, exist_ok=True)
    server, grpc_port, metrics_port = start_tsserve(opts.tsserve, work, [])
    prometheus, web_port = start_prometheus(work, metrics_port)
    try:
        forecasts = os.path.join(work, "forecasts.jsonl")
        seconds = replay(opts, grpc_port, work,
                         ["--start", str(TEST_ROWS[0]), "--end", str(TEST_ROWS[1]),
                          "--stride", str(opts.stride), "--limit", str(opts.limit),
                          "--intervals", ",".join(LEVELS), "--out", forecasts])
        offline = offline_accuracy(forecasts, opts.data, CONFIG)
        total = sum(s["points"] for s in offline.values())
        wait_for(web_port, "sum(tsserve_forecast_scored_points_total)", total, "scored points")
        print("replay over ETTh1 test rows %d..%d, stride %d: %.1f s, %d points scored"
              % (TEST_ROWS[0], TEST_ROWS[1] - 1, opts.stride, seconds, total))
        print("%-8s %8s %12s %12s   %s" % ("horizon", "points", "MAE", "MSE", "(Prometheus vs offline)"))
        for name, sums in sorted(offline.items(), key=lambda kv: int(kv[0].split("-")[0].rstrip("+"))):
            live = {}
            for key, metric in (("abs", "tsserve_forecast_abs_error_total"),
                                ("squared", "tsserve_forecast_squared_error_total"),
                                ("points", "tsserve_forecast_scored_points_total")):
                live[key] = float(query(web_port, 'sum(%s{horizon="%s"})' % (metric, name))[0]["value"][1])
            require(live["points"] == sums["points"], (name, live, sums))
            for key in ("abs", "squared"):
                require(abs(live[key] - sums[key]) <= 1e-5 * sums[key], (name, key, live[key], sums[key]))
            print("%-8s %8d %12.6f %12.6f   MAE %.9f vs %.9f" % (
                name, sums["points"], live["abs"] / live["points"], live["squared"] / live["points"],
                live["abs"] / live["points"], sums["abs"] / sums["points"]))
        check_coverage(web_port, offline)
        all_abs = sum(s["abs"] for s in offline.values())
        all_sq = sum(s["squared"] for s in offline.values())
        print("all horizons: MAE %.6f, MSE %.6f over %d points" % (all_abs / total, all_sq / total, total))
    finally:
        stop(prometheus)
        stop(server)


def check_coverage(web_port, offline):
    for level in LEVELS:
        covered_all = scored_all = 0
        for name, sums in sorted(offline.items()):
            labels = 'level="%s",horizon="%s"' % (level, name)
            covered = float(query(web_port, "sum(tsserve_interval_covered_points_total{%s})" % labels)[0]["value"][1])
            scored = float(query(web_port, "sum(tsserve_interval_scored_points_total{%s})" % labels)[0]["value"][1])
            want_scored = sums["interval_points"][level]
            want_covered = sums["covered"][level]
            require(scored == want_scored, (level, name, scored, want_scored))
            require(abs(covered - want_covered) <= max(2, 1e-4 * want_scored), (level, name, covered, want_covered))
            covered_all += covered
            scored_all += scored
            print("coverage %s, horizon %-7s %.4f (Prometheus %d / %d; offline %d)" % (
                level, name, covered / scored, covered, scored, want_covered))
        print("coverage at %s over all horizons: %.4f (nominal %s)" % (level, covered_all / scored_all, level))


def store_stays_bounded(opts):
    work = os.path.join(opts.work, "bounded")
    os.makedirs(work, exist_ok=True)
    limit, forecasts, keys = 20, 300, 50
    server, grpc_port, metrics_port = start_tsserve(
        opts.tsserve, work, ["--forecast-store-max-entries", str(limit)])
    prometheus, web_port = start_prometheus(work, metrics_port)
    try:
        wait_for(web_port, "count(up == 1)", 1, "first scrape")
        replay(opts, grpc_port, work,
               ["--start", str(TEST_ROWS[0]), "--stride", "1", "--limit", str(forecasts),
                "--keys", str(keys)])
        wait_for(web_port, 'sum(tsserve_forecast_store_dropped_total{reason="evicted"})',
                 forecasts - limit, "evictions")
        peak = float(query(web_port, "max_over_time(tsserve_forecast_store_entries[10m])")[0]["value"][1])
        require(peak <= limit, "store held %d > %d forecasts" % (peak, limit))
        print("bounded: %d forecasts over %d keys, store limit %d: peak %d entries (Prometheus "
              "max_over_time, 1 s scrapes), %d evicted" % (forecasts, keys, limit, peak, forecasts - limit))
    finally:
        stop(prometheus)
        stop(server)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--client", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--data", default=DEFAULT_CSV, help="ETTh1.csv (default: %(default)s)")
    parser.add_argument("--stride", type=int, default=24)
    parser.add_argument("--limit", type=int, default=0)
    opts = parser.parse_args()
    if not os.path.exists(PROMETHEUS):
        print("skipped: %s is absent (Debian package `prometheus`)" % PROMETHEUS)
        sys.exit(77)
    shutil.rmtree(opts.work, ignore_errors=True)
    accuracy_equals_offline(opts)
    store_stays_bounded(opts)
    print("PASS")


if __name__ == "__main__":
    main()
