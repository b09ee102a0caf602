"""The metrics only a server on a shared series store shows (tsserve_series_store_up,
_failures_total, _seconds): docs_check.py drives one through a real redis-server, an
Observe that reaches it, and one more after the store was stopped (a failure counted),
and adds its /metrics to the driven server's. Fails (raises) where redis-server is
missing: deploy/install-deps.sh installs it, so the docs' metric names stay checked."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

REDIS_SERVER = "/usr/bin/redis-server"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"redis-server did not listen on {port} within {seconds} s")


def scrape_store_server(binary, root):
    if not os.access(REDIS_SERVER, os.X_OK):
        raise RuntimeError(f"{REDIS_SERVER} is missing: run deploy/install-deps.sh")
    folder = tempfile.mkdtemp(prefix="docs-check-redis-")
    port = free_port()
    redis = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no", "--dir", folder,
                              "--logfile", "/dev/null"])
    server = None
    try:
        wait_for_port(port, 20)
        server = subprocess.Popen(
            [binary, "--grpc-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0",
             "--metrics-address", "127.0.0.1:0", "--series-store", f"redis://127.0.0.1:{port}/0",
             "--series-store-timeout-ms", "200"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ports = dict(re.findall(r"(\w+_port)=(\d+)", server.stdout.readline()))
        if "http_port" not in ports:
            raise RuntimeError(f"{binary} on a shared store did not report its ports")

        def observe(allowed):
            body = json.dumps({"timestamps": [1_700_000_000], "values": {"OT": [1.0]},
                               "model": "patchtst-etth1"}).encode()
            request = urllib.request.Request(
                f"http://127.0.0.1:{ports['http_port']}/v1/series/docs-check/observe",
                data=body, headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    code = answer.status
            except urllib.error.HTTPError as error:
                code = error.code
            if code not in allowed:
                raise RuntimeError(f"observe on a shared store: HTTP {code}, expected {allowed}")
        observe((200, 400))  # 400: the bundled model takes 7 variables; the store was reached
        redis.send_signal(signal.SIGKILL)
        redis.wait(timeout=30)
        observe((503,))
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['metrics_port']}/metrics",
                                    timeout=30) as answer:
            return answer.read().decode()
    finally:
        for process in (server, redis):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)
