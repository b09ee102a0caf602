"""Overload: a real tsserve driven past its capacity with the real `tsserve-client bench`.

1. Capacity: closed-loop saturation (--concurrency), the OK requests per second.
2. Open loop at several multiples of it (--rate), a few seconds each: the server must
   shed with RESOURCE_EXHAUSTED and nothing else (at the highest multiple always; at a
   lower one unless it kept up, serving 90% of the offered rate, as it may when other
   processes slowed the capacity stage down), answer the shed calls at once (faster than
   the admitted ones), keep the admitted calls' p99 bounded, and keep its resident
   memory bounded.
3. Recovery: open loop at a quarter of the capacity, every call OK.
4. SIGTERM: drained, exit 0.

Bounds are derived from the run itself, never absolute times: admitted p99 at every
multiple <= 2 x (max_queue_wait + 3 x the server's p99 batch compute time at that
multiple) + the closed-loop p99 at saturation, which covers the expected queue wait
(max_queue_wait), the batch running when a request arrives, its own batch, and the
client's and gRPC's own costs. Queue: the most calls the server held in flight
(tsserve_inflight_requests, sampled) at the highest multiple <= 2 x that at the lowest
multiple that shed + 2 x the concurrency: it must not grow with the offered load, as a queue without bound
would (by thousands: the excess offered over a stage). Memory: the peak RSS at every
multiple <= 2 x the peak at saturation + 64 MiB: overload batches are larger (up to 448
rows) than saturation's, so the model's activations take more. RSS is not compared
between multiples: it moves in steps (larger batches; glibc keeping freed memory in its
arenas), so one multiple can sit a step below the next (CI once saw 265 MiB at 2x, 363
and 366 MiB at 4x and 8x, and 366 MiB after recovery: a plateau, not growth).

--max-queue-wait-ms 0 runs the server with only the row bound (the default), to show
the difference; the p99 bound is then not checked (it is what that mode lacks).
Prints the figures; exit 0 when every check held, 1 otherwise (--report-only: print what
failed, exit 0).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tsserve_fleet import (Failure, Server, ServerPeaks, check, fleet_arguments,  # noqa: E402
                           fmt_ms, run_bench, run_main, stage_errors)


def parse_args():
    parser = fleet_arguments(__doc__)
    parser.add_argument("--stage-s", type=float, default=3.0, help="seconds recorded per stage")
    parser.add_argument("--multiples", default="2,4,8", help="open-loop rates, x capacity")
    # 8 in flight saturate the one instance (here 188 req/s at 8, 134 at 16, one run each) while
    # keeping a closed loop's queue wait (~concurrency / capacity) well under the default
    # 100 ms bound; at 16 it sat at ~120 ms on a slow run and the capacity stage shed.
    parser.add_argument("--concurrency", type=int, default=8, help="closed loop for capacity")
    parser.add_argument("--max-queue-wait-ms", type=float, default=100.0,
                        help="the server's time bound; 0 = rows only (the default server)")
    parser.add_argument("--threads", type=int, default=1, help="the server's intra-op threads")
    parser.add_argument("--report-only", action="store_true",
                        help="print the checks that failed instead of failing")
    return parser.parse_args()


def stage_figures(stage, peaks):
    errors = stage_errors(stage)
    sent = stage["requests_ok"] + stage["requests_failed"]
    shed = errors.get("RESOURCE_EXHAUSTED", 0)
    shed_latency = stage["error_latency_ms"].get("RESOURCE_EXHAUSTED", {})
    return {
        "sent": sent,
        "not_sent": stage["not_sent"],
        "ok": stage["requests_ok"],
        "shed": shed,
        "shed_rate": shed / sent if sent else 0.0,
        "other_errors": {c: n for c, n in errors.items() if c != "RESOURCE_EXHAUSTED"},
        "goodput_rps": stage["throughput_rps"],
        "p50_ms": stage["latency_ms"]["p50"],
        "p99_ms": stage["latency_ms"]["p99"],
        "shed_p50_ms": shed_latency.get("p50", 0.0),
        "shed_p99_ms": shed_latency.get("p99", 0.0),
        "compute_p99_ms": stage["server"]["compute_ms"]["p99"],
        "batch_rows": stage["server"]["batch_rows_mean"],
        "peak_rss_mib": peaks.peak_kib / 1024.0,
        "peak_inflight": peaks.peak_inflight,
    }


def print_table(rows):
    print("%-12s %9s %7s %7s %7s %9s %9s %9s %9s %9s %6s %8s %8s" % (
        "load", "offered/s", "ok", "shed", "shed %", "goodput/s", "ok p50ms", "ok p99ms",
        "shed p50", "shed p99", "rows/b", "RSS MiB", "inflight"))
    for label, offered, f in rows:
        print("%-12s %9.0f %7d %7d %6.1f%% %9.1f %9s %9s %9s %9s %6.0f %8.1f %8d" % (
            label, offered, f["ok"], f["shed"], 100 * f["shed_rate"], f["goodput_rps"],
            fmt_ms(f["p50_ms"]), fmt_ms(f["p99_ms"]), fmt_ms(f["shed_p50_ms"]),
            fmt_ms(f["shed_p99_ms"]), f["batch_rows"], f["peak_rss_mib"], f["peak_inflight"]))


def main():
    args = parse_args()
    os.makedirs(args.work, exist_ok=True)
    wait_ms = args.max_queue_wait_ms
    # The model must be what saturates, as the bounds assume: with the fused kernels on
    # both cores the server answers ~2,500 req/s, and at 8x that the load generator and
    # gRPC on the same 2 cores saturate first (shed calls then wait on the client's CPU,
    # not the server). LibTorch's kernels on one instance keep the model the bottleneck.
    server_args = ["--threads", args.threads, "--max-queue-wait-ms", wait_ms, "--log-level", "warn",
                   "--cpu-kernels", "torch", "--instances", "1"]
    server = Server(args.tsserve, args.work, "overload-tsserve", [str(a) for a in server_args])
    bench = lambda extra: run_bench(args.client, [server.target], extra)  # noqa: E731
    failures = []
    rows = []
    refusal = ""  # what a shed call was told
    try:
        with ServerPeaks(server) as peaks:
            saturation = bench(["--concurrency", args.concurrency, "--duration-s", args.stage_s,
                                "--warmup-s", 1])["stages"][0]
        base = stage_figures(saturation, peaks)
        capacity = saturation["throughput_rps"]
        # A closed loop on a machine slowed by other processes can still push the queue wait
        # past the bound: shedding then is the server doing its job, not a failure. Any other
        # error, or nothing served, is.
        other = {c: n for c, n in stage_errors(saturation).items() if c != "RESOURCE_EXHAUSTED"}
        check(capacity > 0 and not other,
              "saturation stage: %g req/s, errors %s" % (capacity, stage_errors(saturation)))
        rows.append(("conc %d" % args.concurrency, capacity, base))
        print("capacity: %.1f req/s (%.0f rows/s) at concurrency %d; p50 %.1f ms, p99 %.1f ms; "
              "peak RSS %.1f MiB" % (capacity, saturation["rows_per_second"], args.concurrency,
                                    base["p50_ms"], base["p99_ms"], base["peak_rss_mib"]))

        multiples = [float(m) for m in args.multiples.split(",")]
        for multiple in multiples:
            rate = multiple * capacity
            with ServerPeaks(server) as peaks:
                stage = bench(["--rate", "%.1f" % rate, "--duration-s", args.stage_s,
                               "--warmup-s", 0.5])["stages"][0]
            f = stage_figures(stage, peaks)
            rows.append(("%gx open" % multiple, rate, f))
            label = "%gx capacity" % multiple
            if f["other_errors"]:
                failures.append("%s: errors other than RESOURCE_EXHAUSTED: %s" % (label, f["other_errors"]))
            why = stage["error_examples"].get("RESOURCE_EXHAUSTED", "")
            refusal = refusal or why
            if f["shed"] and wait_ms > 0 and "max_queue_wait_ms" not in why:
                failures.append("%s: the refusal does not name max_queue_wait_ms: %r" % (label, why))
            # Other processes on the machine can make the capacity stage slow and a later stage
            # fast: a stage the server kept up with (served at least 90% of what was offered)
            # had nothing to shed. The highest multiple must always shed.
            kept_up = f["goodput_rps"] >= 0.9 * rate
            if f["shed"] == 0 and (multiple == max(multiples) or not kept_up):
                failures.append("%s: nothing was shed (goodput %.1f of %.1f req/s offered)" % (
                    label, f["goodput_rps"], rate))
            if f["ok"] == 0:
                failures.append("%s: nothing was served" % label)
            elif f["shed"] and f["shed_p50_ms"] > f["p50_ms"]:
                failures.append("%s: shed calls (p50 %.1f ms) were answered slower than admitted "
                                "ones (p50 %.1f ms)" % (label, f["shed_p50_ms"], f["p50_ms"]))
            if wait_ms > 0:
                bound = 2 * (wait_ms + 3 * f["compute_p99_ms"]) + base["p99_ms"]
                if f["p99_ms"] > bound:
                    failures.append("%s: admitted p99 %.1f ms > bound %.1f ms" % (label, f["p99_ms"], bound))
            rss_bound = 2 * base["peak_rss_mib"] + 64
            if f["peak_rss_mib"] > rss_bound:
                failures.append("%s: peak RSS %.1f MiB > bound %.1f MiB" % (label, f["peak_rss_mib"], rss_bound))
        # Compared only between multiples that shed: one the server kept up with held a
        # short queue, as it should.
        shedding = [row for row in rows[1:] if row[2]["shed"]]
        if len(shedding) >= 2:
            lowest, highest = shedding[0][2]["peak_inflight"], shedding[-1][2]["peak_inflight"]
            if highest > 2 * lowest + 2 * args.concurrency:
                failures.append("the calls held in flight grew with the load: %d at %s, %d at %s" % (
                    lowest, shedding[0][0], highest, shedding[-1][0]))

        recovery_rate = capacity / 4
        with ServerPeaks(server) as peaks:
            recovery = bench(["--rate", "%.1f" % recovery_rate, "--duration-s", args.stage_s,
                              "--warmup-s", 0.5])["stages"][0]
        f = stage_figures(recovery, peaks)
        rows.append(("0.25x open", recovery_rate, f))
        if stage_errors(recovery) or recovery["requests_ok"] == 0:
            failures.append("recovery at 0.25x: %d ok, errors %s" % (recovery["requests_ok"],
                                                                     stage_errors(recovery)))
        code, seconds = server.terminate()
        if code != 0:
            failures.append("SIGTERM: exit %d" % code)

        print("tsserve --max-queue-wait-ms %g (%s), %s s per stage; latency from the scheduled "
              "send; shed = RESOURCE_EXHAUSTED" % (wait_ms, "time bound" if wait_ms > 0 else
                                                   "rows bound only", args.stage_s))
        print_table(rows)
        print("a shed call is told: %s" % (refusal or "(none shed)"))
        print("drain after the run: exit %d in %.2f s" % (code, seconds))
    finally:
        server.ensure_stopped()
    if failures and args.report_only:
        print("checks that did not hold (reported only):\n  " + "\n  ".join(failures))
        return
    if failures:
        raise Failure("; ".join(failures))
    print("PASS: overload shed with RESOURCE_EXHAUSTED only, bounded memory%s, recovered" %
          (", bounded admitted p99" if wait_ms > 0 else ""))


if __name__ == "__main__":
    run_main(main)
