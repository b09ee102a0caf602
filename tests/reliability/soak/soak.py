"""Soak: a real tsserve under mixed valid and invalid traffic for a while, its resident
memory sampled throughout. Use tests/reliability/soak/run.sh; it passes the binaries.

Traffic: `tsserve-client bench` (closed loop, the main valid stream, whose latencies are
reported) beside a Python grpcio loop that interleaves every valid request shape
(request_mix.valid) with every invalid kind (request_mix.invalid, three invalid calls per
valid one). Pass: no error on any valid call, every invalid call gets exactly its
expected code (never INTERNAL or UNKNOWN; the server's own requests_total agrees), RSS
flat after the warm-up (rss_sampler.flatness), and SIGTERM drains to exit 0.
Writes OUT/memory.csv, OUT/summary.json, OUT/memory.png (with --png) and the logs.
"""

import argparse
import collections
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from request_mix import RequestMix  # noqa: E402
from rss_sampler import RssSampler, flatness  # noqa: E402

MESSAGE_LIMIT = 1 << 20  # small, so the oversize kind costs ~1 MiB and not the default 64


def start_tsserve(binary, out):
    log = open(os.path.join(out, "tsserve.log"), "w")
    process = subprocess.Popen(
        [binary, "--grpc-address", "127.0.0.1:0", "--http-address", "", "--metrics-address", "127.0.0.1:0", "--threads", "1",
         "--max-message-bytes", str(MESSAGE_LIMIT), "--log-level", "warn"],
        stdout=subprocess.PIPE, stderr=log, text=True)
    ready, _, _ = select.select([process.stdout], [], [], 180)
    line = process.stdout.readline() if ready else ""
    match = re.search(r"grpc_port=(\d+) metrics_port=(\d+)", line)
    if not match:
        process.kill()
        raise SystemExit("tsserve did not report listening: %r (see %s/tsserve.log)" % (line, out))
    return process, int(match.group(1)), int(match.group(2))


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def server_codes(metrics_port):
    """requests_total by gRPC code, summed over protocols and methods, from /metrics."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % metrics_port, timeout=10) as r:
        text = r.read().decode()
    codes = collections.Counter()
    for match in re.finditer(r'^tsserve_requests_total\{[^}]*code="([A-Z_]+)"[^}]*\} ([0-9.e+]+)$', text, re.M):
        codes[match.group(1)] += int(float(match.group(2)))
    return dict(codes)


def drive_mix(mix, seconds):
    """Valid and invalid calls, interleaved 1:3, until `seconds` have passed."""
    valid = collections.defaultdict(collections.Counter)
    invalid = collections.defaultdict(collections.Counter)
    latencies, examples = [], {}
    unexpected = collections.Counter()  # (kind, code got, code expected) -> calls
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        name, call, check = mix.valid[i % len(mix.valid)]
        started = time.monotonic()
        try:
            response = call()
            latencies.append(time.monotonic() - started)
            ok = check(response)
            valid[name]["OK" if ok else "OK_BUT_WRONG_ANSWER"] += 1
        except mix.grpc.RpcError as error:
            valid[name][error.code().name] += 1
            examples.setdefault(name, error.details())
        for j in range(3):
            name, call, expected = mix.invalid[(3 * i + j) % len(mix.invalid)]
            try:
                call()
                got = "OK"
            except mix.grpc.RpcError as error:
                got = error.code().name
                examples.setdefault(name, error.details())
            invalid[name][got] += 1
            if got != expected.name:
                unexpected[(name, got, expected.name)] += 1
        i += 1
    wrong = ["%s: %d x %s, expected %s (%s)" % (name, n, got, want, examples.get(name))
             for (name, got, want), n in sorted(unexpected.items())]
    return valid, invalid, latencies, wrong, examples


def built_with_asan(binary):
    """Whether `binary` links AddressSanitizer's runtime (GCC links libasan dynamically)."""
    done = subprocess.run(["ldd", binary], capture_output=True, text=True)
    return "libasan" in done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--client", required=True, help="the tsserve-client binary")
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--warmup-s", type=float, default=None, help="default: 20%% of the run, at most 60")
    parser.add_argument("--sample-s", type=float, default=2.0, help="seconds between RSS samples")
    parser.add_argument("--concurrency", type=int, default=2, help="bench calls in flight")
    parser.add_argument("--out", required=True)
    parser.add_argument("--png", action="store_true", help="draw OUT/memory.png")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    warmup = args.warmup_s if args.warmup_s is not None else min(60.0, 0.2 * args.seconds)

    import oip_client_check  # generates the v1 and OIP stubs into a folder of ours
    oip_client_check.generate_stubs(os.path.join(args.out, "stubs"))
    import grpc
    from inference import grpc_service_pb2 as oip, grpc_service_pb2_grpc as oip_grpc
    from tsserve.v1 import forecast_service_pb2 as v1, forecast_service_pb2_grpc as v1_grpc

    server, port, metrics_port = start_tsserve(args.tsserve, args.out)
    failures = []
    try:
        channel = grpc.insecure_channel("127.0.0.1:%d" % port)
        info = v1_grpc.ForecastServiceStub(channel).GetModelInfo(v1.GetModelInfoRequest(), timeout=30).info
        mix = RequestMix(grpc, v1, v1_grpc, oip, oip_grpc, channel, info, MESSAGE_LIMIT)
        sampler = RssSampler(server.pid, os.path.join(args.out, "memory.csv"), args.sample_s)
        sampler.start()
        print("soak: tsserve pid %d (%s, T=%d), %.0f s, warm-up %.0f s, bench concurrency %d, "
              "%d valid and %d invalid request kinds" % (server.pid, info.name, info.seq_len, args.seconds,
                                                         warmup, args.concurrency, len(mix.valid),
                                                         len(mix.invalid)), flush=True)
        bench_out = os.path.join(args.out, "bench.json")
        with open(bench_out, "w") as out, open(os.path.join(args.out, "bench.stderr"), "w") as err:
            bench = subprocess.Popen(
                [args.client, "bench", "--target", "127.0.0.1:%d" % port, "--concurrency",
                 str(args.concurrency), "--duration-s", str(args.seconds), "--warmup-s", "0", "--json"],
                stdout=out, stderr=err)
        valid, invalid, latencies, wrong, examples = drive_mix(mix, args.seconds)
        bench_rc = bench.wait(timeout=args.seconds + 300)
        sampler.stop()
        codes = server_codes(metrics_port)
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        try:
            server_rc = server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            server.kill()
            server_rc = "killed after 120 s"

    with open(bench_out) as f:
        text = f.read()
    bench_json = json.loads(text) if text.strip() else {"stages": [{}]}
    stage = bench_json["stages"][0]
    memory = flatness(sampler.samples, warmup)

    valid_errors = sum(n for counts in valid.values() for code, n in counts.items() if code != "OK")
    valid_ok = sum(counts["OK"] for counts in valid.values())
    invalid_total = sum(sum(c.values()) for c in invalid.values())
    bad_codes = {k: v for k, v in codes.items() if k in ("INTERNAL", "UNKNOWN", "DATA_LOSS") and v}
    if bench_rc != 0:
        failures.append("bench exited %s (see bench.stderr)" % bench_rc)
    if stage.get("requests_failed", 1) != 0:
        failures.append("bench: %s valid calls failed: %s" % (stage.get("requests_failed"), stage.get("errors")))
    if valid_errors:
        failures.append("python valid calls: %d errors: %s" % (valid_errors, {k: dict(v) for k, v in valid.items()}))
    if wrong:
        failures.append("invalid calls with unexpected codes:\n    " + "\n    ".join(wrong))
    if bad_codes:
        failures.append("server counted %s" % bad_codes)
    if memory is None:
        failures.append("too few memory samples after the warm-up")
    elif not memory["flat"] and built_with_asan(args.tsserve):
        print("memory: not judged: tsserve is built with AddressSanitizer, whose quarantine "
              "holds freed memory (256 MiB by default), so RSS climbs by design; "
              "LeakSanitizer checks for leaks at exit instead")
    elif not memory["flat"]:
        failures.append("RSS grew %.1f MiB (%.1f%%) after the warm-up; limit %.1f MiB" % (
            memory["growth_kib"] / 1024, memory["growth_percent"], memory["limit_kib"] / 1024))
    if server_rc != 0:
        failures.append("tsserve exit status %s after SIGTERM, expected 0" % server_rc)

    bench_latency = stage.get("latency_ms", {})
    summary = {
        "seconds": args.seconds, "warmup_seconds": warmup, "bench_concurrency": args.concurrency,
        "valid": {"bench_ok": stage.get("requests_ok"), "bench_failed": stage.get("requests_failed"),
                  "bench_rps": stage.get("throughput_rps"), "bench_latency_ms": bench_latency,
                  "python_ok": valid_ok, "python_errors": valid_errors,
                  "python_latency_ms": {"p50": 1e3 * percentile(latencies, 0.5),
                                        "p99": 1e3 * percentile(latencies, 0.99)},
                  "by_kind": {k: dict(v) for k, v in valid.items()}},
        "invalid": {"total": invalid_total, "by_kind": {k: dict(v) for k, v in invalid.items()},
                    "expected": {name: code.name for name, _, code in mix.invalid},
                    "example_messages": {k: v for k, v in examples.items() if k in invalid}},
        "server_requests_total_by_code": codes, "memory": memory, "tsserve_exit": server_rc,
        "failures": failures}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print_summary(summary, mix)
    if args.png and memory:
        from plot_memory import plot
        plot(os.path.join(args.out, "memory.csv"), os.path.join(args.out, "memory.png"), warmup, memory)
        print("memory curve: %s" % os.path.join(args.out, "memory.png"))
    for failure in failures:
        print("FAIL: " + failure)
    print("soak %s" % ("FAILED" if failures else "passed"))
    return 1 if failures else 0


