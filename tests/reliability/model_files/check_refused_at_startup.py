"""Starts the real tsserve on each case of make_bad_model_files.py and checks the outcome.

    /usr/bin/python3 tests/reliability/model_files/check_refused_at_startup.py \
        --tsserve build/server/tsserve --cases DIR/cases.json --work DIR/runs

A bad case passes when tsserve exits on its own with a status in 1..127 (no signal, so no
crash and no abort), prints one error line (all of stderr, bar an invalid option's usage
hint) that names the file and holds the expected phrase, never prints its "tsserve listening" line, and never answers a Forecast
on its gRPC port (probed from launch until exit; the metrics endpoint, which starts
before the model loads, must never report ready). A control case passes when the same
probe gets a Forecast answered and SIGTERM then drains it to exit 0.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "client", "python"))

START_LIMIT_S = 120  # a generous bound on one start-up attempt on a busy 2-core machine
# spdlog's text format: "<time> <level> [tsserve] <message>".
ERROR_LINE = re.compile(r"^\S+ (critical|error) ")
INFO_LINE = re.compile(r"^\S+ info  \[tsserve\] ")


def free_ports(count):
    """Ports free now, distinct (all held open at once while being picked)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Probe:
    """Forecast calls and /metrics scrapes against a starting server, counted."""

    def __init__(self, pb, pb_grpc, grpc, grpc_port, metrics_port, seq_len):
        # Short reconnect backoff: a port that opens is seen within ~0.1 s, not after gRPC's
        # default 1 s+ backoff, so a brief window of serving cannot slip between probes.
        options = [("grpc.initial_reconnect_backoff_ms", 50), ("grpc.min_reconnect_backoff_ms", 50),
                   ("grpc.max_reconnect_backoff_ms", 100)]
        self.grpc = grpc
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % grpc_port, options=options)
        self.stub = pb_grpc.ForecastServiceStub(self.channel)
        self.request = pb.ForecastRequest()
        self.request.series.shape.extend([1, seq_len])
        self.request.series.values.extend([float(i % 5) for i in range(seq_len)])
        self.metrics_url = "http://127.0.0.1:%d/metrics" % metrics_port
        self.forecasts = {"attempts": 0, "ok": 0}
        self.metrics = {"scrapes": 0, "ready_1": 0}

    def once(self):
        self.forecasts["attempts"] += 1
        try:
            self.stub.Forecast(self.request, timeout=0.5)
            self.forecasts["ok"] += 1
        except self.grpc.RpcError:
            pass
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=0.5) as response:
                text = response.read().decode()
            self.metrics["scrapes"] += 1
            if re.search(r"^tsserve_ready 1(\.0*)?$", text, re.MULTILINE):
                self.metrics["ready_1"] += 1
        except OSError:
            pass

    def close(self):
        self.channel.close()


