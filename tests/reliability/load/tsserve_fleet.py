"""Real tsserve processes on loopback and the real `tsserve-client bench` against them,
for the load tests (overload, drain, replica loss).

Every wait is bounded and waits for an event (a line on a pipe, a process exit, a count
in /metrics reaching a value), never for time to pass. Figures come from the bench's
--json output, the servers' own /metrics and log, and /proc/PID/status.
"""

import argparse
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.request

START_TIMEOUT_S = 180  # model load + warm-up on a busy 2-core machine
_SAMPLE = re.compile(r"^(\w+)(?:\{([^}]*)\})? (\S+)$")
_LABEL = re.compile(r'(\w+)="([^"]*)"')


class Failure(Exception):
    """A test expectation that did not hold (exit 1 with the message)."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def fleet_arguments(doc):
    """The parser every load script starts from: the two binaries and a work folder; the
    first line of `doc` (the script's docstring) describes it."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--client", required=True)
    parser.add_argument("--work", required=True)
    return parser


def run_main(main):
    """Runs a load script's main: a Failure is printed as FAIL and exits 1."""
    try:
        main()
    except Failure as failure:
        print("FAIL: %s" % failure, file=sys.stderr)
        sys.exit(1)


def wait_until(predicate, timeout_s, what, poll_s=0.05):
    """Polls `predicate` until it is true; Failure naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure("timed out after %g s waiting for %s" % (timeout_s, what))
        time.sleep(poll_s)


class Server:
    """One tsserve process: `tsserve --grpc-address 127.0.0.1:PORT --metrics-address
    127.0.0.1:0 ARGS`, ready once it prints its listening line. PORT 0 picks a free port;
    restart() brings a replacement up on the same port."""

    def __init__(self, binary, work, name, args=(), port=0):
        self.binary, self.name, self.args = binary, name, list(args)
        self.log_path = os.path.join(work, name + ".log")
        self.process = None
        self.port = port
        self.metrics_port = 0
        self._start(log_mode="w")

    def _start(self, log_mode="a"):
        log = open(self.log_path, log_mode)  # a restart appends to the same log
        self.process = subprocess.Popen(
            [self.binary, "--grpc-address", "127.0.0.1:%d" % self.port, "--http-address", "",
             "--metrics-address", "127.0.0.1:0"] + self.args,
            stdout=subprocess.PIPE, stderr=log, text=True)
        log.close()
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT_S)
        line = self.process.stdout.readline() if ready else ""
        match = re.search(r"grpc_port=(\d+) metrics_port=(\d+)", line)
        if not match:
            self.process.kill()
            raise Failure("%s did not report listening (%r); log:\n%s" % (self.name, line, self.log()))
        self.port, self.metrics_port = int(match.group(1)), int(match.group(2))

    @property
    def target(self):
        return "127.0.0.1:%d" % self.port

    @property
    def pid(self):
        return self.process.pid

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def metrics(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.metrics_port, timeout=10) as r:
            return r.read().decode()

    def metric_sum(self, name, **labels):
        """The sum of every sample of `name` whose labels include `labels`."""
        return metric_sum(self.metrics(), name, **labels)

    def forecasts(self, code="OK"):
        return self.metric_sum("tsserve_requests_total", method="Forecast", code=code)

    def rss_kib(self):
        return proc_status_kib(self.pid, "VmRSS")

    def terminate(self, timeout_s=120):
        """SIGTERM; returns (exit code, seconds from the signal to the exit)."""
        sent = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout_s)
        return code, time.monotonic() - sent

    def kill9(self):
        self.process.kill()
        self.process.wait(timeout=60)

    def restart(self):
        """A fresh process on the same port (after kill9 or terminate)."""
        check(self.process.poll() is not None, "%s is still running" % self.name)
        self._start()

    def ensure_stopped(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def metric_sum(exposition, name, **labels):
    total = 0.0
    for line in exposition.splitlines():
        match = _SAMPLE.match(line)
        if not match or match.group(1) != name:
            continue
        have = dict(_LABEL.findall(match.group(2) or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(match.group(3))
    return total


def answered_summary(log):
    """The counts of the last stop logged ("stopped (drained); calls answered since start:
    Forecast: OK 12, UNAVAILABLE 3; ..."), as {method: {code: count}}; None if no process
    of this log stopped."""
    matches = list(re.finditer(r"stopped \((drained|drain timeout passed)\); calls answered since start: (.*)$",
                               log, re.MULTILINE))
    if not matches:
        return None
    match = matches[-1]
    result = {}
    if match.group(2).strip() == "none":
        return result
    for part in match.group(2).split("; "):
        method, codes = part.split(": ", 1)
        result[method] = {code: int(n) for code, n in (c.rsplit(" ", 1) for c in codes.split(", "))}
    return result


def proc_status_kib(pid, field):
    """A memory field of /proc/PID/status (VmRSS, VmHWM) in KiB; 0 once the process is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class ServerPeaks:
    """The highest VmRSS of a server process, and the most calls it held in flight
    (tsserve_inflight_requests), seen while the `with` block runs. Sampled every 50 ms on a
    thread: a measurement, nothing waits on it."""

    def __init__(self, server):
        self.server, self.peak_kib, self.peak_inflight = server, 0, 0
        self._stop = threading.Event()

    def _take(self):
        self.peak_kib = max(self.peak_kib, proc_status_kib(self.server.pid, "VmRSS"))
        try:
            inflight = self.server.metric_sum("tsserve_inflight_requests")
        except OSError:  # the process is gone, or its metrics listener is
            return
        self.peak_inflight = max(self.peak_inflight, int(inflight))

    def _sample(self):
        while True:
            self._take()
            if self._stop.wait(0.05):
                return

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._take()


def bench_command(client, targets, args):
    command = [client, "bench", "--json", "--target", ",".join(targets)]
    return command + [str(a) for a in args]


def run_bench(client, targets, args, timeout_s=600):
    """Runs `tsserve-client bench --json` to its end; returns the parsed JSON."""
    done = subprocess.run(bench_command(client, targets, args), capture_output=True, text=True,
                          timeout=timeout_s)
    check(done.returncode == 0, "bench exited %d: %s" % (done.returncode, done.stderr[-2000:]))
    return json.loads(done.stdout)


class BackgroundBench:
    """`tsserve-client bench --json` running while the test acts on the servers; stop()
    ends it with SIGINT, which makes the bench finish its calls in flight and print what
    it measured."""

    def __init__(self, client, targets, args):
        self.process = subprocess.Popen(bench_command(client, targets, args),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def stop(self, timeout_s=120):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=timeout_s)
        check(self.process.returncode == 0, "bench exited %d: %s" % (self.process.returncode, err[-2000:]))
        return json.loads(out)

    def ensure_stopped(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def stage_errors(stage):
    return {code: n for code, n in stage["errors"].items() if n}


def fmt_ms(value):
    return "%.1f" % value
