"""Replica loss: three real tsserve processes on loopback, the real `tsserve-client bench`
balancing round-robin across them (closed loop, so every replica always has calls in
flight); one replica is killed with SIGKILL mid-run, then restarted on the same port.

Checks:
- only the killed replica's calls fail: the other two have no error, and the bench's OK
  count for each equals that server's own count (nothing lost, nothing double-counted);
- the killed replica's failures are at most the calls in flight on it (the bench's
  concurrency; the round-robin skips a replica whose connection is down), at least one;
  their codes are reported;
- the other two keep serving while it is down (each answers --phase-calls more);
- the restarted replica comes back into rotation: the new process answers
  --phase-calls Forecasts, and the bench's OK count for that address holds them beside
  what the old process answered before the kill (less the calls that failed: the old
  process may count an answer as sent just before it dies with it);
- all three drain on SIGTERM and exit 0.

Prints errors per replica with their codes, throughput per phase and the recovery time.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tsserve_fleet import (BackgroundBench, Server, check, fleet_arguments,  # noqa: E402
                           run_main, wait_until)


def parse_args():
    parser = fleet_arguments(__doc__)
    parser.add_argument("--concurrency", type=int, default=12)
    parser.add_argument("--phase-calls", type=int, default=100,
                        help="Forecasts each live replica answers in each phase")
    return parser.parse_args()


def ok_counts(servers):
    return {s.name: s.forecasts() for s in servers}


def main():
    args = parse_args()
    os.makedirs(args.work, exist_ok=True)
    servers = [Server(args.tsserve, args.work, name, ["--log-level", "warn"]) for name in ("a", "b", "c")]
    a, b, c = servers
    survivors = [a, c]
    bench = BackgroundBench(args.client, [s.target for s in servers],
                            ["--concurrency", args.concurrency, "--duration-s", 600, "--warmup-s", 0])
    phases = {}
    try:
        started = time.monotonic()
        wait_until(lambda: min(ok_counts(servers).values()) >= args.phase_calls, 120,
                   "every replica to answer %d Forecasts" % args.phase_calls)
        before = ok_counts(servers)
        phases["all three"] = (sum(before.values()), time.monotonic() - started)

        b_inflight = b.metric_sum("tsserve_inflight_requests")  # a moment before the kill
        b.kill9()
        killed_at = time.monotonic()
        wait_until(lambda: all(s.forecasts() >= before[s.name] + args.phase_calls for s in survivors), 120,
                   "a and c to answer %d more Forecasts each with b down" % args.phase_calls)
        during = {s.name: s.forecasts() - before[s.name] for s in survivors}
        phases["b down"] = (sum(during.values()), time.monotonic() - killed_at)

        b.restart()
        restarted_at = time.monotonic()
        back = wait_until(lambda: b.forecasts() >= 1 and time.monotonic(), 120,
                          "the restarted b to answer a Forecast")
        wait_until(lambda: b.forecasts() >= args.phase_calls, 120,
                   "the restarted b to answer %d Forecasts" % args.phase_calls)
        after_restart = ok_counts(servers)
        stage = bench.stop()["stages"][0]
        after = ok_counts(servers)  # the bench has stopped: final counts
        phase_s = time.monotonic() - restarted_at
        phases["b back"] = (after["b"] + sum(after[s.name] - before[s.name] - during[s.name]
                                             for s in survivors), phase_s)
        exits = {s.name: s.terminate()[0] for s in servers}
    finally:
        bench.ensure_stopped()
        for s in servers:
            s.ensure_stopped()

    per_target = stage["targets"]
    name_of = {s.target: s.name for s in servers}
    print("replica loss: 3 replicas, closed loop concurrency %d, b killed (SIGKILL) mid-run and "
          "restarted on its port %d" % (args.concurrency, b.port))
    for target, counts in per_target.items():
        print("  %s (%s): ok %d, errors %d %s" % (name_of[target], target, counts["ok"], counts["errors"],
                                                 counts["errors_by_code"] or ""))
    print("  b had %d calls in flight (its own gauge) a moment before the kill" % b_inflight)
    for phase, (calls, seconds) in phases.items():
        print("  %-10s %6d Forecasts in %5.2f s = %7.1f req/s" % (phase, calls, seconds, calls / seconds))
    print("  b back in rotation %.2f s after its restart began (first Forecast answered by the new "
          "process); the new process answered %d, the old one %d before the kill" % (
              back - restarted_at, after["b"], before["b"]))
    print("  exits after SIGTERM: %s" % exits)

    failed = {name_of[t]: counts["errors"] for t, counts in per_target.items() if counts["errors"]}
    check(set(failed) <= {"b"}, "replicas other than b had failures: %s" % failed)
    for s in survivors:
        check(per_target[s.target]["ok"] == after[s.name],
              "%s: the bench counted %d OK, the server answered %d" % (
                  s.name, per_target[s.target]["ok"], after[s.name]))
    b_errors = per_target[b.target]["errors"]
    check(1 <= b_errors <= args.concurrency,
          "b's failed calls: %d; expected its calls in flight (1..%d)" % (b_errors, args.concurrency))
    check(per_target[b.target]["ok"] >= before["b"] - b_errors + after["b"],
          "the bench's OK count for b (%d) does not hold the old process's %d (less %d failed) and "
          "the new one's %d" % (per_target[b.target]["ok"], before["b"], b_errors, after["b"]))
    check(after_restart["b"] >= args.phase_calls, "the restarted b did not rejoin")
    check(all(code == 0 for code in exits.values()), "exit codes after SIGTERM: %s" % exits)
    print("PASS: only b's %d calls in flight failed, a and c carried on, b rejoined" % b_errors)


if __name__ == "__main__":
    run_main(main)