def run_case(case, args, stubs, log_dir):
    import grpc
    pb, pb_grpc = stubs
    grpc_port, metrics_port = free_ports(2)
    out_path = os.path.join(log_dir, case["name"] + ".stdout")
    err_path = os.path.join(log_dir, case["name"] + ".stderr")
    command = [args.tsserve] + case["args"] + [
        "--grpc-address", "127.0.0.1:%d" % grpc_port, "--http-address", "", "--metrics-address", "127.0.0.1:%d" % metrics_port,
        "--threads", "1", "--drain-timeout-s", "30"]
    probe = Probe(pb, pb_grpc, grpc, grpc_port, metrics_port, args.seq_len)
    started = time.monotonic()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
    problems, rc, terminated = [], None, False
    try:
        while rc is None:
            if time.monotonic() - started > START_LIMIT_S:
                problems.append("still running after %d s" % START_LIMIT_S)
                process.kill()
                rc = process.wait()
                break
            probe.once()
            if case["serves"] and probe.forecasts["ok"] > 0 and not terminated:
                process.send_signal(signal.SIGTERM)
                terminated = True
            try:
                rc = process.wait(timeout=0.05)  # paces the probe; returns at once on exit
            except subprocess.TimeoutExpired:
                pass
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        probe.close()
    seconds = time.monotonic() - started
    with open(out_path) as f:
        stdout = f.read()
    with open(err_path) as f:
        stderr = f.read()
    error_lines = [line for line in stderr.splitlines() if ERROR_LINE.search(line)]
    # A start-up failure is logged at critical level; an invalid option is refused before
    # logging starts, as the first line of stderr (a usage hint follows it).
    lines = stderr.splitlines()
    message = error_lines[0] if error_lines else (lines[0] if lines else "")

    if case["serves"]:
        if probe.forecasts["ok"] == 0:
            problems.append("a good model never answered a Forecast")
        if rc != 0:
            problems.append("exit status %d after SIGTERM, expected 0" % rc)
        if error_lines:
            problems.append("error lines from a good model: %r" % error_lines)
    else:
        if rc is None or rc < 0:
            problems.append("killed by signal %d" % -(rc or 0))
        elif rc == 0 or rc >= 128:
            problems.append("exit status %d, expected 1..127" % rc)
        if "tsserve listening" in stdout:
            problems.append("printed its listening line")
        if probe.forecasts["ok"]:
            problems.append("answered %d Forecast call(s)" % probe.forecasts["ok"])
        if probe.metrics["ready_1"]:
            problems.append("metrics reported ready 1")
        if len(error_lines) > 1:
            problems.append("%d error lines, expected 1: %r" % (len(error_lines), error_lines))
        others = [line for line in lines if not ERROR_LINE.search(line) and not INFO_LINE.search(line)]
        if error_lines and others:
            # The logged refusal and the server's progress lines ("loading model ...") are the
            # whole of stderr: no other line, no stack trace.
            problems.append("stderr has %d lines besides the message and progress: %r"
                            % (len(others), others[:3]))
        if not message:
            problems.append("nothing on stderr")
        if case["names"] not in message:
            problems.append("the message does not name %s" % case["names"])
        if case["expect"] not in message:
            problems.append("the message lacks %r" % case["expect"])
        for word in ("Segmentation", "terminate called", "AddressSanitizer", "core dumped"):
            if word in stderr:
                problems.append("stderr holds %r" % word)
    return {"name": case["name"], "rc": rc, "seconds": round(seconds, 2), "probe": probe.forecasts,
            "metrics": probe.metrics, "message": message, "problems": problems}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--only", default="", help="run only cases whose name holds this text")
    parser.add_argument("--seq-len", type=int, default=16, help="the control model's seq_len")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    try:
        import grpc  # noqa: F401
        import grpc_tools  # noqa: F401
    except ImportError:
        print("SKIPPED: %s lacks grpcio or grpc_tools (Debian python3-grpcio, python3-grpc-tools)"
              % sys.executable)
        return 77
    # Stubs from proto/ into the work folder, not the user's cache shared with other runs.
    os.environ["XDG_CACHE_HOME"] = os.path.join(args.work, "cache")
    from forecast_from_csv import load_stubs
    stubs = load_stubs()

    with open(args.cases) as f:
        cases = [c for c in json.load(f) if args.only in c["name"]]
    results = []
    for case in cases:
        result = run_case(case, args, stubs, args.work)
        results.append(result)
        verdict = "ok  " if not result["problems"] else "FAIL"
        short = re.sub(r"^\S+ (critical|error) \[tsserve\] ", "", result["message"])
        print("%s %-40s exit %-4s %5.2f s  probes %3d  %s" % (
            verdict, case["name"], result["rc"], result["seconds"], result["probe"]["attempts"],
            short if len(short) < 220 else short[:217] + "..."), flush=True)
        for problem in result["problems"]:
            print("     - " + problem, flush=True)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    failed = [r["name"] for r in results if r["problems"]]
    refused = [r for c, r in zip(cases, results) if not c["serves"]]
    print("%d cases: %d bad files refused as expected, %d of %d controls served; %d failed%s" % (
        len(cases), sum(1 for r in refused if not r["problems"]),
        sum(1 for c, r in zip(cases, results) if c["serves"] and not r["problems"]),
        sum(1 for c in cases if c["serves"]), len(failed), (": " + ", ".join(failed)) if failed else ""))
    print("during the %d refused start-ups: %d Forecast probes, %d answered; the metrics endpoint "
          "answered %d scrapes, %d of them with tsserve_ready 1" % (
              len(refused), sum(r["probe"]["attempts"] for r in refused),
              sum(r["probe"]["ok"] for r in refused),
              sum(r["metrics"]["scrapes"] for r in refused), sum(r["metrics"]["ready_1"] for r in refused)))
    if not cases:
        print("no cases matched", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
