"""Observe on the in-process series store against the shared one in Redis (issue 46), one
machine, side by side: tests/bench/observe_bench (gRPC Observe, one new point per call,
with and without the next forecast) at concurrency 1 and 8 against one tsserve on its
in-process store, then against one tsserve on a local redis-server; and Redis's memory per
key (INFO memory's used_memory before and after the keys' setup and their calls).

    /usr/bin/python3 tests/bench/series_store.py --tsserve build/server/tsserve \\
        --observe-bench build/tests/bench/observe_bench [--seconds 5] [--keys 200] [--json OUT]

redis-server runs as a deployment would: AOF on, fsynced every second (`--appendfsync
everysec`). Each (store, concurrency) run gets a fresh server and an empty Redis, so one
run's keys cannot slow the next. Prints every phase's p50, p99, points/s and CPU per call
(tsserve, redis-server, the client: one machine's cores serve all three) and the goal
line: Observe with the next forecast through Redis at >= 0.8x the in-process store's
points/s at concurrency 8 (printed with its ratio; a benchmark, not a test: the exit status
is 0 whatever the ratio, as run_benchmarks.py's other targets, which report a verdict)."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scaleout"))
import cluster  # noqa: E402

GOAL = 0.8


def used_memory(redis):
    for line in redis.cli("INFO", "memory").splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1])
    raise cluster.Failure("INFO memory has no used_memory")


def run_one(opts, work, store, concurrency):
    """observe_bench's JSON for one store ("memory" or "redis") at one concurrency, with
    Redis's memory per key for the redis store."""
    folder = cluster.fresh_folder(os.path.join(work, "%s-%d" % (store, concurrency)))
    with cluster.Cleanup() as cleanup:
        redis = cleanup.add(cluster.Redis(folder, appendfsync="everysec")) if store == "redis" else None
        server = cleanup.add(cluster.start_server(opts.tsserve, folder, "tsserve",
                                                  store_url=redis.url if redis else None))
        before = used_memory(redis) if redis else 0
        out = subprocess.run(
            [opts.observe_bench, "--target", server.target, "--metrics-port",
             str(server.metrics_port), "--server-pid", str(server.pid), "--keys", str(opts.keys),
             "--store-pid", str(redis.process.pid if redis else 0),
             "--concurrency", str(concurrency), "--seconds", str(opts.seconds),
             "--phases", "observe,forecast", "--json"],
            capture_output=True, text=True, timeout=600)
        cluster.check(out.returncode == 0, "observe_bench exited %d: %s" % (
            out.returncode, out.stderr[-2000:]))
        result = json.loads(out.stdout)
        result["store"], result["concurrency"] = store, concurrency
        if redis:
            result["redis_bytes_per_key"] = (used_memory(redis) - before) / opts.keys
            result["redis_keys"] = int(redis.cli("DBSIZE") or 0)
            # A window is two Redis keys (window_layout.h): its hash and its ring.
            heads = redis.cli("--scan", "--pattern", "tsserve:w:*").split()[:20]
            sizes = [sum(int(redis.cli("MEMORY", "USAGE", key) or 0)
                         for key in (head, head.replace("tsserve:w:", "tsserve:wv:", 1)))
                     for head in heads]
            result["redis_window_bytes"] = sum(sizes) / len(sizes) if sizes else 0
            # A kept forecast (forecast_layout.h) is one value; the scored marks are a hash
            # per reported time of a key (redis_kept_forecasts.h), one field per column.
            forecasts = redis.cli("--scan", "--pattern", "tsserve:f:*").split()[:20]
            sizes = [int(redis.cli("MEMORY", "USAGE", key) or 0) for key in forecasts]
            result["redis_forecast_bytes"] = sum(sizes) / len(sizes) if sizes else 0
            marks = redis.cli("--scan", "--pattern", "tsserve:fx:*").split()[:20]
            sizes = [int(redis.cli("MEMORY", "USAGE", key) or 0) for key in marks]
            result["redis_marks_bytes"] = sum(sizes) / len(sizes) if sizes else 0
            result["forecasts_per_key"] = sum(
                p["calls"] for p in result["phases"] if p["name"] == "forecast") / opts.keys
        return result


def phase(result, name):
    return next(p for p in result["phases"] if p["name"] == name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--observe-bench", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--json", help="write the runs and the ratio here")
    opts = parser.parse_args()
    cluster.skip_unless_installed()
    work = tempfile.mkdtemp(prefix="series-store-bench-")
    runs = [run_one(opts, work, store, c) for c in (1, 8) for store in ("memory", "redis")]
    print("| store | concurrency | phase | p50 ms | p99 ms | points/s | errors "
          "| CPU us per call: tsserve | redis-server | client |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        for p in r["phases"]:
            print("| %s | %d | %s | %.3f | %.3f | %.0f | %d | %.0f | %.0f | %.0f |" % (
                r["store"], r["concurrency"], p["name"], p["p50_ms"], p["p99_ms"],
                p["points_per_s"], p["errors"], p["server_cpu_us_per_call"],
                p["store_cpu_us_per_call"], p["client_cpu_us_per_call"]))
    redis8 = next(r for r in runs if r["store"] == "redis" and r["concurrency"] == 8)
    memory8 = next(r for r in runs if r["store"] == "memory" and r["concurrency"] == 8)
    ratio = phase(redis8, "forecast")["points_per_s"] / phase(memory8, "forecast")["points_per_s"]
    print("Redis memory per key: its window %.0f bytes (MEMORY USAGE of its hash and ring, %d x "
          "%d float32 values); each kept forecast %.0f bytes (MEMORY USAGE of its value); "
          "the scored marks of each observed time %.0f bytes; in all %.0f bytes per key (used_memory growth over %d keys after %.0f "
          "forecasts each, kept for --forecast-store-max-age-s; %d Redis keys)" % (
              redis8["redis_window_bytes"], redis8["history"], redis8["variables"],
              redis8["redis_forecast_bytes"], redis8["redis_marks_bytes"],
              redis8["redis_bytes_per_key"], opts.keys,
              redis8["forecasts_per_key"], redis8["redis_keys"]))
    print("Goal: Observe with the next forecast through Redis at concurrency 8: %.2fx the "
          "in-process store's points/s (goal >= %.1fx: %s)" % (
              ratio, GOAL, "met" if ratio >= GOAL else "NOT met"))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"runs": runs, "ratio": ratio, "goal": GOAL, "keys": opts.keys,
                       "seconds": opts.seconds}, f, indent=1)


if __name__ == "__main__":
    cluster.run_main(main)
