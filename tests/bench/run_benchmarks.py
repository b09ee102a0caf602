"""Measures tsserve against its limit and its alternatives and writes BENCHMARKS.md.

    bash tests/bench/run.sh [--duration 5] [--threads 1] [--device cpu] [--quick]

(run.sh builds the binaries, then runs this with /usr/bin/python3.) Every figure comes from
this one run on this machine, side by side:
  1. the limit: in-process forward throughput of the bundled model at the batch sizes the
     server formed, same threads, on the forward the server runs (the fused CPU kernels,
     --cpu-kernels fused, the default) and on LibTorch's; the fused forward in one process
     per core at once (the all-cores limit); and a tiny model's forward, to expose serving
     overhead;
  2. tsserve over gRPC on loopback, closed-loop concurrency sweep (tsserve-client bench);
  3. the same sweep with batching off (a batch is one request), and with two model
     instances (--instances 2: two batcher workers, one per core);
  4. a Python gRPC server with the same weights in PyTorch eager (tests/bench/python_server.py);
  5. Full vs ProbSparse vs Informer's naive ProbSparse attention, time and peak memory;
  6. the cost of a request with attention maps vs without;
  7. the gRPC floor: a server of the same protocol that computes nothing
     (tests/bench/grpc_floor_server.cpp), answering inline or from a worker thread, with the
     bundled and the tiny model's request shapes: what tsserve's serving overhead is
     measured against.
Tables, the targets' verdicts and PNG plots (docs/bench/) go to BENCHMARKS.md, whole: it
holds nothing else, and ends with a link to the analysis by hand, docs/performance.md.
"""

import argparse
import datetime
import json
import os
import platform
import re
import resource
import select
import signal
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = "/usr/bin/python3"  # the Python that sees Debian's torch and grpcio
# tsserve's default --idle-spin-us (server/config/server_config.h); the floor server's worker
# polls as long, so the floor has tsserve's hand-off.
IDLE_SPIN_US = 1000


def log(message):
    print("[bench] " + message, file=sys.stderr, flush=True)


