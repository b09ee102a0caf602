"""Legitimate JSON forecasts while 4 connections send maximum-size hostile bodies: the p99
latency of the legitimate calls against an unattacked run, on one server, in one run.

    /usr/bin/python3 tests/bench/http_under_attack.py --tsserve build/server/tsserve \
        [--seconds 5] [--rounds 3] [--bound 2.0]

wrk drives the legitimate calls (8 connections, closed loop, the bundled PatchTST's
336 x 7 window); each attacker sends, over and over on its own connection, a 16 MiB
forecast body of 1.1 million one-point columns (the most a body may hold, refused 400
after its parse). Unattacked and attacked runs alternate, `--rounds` of each, so a drift of
the machine touches both; the ratio is of the median p99s. Prints every run's percentiles
and the ratio; exits 1 when it is over `--bound`."""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from tsserve_http import start_tsserve, stop_tsserve  # noqa: E402

MODEL = "patchtst-etth1"
COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
MAX_BODY = 16 << 20


def wrk_run(port, script, seconds):
    """{percentile: ms} and requests/s of one wrk run at concurrency 8."""
    out = subprocess.run(["wrk", "-t", "2", "-c", "8", "-d", "%ds" % seconds, "--latency", "-s", script,
                          "http://127.0.0.1:%d/v1/models/%s/forecast" % (port, MODEL)],
                         capture_output=True, text=True, check=True).stdout
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    percentiles = {}
    for level, value, unit in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M):
        percentiles[int(level)] = float(value) * units[unit]
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return percentiles, rate, int(errors.group(1)) if errors else 0


def hostile_body():
    columns, parts, size = 0, [], len('{"series":{}}')
    while True:
        part = '"c%d":[1]' % columns
        if size + len(part) + 1 > MAX_BODY - 64:
            break
        parts.append(part)
        size += len(part) + 1
        columns += 1
    return ('{"series":{%s}}' % ",".join(parts)).encode(), columns


def attacker(port, body, stop, answers):
    head = ("POST /v1/models/%s/forecast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\n\r\n" % (MODEL, len(body))).encode()
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
                conn.sendall(head + body)
                answers.append(conn.recv(64)[:12])
        except OSError:
            answers.append(b"error")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bound", type=float, default=2.0)
    parser.add_argument("--json", help="also write the runs and the ratio here")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="http-under-attack-")
    window = {c: [float(v + (t % 24)) for t in range(336)] for v, c in enumerate(COLUMNS)}
    script = os.path.join(work, "forecast.lua")
    with open(script, "w") as out:
        out.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                  "wrk.body = %s\n" % json.dumps(json.dumps({"series": window})))
    body, columns = hostile_body()
    server, port = start_tsserve(args.tsserve, work)
    runs = {"unattacked": [], "attacked": []}
    answers = []
    try:
        wrk_run(port, script, 2)  # warm-up
        for _ in range(args.rounds):
            runs["unattacked"].append(wrk_run(port, script, args.seconds))
            stop = threading.Event()
            attackers = [threading.Thread(target=attacker, args=(port, body, stop, answers))
                         for _ in range(4)]
            for thread in attackers:
                thread.start()
            runs["attacked"].append(wrk_run(port, script, args.seconds))
            stop.set()
            for thread in attackers:
                thread.join()
    finally:
        stop_tsserve(server, work)
    print("hostile body: %d bytes, %d columns; %d sent, answers %s" %
          (len(body), columns, len(answers), sorted(set(a.decode("latin-1") for a in answers))))
    errors = 0
    for name, results in runs.items():
        for p, rate, non_2xx in results:
            errors += non_2xx
            print("%-10s p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  %.0f requests/s  %d non-2xx" %
                  (name, p[50], p[90], p[99], rate, non_2xx))
    median = {name: statistics.median(p[99] for p, _, _ in results) for name, results in runs.items()}
    ratio = median["attacked"] / median["unattacked"]
    print("median p99: unattacked %.2f ms, attacked %.2f ms; attacked / unattacked: %.2f (bound %.2f)"
          % (median["unattacked"], median["attacked"], ratio, args.bound))
    ok = ratio <= args.bound and errors == 0 and len(answers) > 0
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"body_bytes": len(body), "columns": columns, "hostile_sent": len(answers),
                       "seconds": args.seconds, "bound": args.bound, "ratio": ratio,
                       "runs": {name: [{"p50_ms": p[50], "p90_ms": p[90], "p99_ms": p[99],
                                        "rps": rate, "non_2xx": non_2xx}
                                       for p, rate, non_2xx in results]
                                for name, results in runs.items()}}, out)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