def print_summary(s, mix):
    v, i, m = s["valid"], s["invalid"], s["memory"]
    lat = v["bench_latency_ms"]
    print("valid:   bench %s ok, %s failed, %.0f req/s, p50 %.2f ms, p99 %.2f ms (concurrency %d)" % (
        v["bench_ok"], v["bench_failed"], v["bench_rps"] or 0, lat.get("p50", float("nan")),
        lat.get("p99", float("nan")), s["bench_concurrency"]))
    print("         python mix %d ok, %d errors, p50 %.2f ms, p99 %.2f ms over %d shapes" % (
        v["python_ok"], v["python_errors"], v["python_latency_ms"]["p50"], v["python_latency_ms"]["p99"],
        len(v["by_kind"])))
    print("invalid: %d calls over %d kinds, codes %s" % (
        i["total"], len(i["by_kind"]),
        dict(sum((collections.Counter(c) for c in i["by_kind"].values()), collections.Counter()))))
    print("server requests_total by code: %s" % {k: n for k, n in s["server_requests_total_by_code"].items() if n})
    if m:
        print("memory:  RSS after warm-up %.1f MiB, at the end %.1f MiB, growth %+.1f MiB (%+.2f%%, "
              "limit %.1f MiB), slope %+.2f MiB/min, peak %.1f MiB" % (
                  m["start_kib"] / 1024, m["end_kib"] / 1024, m["growth_kib"] / 1024, m["growth_percent"],
                  m["limit_kib"] / 1024, m["slope_kib_per_min"] / 1024, m["peak_kib"] / 1024))


if __name__ == "__main__":
    sys.exit(main())