class Server:
    """A server process on loopback port 0; its first stdout line names the gRPC port."""

    def __init__(self, argv, name):
        self.argv, self.name = argv, name

    def __enter__(self):
        self.log = tempfile.NamedTemporaryFile(prefix=self.name + "-", suffix=".log", delete=False)
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=self.log, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 180)
        line = self.process.stdout.readline() if ready else ""
        if "grpc_port=" not in line:
            self.process.kill()
            raise RuntimeError("%s did not start: %r; log %s" % (self.name, line, self.log.name))
        self.target = "127.0.0.1:" + line.split("grpc_port=")[1].split()[0]
        self.metrics_port = (int(line.split("metrics_port=")[1].split()[0])
                             if "metrics_port=" in line else 0)
        return self

    def __exit__(self, *exc):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.unlink(self.log.name)


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.client = os.path.join(self.build, "client", "tsserve-client")
        self.tsserve = os.path.join(self.build, "server", "tsserve")
        self.model_bench = os.path.join(self.build, "tests", "bench", "model_bench")
        self.floor_server = os.path.join(self.build, "tests", "bench", "grpc_floor_server")
        self.observe_bench = os.path.join(self.build, "tests", "bench", "observe_bench")
        self.results = {}

    # ------------------------------------------------------------------ runners

    def tsserve_server(self, *extra):
        argv = [self.tsserve, "--grpc-address", "127.0.0.1:0", "--http-address", "", "--metrics-address", "",
                "--threads", str(self.args.threads), "--device", self.args.device,
                "--log-level", "warn"] + list(extra)
        return Server(argv, "tsserve")

    def python_server(self):
        argv = [PYTHON, os.path.join(ROOT, "tests", "bench", "python_server.py"),
                "--threads", str(self.args.threads), "--workers", "16"]
        return Server(argv, "python-server")

    def sweep(self, target, label, concurrency=None, extra=(), warmup=None):
        concurrency = concurrency or self.args.concurrency
        warmup = self.args.warmup if warmup is None else warmup
        log("%s: concurrency %s" % (label, concurrency))
        out = subprocess.run(
            [self.client, "bench", "--target", target, "--concurrency", concurrency,
             "--duration-s", str(self.args.duration), "--warmup-s", str(warmup),
             "--timeout-ms", "60000", "--json"] + list(extra),
            check=True, capture_output=True, text=True).stdout
        return json.loads(out)["stages"]

    def live_series(self):
        """observe_bench on one server with metrics: Observe (one new point, with and without
        the next forecast) against Forecast calls resending the whole window."""
        runs = []
        with self.tsserve_server("--metrics-address", "127.0.0.1:0") as server:
            for concurrency, keys in ((1, 1000), (8, 1000)):
                log("live series: concurrency %d, %d keys" % (concurrency, keys))
                out = subprocess.run(
                    [self.observe_bench, "--target", server.target, "--metrics-port",
                     str(server.metrics_port), "--server-pid", str(server.process.pid),
                     "--keys", str(keys), "--concurrency", str(concurrency),
                     "--seconds", str(self.args.duration), "--json"],
                    check=True, capture_output=True, text=True).stdout
                runs.append(json.loads(out))
        return runs

    def series_store(self):
        """Observe on the in-process store against the shared one in a local Redis
        (tests/bench/series_store.py): concurrency 1 and 8, Redis memory per key."""
        log("series store: in-process vs Redis")
        out = os.path.join(self.build, "series_store.json")
        subprocess.run([PYTHON, os.path.join(ROOT, "tests", "bench", "series_store.py"),
                        "--tsserve", self.tsserve, "--observe-bench", self.observe_bench,
                        "--seconds", str(self.args.duration), "--json", out],
                       check=False, capture_output=True, text=True)
        if not os.path.exists(out):  # redis-server missing (deploy/install-deps.sh) or a failure
            return None
        with open(out) as f:
            return json.load(f)

    def http_under_attack(self):
        """Legitimate JSON forecasts (wrk, concurrency 8) with and without 4 connections
        sending 16 MiB hostile bodies, alternating (tests/bench/http_under_attack.py)."""
        log("HTTP under attack: %d rounds" % 3)
        out = os.path.join(self.build, "http_under_attack.json")
        subprocess.run([PYTHON, os.path.join(ROOT, "tests", "bench", "http_under_attack.py"),
                        "--tsserve", self.tsserve, "--seconds", str(max(1, int(self.args.duration))),
                        "--rounds", "3", "--json", out], check=False, capture_output=True, text=True)
        with open(out) as f:
            return json.load(f)

    def bench_env(self, count_memory=False):
        # Counting allocations (for the attention benchmarks' peak memory) slows a forward
        # by 15-30 %: the limit is measured with LibTorch's own allocator, as the server runs.
        return dict(os.environ, TSSERVE_BENCH_THREADS=str(self.args.threads),
                    TSSERVE_BENCH_COUNT_MEMORY="1" if count_memory else "0")

    def run_model_bench(self, pattern, extra_rows=(), count_memory=False):
        env = self.bench_env(count_memory)
        if extra_rows:
            env["TSSERVE_BENCH_ROWS"] = ",".join(str(r) for r in extra_rows)
        log("model_bench %s" % pattern)
        out = subprocess.run(
            [self.model_bench, "--benchmark_filter=" + pattern, "--benchmark_format=json",
             "--benchmark_min_time=%g" % self.args.min_time],
            check=True, capture_output=True, text=True, env=env).stdout
        parsed = json.loads(out)
        # Which kernels ran (CPU flags, fused ISA, ATen capability, OpenBLAS core type).
        kernels = parsed.get("context", {}).get("kernels")
        if kernels:
            self.results.setdefault("machine", {})["kernels"] = kernels
        return parsed["benchmarks"]

    def export_onnx(self):
        """The bundled model exported to ONNX (checked against PyTorch by the exporter), or
        None when tests/bench/onnx has no node_modules (run.sh installs it)."""
        here = os.path.join(ROOT, "tests", "bench", "onnx")
        if not os.path.isdir(os.path.join(here, "node_modules", "onnxruntime-node")):
            log("ONNX Runtime: %s/node_modules missing (npm install --ignore-scripts); skipped" % here)
            return None
        onnx_dir = os.path.join(self.build, "onnx")
        log("ONNX Runtime: export")
        subprocess.run([PYTHON, os.path.join(here, "export_onnx.py"), "--out", onnx_dir],
                       check=True, capture_output=True)
        return onnx_dir

    def run_onnx(self, onnx_dir):
        """ONNX Runtime (onnxruntime-node, one thread) on the exported bundled model at 7, 56
        and 448 rows."""
        log("ONNX Runtime: forward")
        script = os.path.join(ROOT, "tests", "bench", "onnx", "onnx_bench.js")
        out = subprocess.run(["node", script, onnx_dir, "%g" % self.args.min_time],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def fused_rounds(self, rounds=3):
        """The fused forward, the LibTorch forward, the FMA peak and ONNX Runtime, in turn
        within each round: this machine's speed drifts 10-30 % from one minute to the next,
        so each ratio is taken within a round and the report gives their median."""
        onnx_dir = self.export_onnx()
        return [{"bench": self.run_model_bench(
                     "BM_PatchTSTForward/rows:(7|56|448)/invariant:(0|1)$|BM_FusedForward/rows:(7|56|448)$"
                     "|BM_Roofline"),
                 "onnx": self.run_onnx(onnx_dir) if onnx_dir else None}
                for _ in range(rounds)]

    def own_share_rounds(self, rounds=3):
        """tsserve's own share at concurrency 1 with the bundled request, in alternating rounds:
        the in-process fused forward at 7 rows, the gRPC floor answered by a worker thread that
        polls as tsserve's batcher workers do, tsserve with its defaults, and tsserve with
        `--idle-spin-us 0` (what the idle spin buys). Each share is taken within a round."""
        request = ["--variables", "7", "--points", "336"]
        floor_argv = [self.floor_server, "--answer", "worker", "--horizon", "96",
                      "--idle-spin-us", str(IDLE_SPIN_US)]
        with Server(floor_argv, "grpc-floor") as floor, self.tsserve_server() as spin, \
                self.tsserve_server("--idle-spin-us", "0") as no_spin:
            return [{"forward": self.run_model_bench("BM_FusedForward/rows:7$"),
                     "floor": self.sweep(floor.target, "own share %d, floor" % (i + 1), "1", request)[0],
                     "tsserve": self.sweep(spin.target, "own share %d, tsserve" % (i + 1), "1")[0],
                     "no_spin": self.sweep(no_spin.target, "own share %d, no idle spin" % (i + 1), "1")[0]}
                    for i in range(rounds)]

    def cpu_per_call(self, server, concurrency, extra):
        """One closed-loop stage, with the CPU time the server and the client spent per call
        (us): what a call costs the machine, not only how long it takes."""
        before_server = process_cpu_seconds(server.process.pid)
        before_client = children_cpu_seconds()
        stage = self.sweep(server.target, "CPU per call", concurrency, extra, warmup=0)[0]
        calls = max(1, stage["requests_ok"])
        return {"stage": stage,
                "server_cpu_us": (process_cpu_seconds(server.process.pid) - before_server) / calls * 1e6,
                "client_cpu_us": (children_cpu_seconds() - before_client) / calls * 1e6}

    def forward_on_every_core(self, rows):
        """The server's forward (fused kernels) at `rows` rows, alone and in one process per
        core at once: how far the machine's cores add up (they share caches and memory
        bandwidth), the in-process limit on all cores."""
        pattern = "BM_FusedForward(At)?/rows:%d$" % rows
        alone = self.run_model_bench(pattern, [rows])
        log("model_bench %s in %d processes at once" % (pattern, os.cpu_count()))
        env = dict(self.bench_env(), TSSERVE_BENCH_ROWS=str(rows))
        processes = [subprocess.Popen(
            [self.model_bench, "--benchmark_filter=" + pattern, "--benchmark_format=json",
             "--benchmark_min_time=%g" % (2 * self.args.min_time)],
            stdout=subprocess.PIPE, text=True, env=env) for _ in range(os.cpu_count())]
        together = []
        for process in processes:
            out, _ = process.communicate()
            if process.returncode != 0:
                raise RuntimeError("model_bench failed with %d" % process.returncode)
            together.append(json.loads(out)["benchmarks"])
        rows_per_s = lambda benchmarks: statistics.mean(rows_per_second(b, rows) for b in benchmarks)  # noqa: E731
        return {"rows": rows, "alone_rows_per_s": rows_per_s(alone),
                "together_rows_per_s": sum(rows_per_s(b) for b in together), "processes": len(together)}

    def saturation_rounds(self, busy_us_per_row, rounds=3):
        """tsserve at saturation beside a model-less server, in alternating rounds: the gRPC
        floor server whose workers (as many as tsserve's default instances) take each batch
        queued and keep their core busy for the model's CPU time per row before answering.
        That is tsserve with its own code costing nothing, so tsserve / it is the share its
        own code leaves, and it / the in-process limit is what gRPC, protobuf, the hand-off
        and the client (on the same cores) leave. Each side warms up, then its CPU per call is
        taken over one stage."""
        workers = max(1, self.results["machine"]["cores"] // max(1, int(self.args.threads)))
        request = ["--variables", "7", "--points", "336"]
        model_less = [self.floor_server, "--answer", "worker", "--horizon", "96", "--workers",
                      str(workers), "--busy-us-per-row", "%.3f" % busy_us_per_row,
                      "--idle-spin-us", str(IDLE_SPIN_US)]
        out = []
        for i in range(rounds):
            round_ = {"busy_us_per_row": busy_us_per_row, "workers": workers}
            for name, server in (("tsserve", self.tsserve_server()),
                                 ("model_less", Server(model_less, "grpc-floor"))):
                with server:
                    self.sweep(server.target, "saturation %d, %s, warm-up" % (i + 1, name), "128",
                               request, warmup=0)
                    round_[name] = self.cpu_per_call(server, "128", request)
            out.append(round_)
        return out

    def head_to_head(self, rounds=3):
        """The Python comparison at concurrency 32, alternating between the servers within
        each round, so a minute when the machine runs slow hits every side alike."""
        with self.tsserve_server() as one, \
                self.tsserve_server("--instances", "2", "--preferred-batch-rows", "56") as two, \
                self.python_server() as python:
            return [{name: self.sweep(server.target, "head to head %d, %s" % (i + 1, name), "32")[0]
                     for name, server in (("tsserve", one), ("two_instances", two), ("python", python))}
                    for i in range(rounds)]

    # ------------------------------------------------------------------ measurements

    def measure(self):
        r = self.results
        r["machine"] = machine_facts(self.args)
        with self.tsserve_server() as server:
            r["tsserve"] = self.sweep(server.target, "tsserve, batching on")
            r["tsserve_c1"] = [s for s in r["tsserve"] if s["concurrency"] == 1]
            r["maps_off"] = self.sweep(server.target, "no maps", "1,8")
            r["maps_on"] = self.sweep(server.target, "with maps", "1,8", ["--attention"])
        # The second family: the bundled iTransformer (7 variables + 4 calendar tokens, T=96),
        # the bench sending hourly timestamps because its ModelInfo lists calendar features.
        itransformer = os.path.join(ROOT, "model", "default", "itransformer_etth1.pt")
        with self.tsserve_server("--model", itransformer) as server:
            r["itr_maps_off"] = self.sweep(server.target, "iTransformer, no maps", "1,8")
            r["itr_maps_on"] = self.sweep(server.target, "iTransformer, with maps", "1,8", ["--attention"])
        # The encoder-decoder family: the bundled Informer (7 variables, T=96, hourly
        # timestamps, which its ModelInfo says it requires: the marks of input and forecast).
        informer = os.path.join(ROOT, "model", "default", "informer_etth1.pt")
        with self.tsserve_server("--model", informer) as server:
            r["inf_maps_off"] = self.sweep(server.target, "Informer, no maps", "1,8")
            r["inf_maps_on"] = self.sweep(server.target, "Informer, with maps", "1,8", ["--attention"])
        with self.tsserve_server("--max-batch-rows", "7", "--max-queue-delay-ms", "0") as server:
            r["unbatched"] = self.sweep(server.target, "tsserve, batching off")
        with self.tsserve_server("--instances", "2", "--preferred-batch-rows", "56") as server:
            r["two_instances"] = self.sweep(server.target, "tsserve, 2 instances")
        with self.python_server() as server:
            r["python"] = self.sweep(server.target, "python server")
        r["head_to_head"] = self.head_to_head()
        tiny_dir = tempfile.mkdtemp(prefix="tsserve-tiny-")
        subprocess.run([PYTHON, os.path.join(ROOT, "tests", "bench", "make_tiny_model.py"), tiny_dir],
                       check=True)
        with self.tsserve_server("--model", os.path.join(tiny_dir, "tiny.pt")) as server:
            r["tiny"] = self.sweep(server.target, "tiny model", "1", ["--variables", "1"])
        # The floor servers have no GetModelInfo: the request shapes are given, the same as
        # the bundled model's (7 x 336 in, 96 x 7 out) and the tiny model's (1 x 16, 4 x 1).
        for shape, horizon, request in (("bundled", 96, ["--variables", "7", "--points", "336"]),
                                         ("tiny", 4, ["--variables", "1", "--points", "16"])):
            for answer in ("inline", "worker"):
                argv = [self.floor_server, "--answer", answer, "--horizon", str(horizon),
                        "--idle-spin-us", str(IDLE_SPIN_US)]
                with Server(argv, "grpc-floor") as server:
                    r["floor_%s_%s" % (shape, answer)] = self.sweep(
                        server.target, "gRPC floor, %s, %s shape" % (answer, shape), "1", request)
                    if shape == "bundled" and answer == "worker":
                        # The same with the bundled model's maps (zeros, 7 x 3 of 42 x 42):
                        # what their bytes alone cost through gRPC and protobuf.
                        r["floor_bundled_worker_maps"] = self.sweep(
                            server.target, "gRPC floor, worker, bundled shape, maps", "1",
                            request + ["--attention"])

            # What gRPC, protobuf and the client cost the machine per call, at the
            # concurrency of the Python comparison (ceilings() uses it).
            with Server([self.floor_server, "--answer", "worker", "--horizon", str(horizon)],
                        "grpc-floor") as server:
                r["grpc_cpu_%s" % shape] = self.cpu_per_call(server, "32", request)

        batch_rows = sorted({max(1, round(s["server"]["batch_rows_mean"])) for s in r["tsserve"]})
        r["forward"] = self.run_model_bench(
            "BM_PatchTSTForward/rows:7/invariant:(0|1)$|BM_PatchTSTForwardAt|BM_FusedForward/rows:7$"
            "|BM_FusedForwardAt|BM_TinyForward", batch_rows)
        # The all-cores limit at the batch the server formed at saturation.
        r["forward_every_core"] = self.forward_on_every_core(saturation_rows(r["tsserve"])[1])
        # tsserve at saturation beside a server that spends the same CPU per row on no model.
        r["saturation_rounds"] = self.saturation_rounds(1e6 / r["forward_every_core"]["alone_rows_per_s"])
        # The fused CPU forward beside the LibTorch one, in the same process, and the
        # machine's measured FMA peak it is a fraction of.
        r["fused_rounds"] = self.fused_rounds()
        r["own_share_rounds"] = self.own_share_rounds()
        r["prob_forward"] = self.run_model_bench("BM_ProbSparseForward")
        r["attention"] = self.run_model_bench(self.args.attention_filter, count_memory=True)
        r["maps_model"] = self.run_model_bench("BM_PatchTSTAttentionMaps")
        r["itr_forward"] = self.run_model_bench("BM_ITransformerForward/")
        r["itr_fused"] = self.run_model_bench("BM_FusedITransformerForward")
        r["itr_beside"] = self.run_model_bench("BM_ITransformerForwardBesideAnother")
        r["inf_forward"] = self.run_model_bench("BM_EncoderDecoderForward/")
        r["live_series"] = self.live_series()
        r["http_under_attack"] = self.http_under_attack()
        r["series_store"] = self.series_store()


def measuring_options(argv):
    """argv without the options that only say where results go."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--out", "--images", "--results-json", "--build"):
            skip = True
        elif not arg.startswith(("--out=", "--images=", "--results-json=", "--build=")):
            kept.append(arg)
    return kept


def machine_facts(args):
    """The machine, the software and the measuring run's own options."""
    def first(cmd, default="?"):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip() or default
        except OSError:
            return default
    return {
        "cpu": first("lscpu | sed -n 's/^Model name: *//p'"),
        "cores": os.cpu_count(),
        "memory": first("awk '/MemTotal/ {printf \"%.0f GiB\", $2/1048576}' /proc/meminfo"),
        "os": first(". /etc/os-release && echo $PRETTY_NAME"),
        "compiler": first("c++ --version | head -1"),
        "torch": first(PYTHON + " -c 'import torch; print(torch.__version__)'"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "threads": args.threads,
        "device": args.device,
        "kernel": platform.release(),
        "options": measuring_options(args.argv),
    }


# ---------------------------------------------------------------------- report


def process_cpu_seconds(pid):
    """User + system CPU time of a running process, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    """User + system CPU time of the child processes waited for so far (the client)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rows_per_second(benchmark, rows):
    """A model_bench forward's rate: `rows` rows per iteration of real_time ms."""
    return rows / (benchmark["real_time"] / 1e3)


def best_forward(forward, kernels="fused"):
    """(rows/s, rows) of the in-process forward's best batch."""
    return max((rows_per_second(b, forward_rows(b, kernels)), forward_rows(b, kernels))
               for b in forward if forward_rows(b, kernels))


def saturation_rows(stages):
    """(stage, mean batch rows) of the sweep's stage with the most rows/s."""
    stage = max(stages, key=lambda s: s["rows_per_second"])
    return stage, max(1, round(stage["server"]["batch_rows_mean"]))


def by_concurrency(stages):
    return {s["concurrency"]: s for s in stages}


# The bundled model's forward: the fused kernels (what the server runs by default) and
# LibTorch's operators at their fastest, the whole batch in one pass (batch_invariant:
# false). LibTorch's batch-invariant path runs each row as a pass of its own (unit_passes.h),
# slower; it is reported beside ("torch_invariant"), not used for the ratios.
FORWARD_NAMES = {"fused": r"^BM_FusedForward(At)?/rows:(\d+)$",
                 "torch": r"^BM_PatchTSTForward(At)?/rows:(\d+)/invariant:0$",
                 "torch_invariant": r"^BM_PatchTSTForward()/rows:(\d+)/invariant:1$"}


def forward_rows(benchmark, kernels="fused"):
    """Rows of a forward result on `kernels` (its name holds "rows:N"), or None."""
    match = re.search(FORWARD_NAMES[kernels], benchmark["name"])
    return int(match.group(2)) if match else None


def forward_ms(forward, rows, kernels="fused"):
    """In-process forward time (ms) of the bundled model at `rows` rows on `kernels`."""
    for b in forward:
        if forward_rows(b, kernels) == rows:
            return b["real_time"]
    return None


def tiny_forward_us(forward):
    for b in forward:
        if b["name"].startswith("BM_TinyForward"):
            return b["real_time"]
    return None


def verdict(ok):
    return "met" if ok else "**missed**"


def sweep_table(stages, title):
    lines = ["| concurrency | req/s | rows/s | p50 ms | p99 ms | server queue p50 ms | compute p50 ms | batch rows | errors |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in stages:
        lines.append("| %d | %.1f | %.0f | %.2f | %.2f | %.2f | %.2f | %.1f | %d |" % (
            s["concurrency"], s["throughput_rps"], s["rows_per_second"], s["latency_ms"]["p50"],
            s["latency_ms"]["p99"], s["server"]["queue_ms"]["p50"], s["server"]["compute_ms"]["p50"],
            s["server"]["batch_rows_mean"], s["requests_failed"]))
    return "### %s\n\n%s\n" % (title, "\n".join(lines))


def attention_rows(attention):
    """{L: {kind: (ms, peak MiB)}} from model_bench's attention benchmarks."""
    table = {}
    for b in attention:
        kind, length = b["name"].split("/")[0], int(b["name"].split("/")[1])
        table.setdefault(length, {})[kind] = (b["real_time"], b.get("peak_MiB", 0.0))
    return table


def fused_itransformer_table(fused, libtorch):
    """The fused iTransformer forward (BM_FusedITransformerForward) beside the LibTorch one
    at the same samples (the batch-invariant path without maps), against the FMA peak
    measured in the same benchmark."""
    if not fused:
        return []
    torch_ms = {}
    for b in libtorch:
        m = re.match(r"^BM_ITransformerForward/samples:(\d+)/maps:0/invariant:1$", b["name"])
        if m:
            torch_ms[int(m.group(1))] = b["real_time"]
    out = ["The fused forward (`BM_FusedITransformerForward`, one thread; GFLOP/s of the FLOPs it "
           "executes, and the share of the FMA peak measured in the same benchmark):", "",
           "| samples | fused ms | LibTorch ms | fused / LibTorch | GFLOP/s | share of the FMA peak |",
           "|---:|---:|---:|---:|---:|---:|"]
    for b in fused:
        samples = int(b["name"].split("samples:")[1].split("/")[0])
        t = torch_ms.get(samples)
        peak = b.get("peak_GFLOPs", 0)
        out.append("| %d | %.3f | %s | %s | %.1f | %s |" % (
            samples, b["real_time"], "%.2f" % t if t else "-",
            "%.1fx" % (t / b["real_time"]) if t else "-", b.get("GFLOPs", 0),
            "%.0f %%" % (100 * b.get("GFLOPs", 0) / peak) if peak else "-"))
    out.append("")
    return out


def itransformer_section(results):
    """The bundled iTransformer beside PatchTST: served (one 7-variable sample per request)
    and in-process (BM_ITransformerForward, samples x maps)."""
    off, on = by_concurrency(results["itr_maps_off"]), by_concurrency(results["itr_maps_on"])
    pt_off = by_concurrency(results["maps_off"])
    out = ["## iTransformer (the bundled ETTh1 model: T=96, 7 variables + 4 calendar tokens, D=256, 2 layers)", "",
           "Served: `tsserve --model model/default/itransformer_etth1.pt`, `tsserve-client bench` "
           "(one sample of 7 variables with hourly timestamps per request); PatchTST's rows "
           "(7 variables x 336 points per request) from the same run for comparison.", "",
           "| concurrency | iTransformer p50 ms | with maps (2 layers, heads averaged, 11 x 11) p50 ms | iTransformer req/s | with maps req/s | PatchTST p50 ms | PatchTST req/s |",
           "|---:|---:|---:|---:|---:|---:|---:|"]
    for c in sorted(off):
        pt = pt_off.get(c)
        out.append("| %d | %.2f | %.2f | %.1f | %.1f | %s | %s |" % (
            c, off[c]["latency_ms"]["p50"], on[c]["latency_ms"]["p50"], off[c]["throughput_rps"],
            on[c]["throughput_rps"], "%.2f" % pt["latency_ms"]["p50"] if pt else "-",
            "%.1f" % pt["throughput_rps"] if pt else "-"))
    out += ["", "In-process (`BM_ITransformerForward`, samples/maps; one sample = 7 variables):", "",
            "| benchmark | ms | samples/s |", "|---|---:|---:|"]
    out += ["| %s | %.2f | %.0f |" % (b["name"], b["real_time"], b.get("samples_per_s", 0))
            for b in results.get("itr_forward", [])]
    out.append("")
    out += fused_itransformer_table(results.get("itr_fused", []), results.get("itr_forward", []))
    out += blas_pool_table(results.get("itr_beside", []))
    return out


def informer_section(results):
    """The bundled Informer beside PatchTST and the iTransformer: served (one 7-variable
    sample with hourly timestamps per request) and in-process (BM_EncoderDecoderForward)."""
    if "inf_maps_off" not in results:
        return []
    off, on = by_concurrency(results["inf_maps_off"]), by_concurrency(results["inf_maps_on"])
    itr = by_concurrency(results.get("itr_maps_off", []))
    pt = by_concurrency(results.get("maps_off", []))
    out = ["## Informer (the bundled ETTh1 model: T=96, label 48, F=96, D=128, 2 + 1 layers, distilling, ProbSparse)", "",
           "Served: `tsserve --model model/default/informer_etth1.pt`, `tsserve-client bench` "
           "(one sample of 7 variables with hourly timestamps per request; LibTorch, as the "
           "fused kernels do not cover the encoder-decoders yet); the other families' rows from the same run.", "",
           "| concurrency | Informer p50 ms | with maps (2 encoder layers, averaged) p50 ms | Informer req/s | iTransformer p50 ms | PatchTST p50 ms |",
           "|---:|---:|---:|---:|---:|---:|"]
    for c in sorted(off):
        i, p = itr.get(c), pt.get(c)
        out.append("| %d | %.2f | %.2f | %.1f | %s | %s |" % (
            c, off[c]["latency_ms"]["p50"], on[c]["latency_ms"]["p50"], off[c]["throughput_rps"],
            "%.2f" % i["latency_ms"]["p50"] if i else "-",
            "%.2f" % p["latency_ms"]["p50"] if p else "-"))
    out += ["", "In-process (`BM_EncoderDecoderForward`, samples/maps/family: 0 the bundled "
            "Informer, 1 a Transformer of its shape with untrained weights; one sample = 7 "
            "variables):", "",
            "| benchmark | ms | samples/s |", "|---|---:|---:|"]
    out += ["| %s | %.2f | %.0f |" % (b["name"], b["real_time"], b.get("samples_per_s", 0))
            for b in results.get("inf_forward", [])]
    out.append("")
    return out


def live_series_section(runs):
    """Observe against resending the window (observe_bench.cpp), one table per concurrency."""
    if not runs:
        return []
    first = runs[0]
    out = ["## Live series: Observe against resending the window (bundled PatchTST, %d variables, "
           "seq_len %d)" % (first["variables"], first["history"]), "",
           "`observe`: one new point per call, appended and flagged; `forecast`: the same with "
           "`forecast: true` (the next forecast at every calibrated level, kept under the key); "
           "`window`: what a caller without Observe sends for the same step, ReportActuals of the "
           "new point (scoring its kept forecasts, as Observe does) then a Forecast carrying the "
           "whole window and asking the same levels; its two calls count as one. Each step is one "
           "time point of every variable; each thread owns its keys. Memory per key after the setup: %.0f bytes accounted by the "
           "store, %.0f bytes of server RSS growth." % (
               first["store_bytes_per_key"], first["rss_bytes_per_key"]), ""]
    out += ["| concurrency | keys | phase | steps/s | points/s | p50 ms | p99 ms | errors |",
            "|---:|---:|---|---:|---:|---:|---:|---:|"]
    for run in runs:
        for p in run["phases"]:
            out.append("| %d | %d | %s | %.0f | %.0f | %.3f | %.3f | %d |" % (
                run["concurrency"], run["keys"], p["name"], p["calls_per_s"], p["points_per_s"],
                p["p50_ms"], p["p99_ms"], p["errors"]))
    out.append("")
    return out


def series_store_section(run):
    """Observe on the in-process store vs Redis (series_store.py), with the 0.8x goal, and
    where each call's CPU went (the same 2 cores serve tsserve, redis-server and the client)."""
    if not run:
        return []
    redis8 = next(r for r in run["runs"] if r["store"] == "redis" and r["concurrency"] == 8)
    out = ["## The shared series store: Observe in process vs through Redis (one machine)", "",
           "observe_bench (gRPC Observe, one new point per call; `forecast`: with the next "
           "forecast) against one tsserve on its in-process store, then on a local redis-server "
           "(AOF, fsync every second), %d keys, %g s per phase; a fresh server and an empty Redis "
           "per run. CPU per call is each process's user + system time over the phase "
           "(redis-server's AOF rewrites included) divided by its calls. Redis memory: a window "
           "%.0f bytes, a kept forecast %.0f bytes, the scored marks of an observed time %.0f "
           "bytes (MEMORY USAGE); %.0f bytes per key in all "
           "after %.0f forecasts each. Target: Observe with the next forecast through Redis at "
           ">= %.1fx the in-process store's points/s at concurrency 8." % (
               run["keys"], run["seconds"], redis8["redis_window_bytes"],
               redis8.get("redis_forecast_bytes", 0), redis8.get("redis_marks_bytes", 0),
               redis8["redis_bytes_per_key"],
               redis8["forecasts_per_key"], run["goal"]), "",
           "| store | concurrency | phase | p50 ms | p99 ms | points/s | errors "
           "| CPU us/call tsserve | redis-server | client |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in run["runs"]:
        for p in r["phases"]:
            out.append("| %s | %d | %s | %.3f | %.3f | %.0f | %d | %.0f | %.0f | %.0f |" % (
                "in process" if r["store"] == "memory" else "Redis", r["concurrency"], p["name"],
                p["p50_ms"], p["p99_ms"], p["points_per_s"], p["errors"],
                p.get("server_cpu_us_per_call", 0), p.get("store_cpu_us_per_call", 0),
                p.get("client_cpu_us_per_call", 0)))
    out += ["", "Redis / in process, with the next forecast, concurrency 8: **%.2fx** (%s)." % (
        run["ratio"], verdict(run["ratio"] >= run["goal"])), ""]
    return out


def http_under_attack_section(run):
    """Legitimate calls' latency with and without hostile bodies (http_under_attack.py)."""
    if not run:
        return []
    out = ["## The HTTP door under attack (JSON forecasts at concurrency 8, `wrk`; %d s per run)" % run["seconds"], "",
           "Legitimate calls: the bundled PatchTST's 336 x 7 window, closed loop, 8 connections. "
           "Attack: 4 connections each sending, over and over, a %.1f MiB forecast body of %d "
           "one-point columns (the largest body allowed; refused 400 after its parse), %d sent in "
           "all. Unattacked and attacked runs alternate. Target: the attacked median p99 within "
           "%.1fx of the unattacked." % (run["body_bytes"] / 2**20, run["columns"], run["hostile_sent"],
                                        run["bound"]), "",
           "| run | p50 ms | p90 ms | p99 ms | requests/s | non-2xx |", "|---|---:|---:|---:|---:|---:|"]
    for name in ("unattacked", "attacked"):
        for r in run["runs"][name]:
            out.append("| %s | %.2f | %.2f | %.2f | %.0f | %d |" % (
                name, r["p50_ms"], r["p90_ms"], r["p99_ms"], r["rps"], r["non_2xx"]))
    out += ["", "Median p99 attacked / unattacked: **%.2f** (%s)." % (
        run["ratio"], verdict(run["ratio"] <= run["bound"])), ""]
    return out


def blas_pool_table(benchmarks):
    """The LibTorch forward beside another one, by OpenBLAS's pool size
    (BM_ITransformerForwardBesideAnother): why the server sizes that pool with the intra-op
    threads (model/host/include/tsserve/model/intra_op_threads.h)."""
    if not benchmarks:
        return []
    out = ["The same forward (8 samples) while another thread runs it too, by OpenBLAS's own "
           "pool (`BM_ITransformerForwardBesideAnother`; 1 is what the server sets for one "
           "intra-op thread, 2 OpenBLAS's default here):", "",
           "| OpenBLAS pool | neighbour | forward ms | neighbour's forwards/s | both, forwards/s |",
           "|---:|---|---:|---:|---:|"]
    for b in benchmarks:
        fields = dict(part.split(":") for part in b["name"].split("/")[1:] if ":" in part)
        alone = fields.get("neighbour") == "0"
        own = 1000.0 / b["real_time"] if b["real_time"] > 0 else 0.0
        other = b.get("neighbour_per_s", 0.0)
        out.append("| %s | %s | %.2f | %s | %.0f |" % (
            fields.get("blas_threads", "?"), "none" if alone else "the same forward",
            b["real_time"], "-" if alone else "%.0f" % other, own + other))
    out.append("")
    return out


def plot(results, images):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(images, exist_ok=True)
    series = [("tsserve (batching)", results["tsserve"]), ("tsserve, batching off", results["unbatched"]),
              ("Python gRPC + PyTorch eager", results["python"])]
    if "two_instances" in results:
        series.insert(1, ("tsserve, 2 instances", results["two_instances"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, stages in series:
        c = [s["concurrency"] for s in stages]
        left.plot(c, [s["rows_per_second"] for s in stages], marker="o", label=name)
        right.plot(c, [s["latency_ms"]["p99"] for s in stages], marker="o", label=name)
    for axis, label in ((left, "throughput (series rows/s)"), (right, "p99 latency (ms)")):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("concurrency (calls in flight), 7 variables x 336 points each")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
        axis.legend()
    right.set_yscale("log")
    fig.suptitle("Forecast over gRPC on loopback, closed loop")
    fig.tight_layout()
    fig.savefig(os.path.join(images, "server_sweep.png"), dpi=100)
    plt.close(fig)

    table = attention_rows(results["attention"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for kind, name in (("BM_FullAttention", "Full"), ("BM_ProbAttention", "ProbSparse (tsserve)"),
                       ("BM_NaiveProbAttention", "ProbSparse, naive gather")):
        lengths = [L for L in sorted(table) if kind in table[L]]
        left.plot(lengths, [table[L][kind][0] for L in lengths], marker="o", label=name)
        right.plot(lengths, [table[L][kind][1] for L in lengths], marker="o", label=name)
    for axis, label in ((left, "time per forward (ms)"), (right, "peak tensor memory (MiB)")):
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("sequence length L (B=1, H=8, E=64)")
        axis.set_ylabel(label)
        axis.grid(True, alpha=0.3)
        axis.legend()
    fig.suptitle("Inner attention, one forward")
    fig.tight_layout()
    fig.savefig(os.path.join(images, "attention.png"), dpi=100)
    plt.close(fig)


def machine_ceiling(results, best_rps):
    """(bound, estimate, how): requests/s the whole machine could serve at most.

    The bound is the model alone in one process per core at once (the cores share caches
    and memory bandwidth, so they do not simply add up), with nothing left for gRPC or the
    load generator: no server can beat it. The estimate adds the CPU that gRPC, protobuf
    and the client (on the same machine) spend per call on a server that computes nothing:
    each call needs both, and the cores supply `cores` CPU-seconds per second."""
    cores = results["machine"]["cores"]
    every_core, floor = results.get("forward_every_core"), results.get("grpc_cpu_bundled")
    if not every_core or not floor:  # a --from-json of a run before these were measured
        return best_rps * cores, best_rps * cores, (
            "every one of its %d cores running the model at the one-instance rate and none left"
            " for gRPC or the load generator, at most %.0f requests/s" % (cores, best_rps * cores))
    model_rps = every_core["together_rows_per_s"] / 7
    grpc_cpu_s = (floor["server_cpu_us"] + floor["client_cpu_us"]) / 1e6
    estimate_rps = cores / (cores / model_rps + grpc_cpu_s)
    how = ("%d processes running the model's best batch (%d rows) at once reach %.0f rows/s in all"
           " (%.2fx one alone, %.0f rows/s): at most **%.0f requests/s** with nothing else running."
           " gRPC, protobuf and the client cost %.0f us of CPU per call (the gRPC floor server at"
           " concurrency 32: %.0f us in the server, %.0f us in the client); a call needs %.0f us of"
           " a core for the model and %.0f us for the rest, so the %d cores would serve about"
           " %.0f requests/s" % (
               every_core["processes"], every_core["rows"], every_core["together_rows_per_s"],
               every_core["together_rows_per_s"] / every_core["alone_rows_per_s"],
               every_core["alone_rows_per_s"], model_rps, grpc_cpu_s * 1e6, floor["server_cpu_us"],
               floor["client_cpu_us"], cores / model_rps * 1e6, grpc_cpu_s * 1e6, cores, estimate_rps))
    best_measured = max((s["throughput_rps"] for key in ("tsserve", "two_instances")
                         for s in results.get(key, [])), default=0)
    if best_measured > estimate_rps:
        how += (" (an estimate only: the server measured %.0f requests/s, above it; its parts"
                " were measured minutes apart, and this machine's speed varies 10-30 %% from one"
                " minute to the next)" % best_measured)
    return model_rps, estimate_rps, how


def ceilings(results, on, py, overhead_us):
    """What no server could beat on this machine, from this run's own figures: the missed
    targets' explanations, computed rather than asserted."""
    best = best_forward(results["forward"])
    best_rps = best[0] / 7  # requests of 7 rows
    machine_rps, estimate_rps, machine_how = machine_ceiling(results, best_rps)
    out = ["## Ceilings on this machine (computed from the figures above)", "",
           "One model instance with no serving overhead would serve at most the in-process limit:"
           " %.0f rows/s (its best batch, %d rows) = %.0f requests/s of 7 rows at %s intra-op"
           " thread(s). The whole machine: %s." % (
               best[0], best[1], best_rps, results["machine"]["threads"], machine_how)]
    python = [r["python"] for r in results.get("head_to_head", [])] or ([py[32]] if 32 in py else [])
    if python:
        py_rps = statistics.median(st["throughput_rps"] for st in python)
        py_p99 = statistics.median(st["latency_ms"]["p99"] for st in python)
        # Little's law: 32 calls always in flight at X calls/s spend 32 / X s each on average,
        # and a p99 is at least the mean.
        least_ms, least_machine_ms = 32 / best_rps * 1e3, 32 / machine_rps * 1e3
        out += ["",
                "* vs the Python server at concurrency 32 (%.0f requests/s, p99 %.1f ms: the median"
                " of the runs in the Targets table), throughput: one instance at most %.0f / %.0f ="
                " **%.1fx**, the whole machine at most **%.1fx** with the model alone on every core,"
                " about %.1fx once gRPC and the client take their share (target 10x)." % (
                    py_rps, py_p99, best_rps, py_rps, best_rps / py_rps, machine_rps / py_rps,
                    estimate_rps / py_rps),
                "* vs the Python server at concurrency 32, p99: 32 calls in flight at %.0f calls/s"
                " wait %.1f ms on average (Little's law), and a p99 is at least that: one instance"
                " >= **%.2f** of Python's %.1f ms, the whole machine (%.1f ms) >= **%.2f** (target"
                " 0.2)." % (best_rps, least_ms, least_ms / py_p99, py_p99, least_machine_ms,
                            least_machine_ms / py_p99)]
    if "floor_bundled_inline" in results:
        out += ["* serving overhead: the gRPC floor (no model; gRPC, protobuf and the same client)"
                " is %.0f us at concurrency 1 with the bundled request; the target is tsserve's own"
                " share over it, 100 us." % (results["floor_bundled_inline"][0]["latency_ms"]["p50"] * 1e3)]
    forward7 = forward_ms(results["forward"], 7)
    off = by_concurrency(results["unbatched"])
    batching_measured = ("%.1fx" % (on[32]["throughput_rps"] / off[32]["throughput_rps"])
                         if 32 in on and 32 in off else "nothing at concurrency 32")
    if forward7:
        # Unbatched, a request costs its own forward plus the per-call overhead; batched, at
        # least its share of the best batch. Batching saves no more than the difference.
        unbatched_ms = forward7 + overhead_us / 1e3
        batched_ms = 7 / best[0] * 1e3
        out += ["* batching: one request (7 rows) runs at %.0f rows/s in-process and the best batch"
                " at %.0f rows/s, so the arithmetic is no cheaper in a batch. Unbatched, a request"
                " costs at most its forward plus the whole serving overhead, %.2f + %.2f ms;"
                " batched, at least its share of the best batch, %.2f ms: batching can multiply"
                " throughput by at most **%.1fx** here (target 4x). tsserve measured %s." % (
                    7 / (forward7 / 1e3), best[0], forward7, overhead_us / 1e3, batched_ms,
                    unbatched_ms / batched_ms, batching_measured)]
    return out + [""]


def fused_round(round_):
    """{rows: (fused rows/s, LibTorch rows/s, ONNX Runtime rows/s or None, % of FMA peak)}
    and the round's roofline benchmark, from one round of fused_rounds()."""
    torch_rate, fused, roofline = {}, {}, None
    for b in round_["bench"]:
        rows = forward_rows(b, "torch")
        match = re.search(r"^BM_FusedForward/rows:(\d+)$", b["name"])
        if rows:
            torch_rate[rows] = rows_per_second(b, rows)
        elif match:
            fused[int(match.group(1))] = b
        elif b["name"].startswith("BM_Roofline"):
            roofline = b
    onnx_rate = {r["rows"]: r["rows_per_s"] for r in (round_.get("onnx") or {}).get("results", [])}
    figures = {}
    for rows, b in fused.items():
        peak = roofline["fma_peak_GFLOPs"] if roofline else b.get("peak_GFLOPs")
        figures[rows] = (rows_per_second(b, rows), torch_rate.get(rows), onnx_rate.get(rows),
                         100 * b["GFLOPs"] / peak if peak else float("nan"))
    return figures, roofline


def fused_medians(results):
    """{rows: (fused / LibTorch, fused / ONNX Runtime, % of peak)}: medians over the rounds
    of the ratios taken within each round (NaN where a side was not run)."""
    rounds = [fused_round(r)[0] for r in results.get("fused_rounds", [])]
    out = {}
    for rows in sorted(set().union(*rounds)) if rounds else []:
        per = [r[rows] for r in rounds if rows in r]
        ratio = lambda i: statistics.median(p[0] / p[i] for p in per) if all(p[i] for p in per) else float("nan")  # noqa: E731,E501
        out[rows] = (ratio(1), ratio(2), statistics.median(p[3] for p in per))
    return out


def fused_table(results):
    """The fused forward vs the LibTorch forward and ONNX Runtime (one thread each), with the
    fused forward's GFLOP/s as a fraction of the FMA peak measured in the same round."""
    rounds = results.get("fused_rounds", [])
    if not rounds:
        return []
    out = ["## Fused CPU forward vs the LibTorch forward and ONNX Runtime (bundled model, one thread)",
           "",
           "%d rounds; in each, `model_bench` (LibTorch forward, fused forward, FMA peak) then ONNX"
           " Runtime, one after the other, so that the ratios are taken within a round. Rows/s and"
           " GFLOP/s are per second of thread CPU time." % len(rounds), "",
           "| round | rows | LibTorch rows/s | ONNX Runtime rows/s | fused rows/s | fused / LibTorch"
           " | fused / ONNX Runtime | % of FMA peak | FMA peak GFLOP/s |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    fmt = lambda v: "%.0f" % v if v else "not run"  # noqa: E731
    ratio = lambda a, b: "%.1fx" % (a / b) if b else ""  # noqa: E731
    label = ""
    for i, round_ in enumerate(rounds):
        figures, roofline = fused_round(round_)
        for rows in sorted(figures):
            rate, base, peer, peak_pct = figures[rows]
            out.append("| %d | %d | %s | %s | %.0f | %s | %s | %.0f%% | %s |" % (
                i + 1, rows, fmt(base), fmt(peer), rate, ratio(rate, base), ratio(rate, peer), peak_pct,
                "%.1f" % roofline["fma_peak_GFLOPs"] if roofline else ""))
        label = roofline.get("label", "") if roofline else label
    medians = fused_medians(results)
    out += ["", "Medians over the rounds: " + "; ".join(
        "%d rows %.1fx LibTorch, %.1fx ONNX Runtime, %.0f%% of peak" % (rows, m[0], m[1], m[2])
        for rows, m in medians.items()) + "."]
    first_roofline = fused_round(rounds[0])[1]
    any_fused = next((b for b in rounds[0]["bench"] if b["name"].startswith("BM_FusedForward")), None)
    if any_fused:
        out += ["", "FLOPs per row: %.2f M (model FLOPs, no padding); kernels: %s; the peak is an FMA"
                " loop on every vector register (%s), read bandwidth %.1f GB/s in the first round." % (
                    any_fused["MFLOP_per_row"], any_fused.get("label", ""), label,
                    first_roofline["read_GBs"] if first_roofline else float("nan"))]
    onnx = rounds[0].get("onnx")
    if onnx:
        out += ["ONNX Runtime %s (onnxruntime-node, CPU, one thread; `tests/bench/onnx`), its output "
                "within %.1e of PyTorch's." % (onnx["onnxruntime"], onnx["max_error_vs_pytorch"])]
    out.append("")
    return out


def prob_forward_table(benchmarks):
    """The bundled model with ProbSparse attention: LibTorch's path and the fused one."""
    rates = {}
    for b in benchmarks or []:
        match = re.search(r"^BM_ProbSparseForward/rows:(\d+)/fused:(\d)$", b["name"])
        if match:
            rows = int(match.group(1))
            rates[(rows, match.group(2) == "1")] = rows_per_second(b, rows)
    if not rates:
        return []
    out = ["### ProbSparse: the bundled model with `--attention prob` (one thread)", "",
           "| rows | LibTorch rows/s | fused rows/s | fused / LibTorch |", "|---:|---:|---:|---:|"]
    for rows in sorted({r for r, _ in rates}):
        torch_rate, fused_rate = rates.get((rows, False)), rates.get((rows, True))
        out.append("| %d | %s | %s | %s |" % (
            rows, "%.0f" % torch_rate if torch_rate else "", "%.0f" % fused_rate if fused_rate else "",
            "%.1fx" % (fused_rate / torch_rate) if torch_rate and fused_rate else ""))
    return out + [""]


def head_to_head_table(rounds):
    """The three servers at concurrency 32, one after the other in each round."""
    if not rounds:
        return []
    out = ["### Head to head at concurrency 32: the three servers in turn, %d rounds" % len(rounds), "",
           "| round | tsserve req/s | p99 ms | 2 instances req/s | p99 ms | Python req/s | p99 ms"
           " | throughput vs Python (1 / 2 instances) | p99 vs Python (1 / 2 instances) |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for i, r in enumerate(rounds):
        one, two, py = r["tsserve"], r["two_instances"], r["python"]
        out.append("| %d | %.0f | %.1f | %.0f | %.1f | %.0f | %.1f | %.1fx / %.1fx | %.2f / %.2f |" % (
            i + 1, one["throughput_rps"], one["latency_ms"]["p99"], two["throughput_rps"],
            two["latency_ms"]["p99"], py["throughput_rps"], py["latency_ms"]["p99"],
            one["throughput_rps"] / py["throughput_rps"], two["throughput_rps"] / py["throughput_rps"],
            one["latency_ms"]["p99"] / py["latency_ms"]["p99"],
            two["latency_ms"]["p99"] / py["latency_ms"]["p99"]))
    return out + [""]


def own_share_of(round_):
    """(own share, with no idle spin) in us of one own-share round: tsserve's p50 minus the
    worker floor's p50 minus the forward, the forward counted at the lower of its in-process
    time and its p50 inside that server: a forward the server slows down (a cold thread) is
    charged to the server, and a minute when the in-process run was slow is not."""
    forward_us = forward_ms(round_["forward"], 7) * 1e3
    floor_us = round_["floor"]["latency_ms"]["p50"] * 1e3
    return tuple(round_[k]["latency_ms"]["p50"] * 1e3 - floor_us -
                 min(forward_us, round_[k]["server"]["compute_ms"]["p50"] * 1e3)
                 for k in ("tsserve", "no_spin"))


def own_share_target(results, c1, forward7, worker_floor_us, own_share_us, tiny, tiny_us, tiny_overhead_us):
    """The own-share target's row: from the alternating rounds when the run has them, else
    from the sweep's stage at concurrency 1."""
    tiny_text = "; tiny model: p50 minus its LibTorch forward %.0f us - %.0f us = %.0f us" % (
        tiny["latency_ms"]["p50"] * 1e3, tiny_us or float("nan"), tiny_overhead_us)
    rounds = results.get("own_share_rounds")
    name = "tsserve's own share at concurrency 1 (p50 minus the fused forward minus the gRPC worker floor)"
    if rounds:
        name = ("tsserve's own share at concurrency 1 (p50 minus the gRPC worker floor minus the"
                " fused forward, at the lower of its in-process and in-server times)")
        shares = [own_share_of(r) for r in rounds]
        own = statistics.median(share[0] for share in shares)
        return (name + " (median of %d alternating rounds)" % len(rounds), "<= 100 us",
                "bundled model: **%.0f us** (%s); with `--idle-spin-us 0` %.0f us (%s)%s" % (
                    own, ", ".join("%.0f" % share[0] for share in shares),
                    statistics.median(share[1] for share in shares),
                    ", ".join("%.0f" % share[1] for share in shares), tiny_text),
                own <= 100)
    return (name, "<= 100 us",
            "bundled model: %.0f us - %.0f us - %.0f us = **%.0f us**; with the forward as timed inside"
            " the server (compute p50 %.0f us) in place of the in-process one: %.0f us%s" % (
                c1["latency_ms"]["p50"] * 1e3, forward7 * 1e3 if forward7 else float("nan"),
                worker_floor_us, own_share_us, c1["server"]["compute_ms"]["p50"] * 1e3,
                (c1["latency_ms"]["p50"] - c1["server"]["compute_ms"]["p50"]) * 1e3 - worker_floor_us,
                tiny_text),
            own_share_us <= 100)


def own_share_table(rounds):
    """The own-share rounds: each figure at concurrency 1, p50, us."""
    if not rounds:
        return []
    out = ["### tsserve's own share at concurrency 1: %d alternating rounds (p50, us)" % len(rounds), "",
           "Per round: the in-process fused forward (7 rows), the gRPC floor answered by a worker"
           " thread that polls for %d us before it sleeps (tsserve's hand-off), tsserve with its"
           " defaults, and tsserve with `--idle-spin-us 0` (its batcher workers sleep at once)."
           " Own share = p50 - floor - the forward, the forward counted at the lower of the"
           " in-process time and the server's own compute p50 (so a forward the server slows"
           " is charged to the server, and a slow minute of the in-process run is not)." % IDLE_SPIN_US, "",
           "| round | forward | floor | tsserve p50 | its forward in the server | own share | no idle spin:"
           " p50 | its forward in the server | own share |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for i, r in enumerate(rounds):
        own, no_spin = own_share_of(r)
        out.append("| %d | %.0f | %.0f | %.0f | %.0f | **%.0f** | %.0f | %.0f | %.0f |" % (
            i + 1, forward_ms(r["forward"], 7) * 1e3, r["floor"]["latency_ms"]["p50"] * 1e3,
            r["tsserve"]["latency_ms"]["p50"] * 1e3, r["tsserve"]["server"]["compute_ms"]["p50"] * 1e3,
            own, r["no_spin"]["latency_ms"]["p50"] * 1e3,
            r["no_spin"]["server"]["compute_ms"]["p50"] * 1e3, no_spin))
    return out + [""]


def overhead_table(results, overhead_us, tiny_overhead_us):
    """Serving overhead beside the gRPC floor (no model, same protocol, same client)."""
    if "floor_bundled_inline" not in results:  # a --from-json of a run before the floor
        return []
    p50_us = {key: results[key][0]["latency_ms"]["p50"] * 1e3 for key in results if key.startswith("floor_")}
    out = ["## Serving overhead beside the gRPC floor (concurrency 1, p50, us)", "",
           "`grpc_floor_server` serves the same Forecast RPC with gRPC's callback API, as tsserve"
           " does, and computes nothing: its answer is a zero forecast of tsserve's size. What it"
           " takes is gRPC on loopback, protobuf and the client (`tsserve-client bench`, the same"
           " process as every other figure): no server of this protocol goes below it here.", "",
           "| | bundled shape (7 x 336 in, 96 x 7 out) | tiny shape (1 x 16 in, 4 x 1 out) |",
           "|---|---:|---:|",
           "| gRPC floor: answered in the handler | %.0f | %.0f |" % (
               p50_us["floor_bundled_inline"], p50_us["floor_tiny_inline"]),
           "| gRPC floor: answered by a worker thread (tsserve's hand-off, polling %d us) | %.0f | %.0f |" % (
               IDLE_SPIN_US, p50_us["floor_bundled_worker"], p50_us["floor_tiny_worker"]),
           "| tsserve: p50 minus the model's forward | %.0f | %.0f |" % (overhead_us, tiny_overhead_us),
           "| tsserve's own share: that minus the worker floor | %.0f | %.0f |" % (
               overhead_us - p50_us["floor_bundled_worker"], tiny_overhead_us - p50_us["floor_tiny_worker"]),
           ""]
    return out


def maps_cost_target(results, maps_off, maps_on):
    """Issue 29's maps target, beside the floor: the gRPC floor server answering the same
    maps' bytes (zeros) with no model, so what the maps cost the wire is set apart."""
    off, on = maps_off[1]["latency_ms"]["p50"], maps_on[1]["latency_ms"]["p50"]
    measured = "%.3f / %.3f ms = **%.2fx**" % (on, off, on / off)
    floor_maps = results.get("floor_bundled_worker_maps")
    floor = results.get("floor_bundled_worker")
    if floor_maps and floor:
        f_on, f_off = floor_maps[0]["latency_ms"]["p50"], floor[0]["latency_ms"]["p50"]
        measured += ("; the gRPC floor (no model) answering the same maps' bytes: %.3f / %.3f ms, "
                     "so the bytes alone cost %.0f of the %.0f us the maps add" % (
                         f_on, f_off, (f_on - f_off) * 1e3, (on - off) * 1e3))
    return [("PatchTST with attention maps (7 variables x 3 layers, heads averaged) at concurrency "
             "1: p50 with / without maps", "<= 1.5x", measured, on / off <= 1.5)]


def saturation_target(results, limit_rows_per_s):
    """Issue 29's saturation target: >= 0.85 of the in-process limit, or a profile showing
    that what remains is gRPC's own cost: tsserve against the model-less server of
    saturation_rounds (>= 0.9 of it: its own code leaves no more than a tenth), from the
    median of the alternating rounds, with the CPU each side spends per call."""
    rounds = results.get("saturation_rounds")
    if not rounds:
        return []
    rows = lambda r, k: r[k]["stage"]["rows_per_second"]  # noqa: E731
    ratios = [rows(r, "tsserve") / rows(r, "model_less") for r in rounds]
    ratio = statistics.median(ratios)
    median_of = lambda k, f: statistics.median(f(r[k]) for r in rounds)  # noqa: E731
    ts_rows, ml_rows = median_of("tsserve", lambda x: x["stage"]["rows_per_second"]), median_of(
        "model_less", lambda x: x["stage"]["rows_per_second"])
    cpu = lambda k, side: median_of(k, lambda x: x[side + "_cpu_us"])  # noqa: E731
    of_limit = ts_rows / limit_rows_per_s
    measured = (
        "tsserve %.0f rows/s, the model-less server (%d workers keeping their core busy %.1f us"
        " per row, the fused forward's CPU per row alone) %.0f rows/s: **%.2f** (%s); tsserve"
        " %.2f and the model-less server %.2f of the in-process limit (%.0f rows/s), so gRPC,"
        " protobuf, the hand-off and the client on the same cores take the rest. CPU per call:"
        " tsserve %.0f us in the server + %.0f in the client, the model-less server %.0f + %.0f" % (
            ts_rows, rounds[0]["workers"], rounds[0]["busy_us_per_row"], ml_rows, ratio,
            ", ".join("%.2f" % x for x in ratios), of_limit, ml_rows / limit_rows_per_s,
            limit_rows_per_s, cpu("tsserve", "server"), cpu("tsserve", "client"),
            cpu("model_less", "server"), cpu("model_less", "client")))
    return [("Server throughput at saturation (concurrency 128): >= 0.85 of the in-process limit,"
             " or what remains gRPC's own cost: tsserve / a model-less server spending the same"
             " CPU per row (median of %d alternating rounds)" % len(rounds),
             ">= 0.85 of the limit, or >= 0.9 of the model-less server", measured,
             of_limit >= 0.85 or ratio >= 0.9)]


def fused_targets(results):
    """The fused forward's targets, from the medians of the alternating rounds."""
    medians = fused_medians(results)
    if not medians:
        return []
    listed = lambda i, fmt: ", ".join(("%d rows " + fmt) % (rows, m[i]) for rows, m in medians.items())  # noqa: E731
    basis = " (one thread, median of %d alternating rounds)" % len(results["fused_rounds"])
    at448 = medians.get(448, (float("nan"),) * 3)
    return [
        ("Fused forward vs the LibTorch forward at 7, 56, 448 rows" + basis, ">= 3x",
         "**%s**" % listed(0, "%.1fx"), all(m[0] >= 3 for m in medians.values())),
        ("Fused forward vs ONNX Runtime at 7, 56, 448 rows" + basis, ">= 2x",
         "**%s**" % listed(1, "%.1fx"), all(m[1] >= 2 for m in medians.values())),
        ("Fused forward at 448 rows: share of the measured FMA peak" + basis, ">= 30%",
         "**%.0f%%**" % at448[2], at448[2] >= 30),
    ]


def report(results, args, images_rel):
    m = results["machine"]
    on, off, py = (by_concurrency(results[k]) for k in ("tsserve", "unbatched", "python"))
    out = ["# Benchmarks", "",
           "Generated by `bash tests/bench/run.sh %s` on %s. Every figure below comes from that one run"
           " on one machine; compare ratios within it, not absolute times across machines." % (
               " ".join(m.get("options", [])), m["date"]), "",
           "Machine: %s, %s cores, %s, %s (kernel %s); %s; PyTorch/LibTorch %s; device %s, %s intra-op"
           " thread(s) in every server and in-process measurement." % (
               m["cpu"], m["cores"], m["memory"], m["os"], m["kernel"], m["compiler"], m["torch"],
               m["device"], m["threads"]), ""]
    if m.get("kernels"):
        out += ["Kernels: %s." % m["kernels"], ""]

    # Targets.
    saturation, sat_rows = saturation_rows(results["tsserve"])
    # The limit on all cores: the fused forward at the same batch in one process per core.
    every_core = results.get("forward_every_core") or {}
    if every_core.get("rows") == sat_rows:
        limit_rows_per_s = every_core["together_rows_per_s"]
        limit_how = "fused forward at %d rows in %d processes at once" % (sat_rows, every_core["processes"])
    else:  # a --from-json of a run before the all-cores limit was measured at this batch
        limit_ms = forward_ms(results["forward"], sat_rows)
        limit_rows_per_s = sat_rows / (limit_ms / 1e3) if limit_ms else float("nan")
        limit_how = "fused forward at %d rows, one process" % sat_rows
    defaults = "the defaults (`--instances auto`: %d single-threaded instances, fused kernels)" % (
        max(1, m["cores"] // max(1, int(m["threads"]))))
    c1 = on[1]
    forward7 = forward_ms(results["forward"], 7)
    overhead_us = (c1["latency_ms"]["p50"] - forward7) * 1e3 if forward7 else float("nan")
    tiny = results["tiny"][0]
    tiny_us = tiny_forward_us(results["forward"])
    tiny_overhead_us = tiny["latency_ms"]["p50"] * 1e3 - tiny_us if tiny_us else float("nan")
    worker_floor_us = (results["floor_bundled_worker"][0]["latency_ms"]["p50"] * 1e3
                       if "floor_bundled_worker" in results else float("nan"))
    own_share_us = overhead_us - worker_floor_us
    batching_ratio = on[32]["throughput_rps"] / off[32]["throughput_rps"] if 32 in on else float("nan")
    # The Python comparison for the defaults (auto instances, fused kernels) and for two
    # instances in batches of 8 requests: the median over the head-to-head rounds (the sweeps' stage at
    # concurrency 32 for a run without them), as (throughput ratio, p99 ratio, per round).
    rounds = results.get("head_to_head") or [{
        "tsserve": on.get(32), "python": py.get(32),
        "two_instances": by_concurrency(results.get("two_instances", [])).get(32)}]

    def vs_python(config):
        pairs = [(r[config]["throughput_rps"] / r["python"]["throughput_rps"],
                  r[config]["latency_ms"]["p99"] / r["python"]["latency_ms"]["p99"])
                 for r in rounds if r.get(config) and r.get("python")]
        if not pairs:
            return float("nan"), float("nan"), pairs
        return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs), pairs
    py_ratio, py_p99, one_pairs = vs_python("tsserve")
    two_ratio, two_p99, two_pairs = vs_python("two_instances")
    basis = ("median of %d alternating rounds" % len(one_pairs) if "head_to_head" in results
             else "the sweeps' stage")
    per_round = lambda pairs, index, fmt: ", ".join(fmt % p[index] for p in pairs)  # noqa: E731
    two_note = lambda ratio, index, fmt: (  # noqa: E731
        "; with `--instances 2 --preferred-batch-rows 56` **%s** (%s)" % (
            fmt % ratio, per_round(two_pairs, index, fmt)) if ratio == ratio else "")
    best_verdict = lambda ok_one, ok_two: (verdict(ok_one) if ok_one or not ok_two  # noqa: E731
                                           else "met with 2 instances")
    att = attention_rows(results["attention"])
    a4k = att.get(4096, {})
    full, prob, naive = (a4k.get(k, (float("nan"), float("nan")))
                         for k in ("BM_FullAttention", "BM_ProbAttention", "BM_NaiveProbAttention"))
    maps_off, maps_on = by_concurrency(results["maps_off"]), by_concurrency(results["maps_on"])

    targets = [
        ("Server throughput at saturation / the in-process limit on all cores at the same batch",
         ">= 0.9", "%.0f rows/s at concurrency %d (mean batch %d rows) / %.0f rows/s (%s) = **%.2f**" % (
             saturation["rows_per_second"], saturation["concurrency"], sat_rows, limit_rows_per_s,
             limit_how, saturation["rows_per_second"] / limit_rows_per_s),
         saturation["rows_per_second"] / limit_rows_per_s >= 0.9),
    ] + fused_targets(results) + [
        own_share_target(results, c1, forward7, worker_floor_us, own_share_us, tiny, tiny_us,
                         tiny_overhead_us),
        ("Batching on vs off at concurrency 32 (throughput)", ">= 4x", "**%.1fx**" % batching_ratio,
         batching_ratio >= 4),
        ("vs the Python server at concurrency 32: throughput (%s)" % basis, ">= 10x",
         "**%.1fx** (%s) with %s%s" % (
             py_ratio, per_round(one_pairs, 0, "%.1fx"), defaults, two_note(two_ratio, 0, "%.1fx")),
         best_verdict(py_ratio >= 10, two_ratio >= 10)),
        ("vs the Python server at concurrency 32: p99 (%s)" % basis, "<= 1/5",
         "**%.2f** (%s) with %s%s" % (
             py_p99, per_round(one_pairs, 1, "%.2f"), defaults, two_note(two_p99, 1, "%.2f")),
         best_verdict(py_p99 <= 0.2, two_p99 <= 0.2)),
        ("ProbSparse vs Full at L=4096: speed", ">= 3x", "%.1f ms vs %.1f ms = **%.1fx**" % (
            prob[0], full[0], full[0] / prob[0]), full[0] / prob[0] >= 3),
        ("ProbSparse vs Full at L=4096: peak memory", ">= 4x less", "%.1f vs %.1f MiB = **%.1fx**" % (
            prob[1], full[1], full[1] / prob[1]), full[1] / prob[1] >= 4),
        ("ProbSparse vs naive gather at L=4096: peak memory", ">= 5x less", "%.1f vs %.1f MiB = **%.1fx**" % (
            prob[1], naive[1], naive[1] / prob[1]), naive[1] / prob[1] >= 5),
    ] + saturation_target(results, limit_rows_per_s) + maps_cost_target(results, maps_off, maps_on) + [
        ("A request without attention maps is not slower (concurrency 1, p50)", "no maps <= maps",
         "%.2f ms without, %.2f ms with" % (maps_off[1]["latency_ms"]["p50"], maps_on[1]["latency_ms"]["p50"]),
         maps_off[1]["latency_ms"]["p50"] <= maps_on[1]["latency_ms"]["p50"]),
    ]
    out += ["## Targets", "", "| target | goal | measured | verdict |", "|---|---|---|---|"]
    out += ["| %s | %s | %s | %s |" % (name, goal, measured, ok if isinstance(ok, str) else verdict(ok))
            for name, goal, measured, ok in targets]
    out += ["", "![server sweep](%s/server_sweep.png)" % images_rel, ""]

    out += ["## The server over gRPC (`tsserve-client bench`, closed loop, %g s per stage after %g s warm-up)" % (
        args.duration, args.warmup), "",
        "Each request: 7 variables x 336 points (one ETTh1-shaped window), packed floats. Latency is"
        " client-side; queue and compute are the server's own `Timing`.", ""]
    out.append(sweep_table(results["tsserve"], "tsserve, dynamic batching (defaults)"))
    out.append(sweep_table(results["unbatched"], "tsserve, batching off (`--max-batch-rows 7 --max-queue-delay-ms 0`: a batch is one request)"))
    if "two_instances" in results:
        out.append(sweep_table(results["two_instances"], "tsserve, two model instances (`--instances 2 --preferred-batch-rows 56`: two batcher workers sharing the queue in batches of up to 8 requests)"))
    out.append(sweep_table(results["python"], "Python gRPC server, PyTorch eager, one forward per request (`tests/bench/python_server.py`)"))
    out += head_to_head_table(results.get("head_to_head", []))

    out += ["## The limit: in-process forward of the bundled model (`model_bench`, one thread)", "",
            "The fused CPU kernels are what the server runs (`--cpu-kernels fused`, the default)."
            " LibTorch: its operators with the whole batch in one pass (`batch_invariant: false`, the"
            " fastest LibTorch runs here; the ratios use it), and its batch-invariant path, each row a"
            " pass of its own (`--cpu-kernels torch` with the defaults; attention maps).", "",
            "| rows | fused ms | fused rows/s | LibTorch one batch ms | rows/s | LibTorch row by row ms | rows/s |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    batches = sorted({forward_rows(b, k) for b in results["forward"] for k in FORWARD_NAMES} - {None})
    for rows in batches:
        cells = []
        for kernels in ("fused", "torch", "torch_invariant"):
            ms = forward_ms(results["forward"], rows, kernels)
            cells += ["%.3f" % ms, "%.0f" % (rows / (ms / 1e3))] if ms else ["not run", ""]
        out.append("| %d | %s |" % (rows, " | ".join(cells)))
    if every_core:
        out += ["", "All cores: the fused forward at %d rows runs %.0f rows/s alone and %.0f rows/s in"
                " %d processes at once (%.2fx)." % (
                    every_core["rows"], every_core["alone_rows_per_s"], every_core["together_rows_per_s"],
                    every_core["processes"], every_core["together_rows_per_s"] / every_core["alone_rows_per_s"])]
    out += ["", "Tiny model (T=16, F=4, D=8, 1 layer), 1 row: forward %.1f us in-process; served at"
            " concurrency 1: p50 %.0f us, p99 %.0f us." % (
                tiny_us or float("nan"), tiny["latency_ms"]["p50"] * 1e3, tiny["latency_ms"]["p99"] * 1e3), ""]

    out += fused_table(results)
    out += prob_forward_table(results.get("prob_forward"))
    out += overhead_table(results, overhead_us, tiny_overhead_us)
    out += own_share_table(results.get("own_share_rounds", []))
    out += ceilings(results, on, py, overhead_us)

    out += ["## Attention: Full vs ProbSparse vs naive ProbSparse (B=1, H=8, E=64, factor 5, one forward)", "",
            "| L | Full ms | Full peak MiB | ProbSparse ms | ProbSparse peak MiB | naive ms | naive peak MiB |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    for length in sorted(att):
        row = att[length]
        cells = []
        for kind in ("BM_FullAttention", "BM_ProbAttention", "BM_NaiveProbAttention"):
            cells += ["%.2f" % row[kind][0], "%.1f" % row[kind][1]] if kind in row else ["not run", ""]
        out.append("| %d | %s |" % (length, " | ".join(cells)))
    out += ["", "![attention](%s/attention.png)" % images_rel, ""]

    out += ["## Attention maps: cost per request", "",
            "| concurrency | p50 ms without maps | p50 ms with maps (7 variables x 3 layers, heads averaged) | req/s without | req/s with |",
            "|---:|---:|---:|---:|---:|"]
    for c in sorted(maps_off):
        out.append("| %d | %.2f | %.2f | %.1f | %.1f |" % (
            c, maps_off[c]["latency_ms"]["p50"], maps_on[c]["latency_ms"]["p50"],
            maps_off[c]["throughput_rps"], maps_on[c]["throughput_rps"]))
    out += ["", "In-process, one batch of 64 rows (`BM_PatchTSTAttentionMaps`, rows/prob/maps):", "",
            "| benchmark | ms |", "|---|---:|"]
    out += ["| %s | %.2f |" % (b["name"], b["real_time"]) for b in results["maps_model"]]
    out.append("")

    if "itr_maps_off" in results:
        out += itransformer_section(results)
        out += informer_section(results)
    out += live_series_section(results.get("live_series", []))
    out += http_under_attack_section(results.get("http_under_attack"))
    out += series_store_section(results.get("series_store"))

    # Only what this run measured: the reading of it is docs/performance.md's, by hand.
    out += ["What these figures say: "
            "[docs/performance.md](docs/performance.md#reading-the-benchmarks)."]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    parser.add_argument("--images", default=os.path.join(ROOT, "docs", "bench"))
    parser.add_argument("--duration", type=float, default=5.0, help="seconds recorded per stage")
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--concurrency", default="1..128")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--min-time", type=float, default=1.0, help="model_bench seconds per case")
    parser.add_argument("--attention-filter", default="BM_(Full|Prob|NaiveProb)Attention/")
    parser.add_argument("--quick", action="store_true", help="a smoke run: short stages, small L")
    parser.add_argument("--results-json", help="also write the raw results here")
    parser.add_argument("--from-json", help="measure nothing: report the results a --results-json run wrote")
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    if args.quick:
        args.duration, args.warmup, args.min_time = 1.0, 0.3, 0.1
        args.concurrency = "1,8,32"
        args.attention_filter = "BM_(Full|Prob|NaiveProb)Attention/(64|256|1024|4096)$"
    bench = Bench(args)
    if args.from_json:
        with open(args.from_json) as f:
            bench.results = json.load(f)
    else:
        bench.measure()
    if args.results_json and not args.from_json:
        with open(args.results_json, "w") as f:
            json.dump(bench.results, f, indent=1)
    plot(bench.results, args.images)
    images_rel = os.path.relpath(args.images, os.path.dirname(os.path.abspath(args.out)))
    with open(args.out, "w") as f:
        f.write(report(bench.results, args, images_rel))
    log("wrote %s and %s/*.png" % (args.out, args.images))


if __name__ == "__main__":
    main()
