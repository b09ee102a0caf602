"""Real processes for the scale-out tests (issue 46): a redis-server with AOF always, tsserve
replicas sharing it (--series-store redis://...), nginx balancing HTTP round robin over
them with a retry on refusal and gRPC round robin over their gRPC ports, and one separate
tsserve on its in-process store that is fed the same calls: what "the replicas answer as
one server" is measured against.

The tsserve processes are tests/reliability/load/tsserve_fleet.py's Server (restart on the
same ports, SIGTERM/kill -9, /metrics); HTTP calls are tests/e2e/tsserve_http.py's call(),
gRPC calls the tsserve.v1 Observe RPC (GrpcObserver, stubs generated as
tests/e2e/oip_client_check.py does).
Every wait is bounded and waits for a condition (a port answering, a process exit, a
count reaching a value), never for time to pass.
"""

import calendar
import csv
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reliability", "load"))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import tsserve_fleet  # noqa: E402
from tsserve_fleet import Failure, Server, check, run_main, wait_until  # noqa: E402,F401
from tsserve_http import call  # noqa: E402

REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CLI = "/usr/bin/redis-cli"
NGINX = "/usr/sbin/nginx"
MODEL = "patchtst-etth1"
COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]  # the bundled model's 7
SEQ_LEN = 336
# ETTh1's standard split (../shared/data/README.md): test = rows 11,520..14,399, its
# windows starting seq_len rows earlier.
TEST_FIRST_ROW = 8640 + 2880 - SEQ_LEN
TEST_END_ROW = 8640 + 2880 + 2880
EXIT_SKIP = 77


def skip_unless_installed():
    """Exit 77 with a reason tests/tools/skip_summary.py knows ("X is not installed": it
    checks the program is really absent) when redis-server or nginx is missing."""
    for program in (REDIS_SERVER, NGINX):
        if not os.access(program, os.X_OK):
            print("SKIPPED: %s is not installed (deploy/install-deps.sh installs it)"
                  % os.path.basename(program))
            sys.exit(EXIT_SKIP)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_test_split(csv_path):
    """[(unix seconds, {column: value})] of ETTh1's test split (its windows' first rows
    included). Values as the CSV's text reads into a double: what every server is sent."""
    if not os.path.exists(csv_path):
        print("SKIPPED: %s is missing" % csv_path)
        sys.exit(EXIT_SKIP)
    rows = []
    with open(csv_path, newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if TEST_FIRST_ROW <= i < TEST_END_ROW:
                when = calendar.timegm(time.strptime(row["date"], "%Y-%m-%d %H:%M:%S"))
                rows.append((when, {c: float(row[c]) for c in COLUMNS}))
    check(len(rows) == TEST_END_ROW - TEST_FIRST_ROW,
          "%s has %d rows of the test split, expected %d" % (csv_path, len(rows),
                                                            TEST_END_ROW - TEST_FIRST_ROW))
    return rows


def observe_body(points, forecast):
    return {"timestamps": [t for t, _ in points],
            "values": {c: [v[c] for _, v in points] for c in COLUMNS},
            "forecast": forecast, "model": MODEL}


def observe(port, key, points, forecast):
    """(status, answer) of POST /v1/series/KEY/observe on 127.0.0.1:PORT; status None and
    the error's text when no HTTP answer came (refused, reset) or it was not JSON (a
    balancer's own error page)."""
    try:
        return call(port, "/v1/series/%s/observe" % key, observe_body(points, forecast))
    except (urllib.error.URLError, OSError, ValueError) as error:
        return None, {"error": "%s: %s" % (type(error).__name__, error)}


# What a call's answer holds about this call alone, not about the series: its request id
# and its forecast's timing (queue wait, compute time, the batch it shared).
PER_CALL = ("request_id", "timing")


def _without_request_ids(value):
    if isinstance(value, dict):
        return {k: _without_request_ids(v) for k, v in value.items() if k not in PER_CALL}
    if isinstance(value, list):
        return [_without_request_ids(v) for v in value]
    return value


def _clear_per_call(message):
    """`message` (a protobuf message) with its PER_CALL fields cleared, in every message
    field it holds too (ObserveResponse.request_id, its forecast's request_id and timing)."""
    for field, value in message.ListFields():
        if field.name in PER_CALL:
            message.ClearField(field.name)
        elif field.message_type is not None:
            if field.label == field.LABEL_REPEATED:
                if not field.message_type.GetOptions().map_entry:
                    for item in value:
                        _clear_per_call(item)
            else:
                _clear_per_call(value)
    return message


def comparable(answer):
    """An Observe answer to compare with another server's: every field but PER_CALL ones.
    HTTP's JSON as text, numbers as Python writes a double (equal text = equal bits);
    gRPC's ObserveResponse as its deterministic wire bytes (doubles as their 8 bytes), as
    fast as a feed of 100,000 calls needs (json_format's dict costs ~16 ms an answer)."""
    if isinstance(answer, dict):
        return json.dumps(_without_request_ids(answer), sort_keys=True)
    copy = type(answer)()
    copy.CopyFrom(answer)
    return _clear_per_call(copy).SerializeToString(deterministic=True)


def as_dict(answer):
    """An answer as JSON values: HTTP's as it is, gRPC's through json_format (proto field
    names, default values included), for window_of() and first_difference()."""
    if isinstance(answer, dict):
        return answer
    from google.protobuf import json_format
    return json_format.MessageToDict(answer, preserving_proto_field_name=True,
                                     including_default_value_fields=True)


def window_of(answer):
    """What an Observe answer says of the key's window alone: its size and the forecast
    made from it (values, bands, times), as text; not whether that forecast was kept
    (forecast_stored, and timestamps_note, which says why one was not; gRPC's
    forecast_timestamps_note)."""
    forecast = {k: v for k, v in (answer.get("forecast") or {}).items()
                if k not in ("forecast_stored", "timestamps_note", "forecast_timestamps_note")}
    return json.dumps(_without_request_ids({"window_points": answer.get("window_points"),
                                            "forecast": forecast}), sort_keys=True)


def first_difference(a, b, where="answer"):
    """Where two JSON values first differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in PER_CALL:
                continue
            if k not in a or k not in b:
                return "%s.%s: present in one only" % (where, k)
            found = first_difference(a[k], b[k], "%s.%s" % (where, k))
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, "%s[%d]" % (where, i))
            if found:
                return found
        return None
    return None if json.dumps(a) == json.dumps(b) else "%s: %r vs %r" % (where, a, b)


def is_duplicate_refusal(status, answer, timestamp):
    """A 400 (gRPC: INVALID_ARGUMENT) refusing `timestamp` because the key already holds it
    (the point was stored by an earlier try whose answer was lost)."""
    error = answer.get("error", "")
    return status in (400, "INVALID_ARGUMENT") and ("%d repeats or precedes" % timestamp) in error


class GrpcObserver:
    """tsserve.v1 ForecastService.Observe over cleartext gRPC, one channel per target
    (shared by the feeder's threads). Stubs must be generated first (oip_client_check's
    generate_stubs). observe() answers as the HTTP observe() does: (status, answer), the
    status "OK" or the gRPC code's name, the answer the ObserveResponse itself (comparable()
    and as_dict() take it) or {"error": details}."""

    def __init__(self):
        import grpc
        from tsserve.v1 import forecast_service_pb2, forecast_service_pb2_grpc
        self.grpc = grpc
        self.v1, self.v1_grpc = forecast_service_pb2, forecast_service_pb2_grpc
        self.lock = threading.Lock()
        self.channels, self.stubs = {}, {}

    def stub(self, port):
        with self.lock:
            if port not in self.stubs:
                self.channels[port] = self.grpc.insecure_channel("127.0.0.1:%d" % port)
                self.stubs[port] = self.v1_grpc.ForecastServiceStub(self.channels[port])
            return self.stubs[port]

    def observe(self, port, key, points, forecast, timeout_s=60):
        request = self.v1.ObserveRequest(
            series_key=key, model=MODEL, variable_names=COLUMNS,
            timestamps=[t for t, _ in points],
            values=[v[c] for _, v in points for c in COLUMNS],  # [T, N] row-major
            forecast=forecast)
        try:
            return "OK", self.stub(port).Observe(request, timeout=timeout_s)
        except self.grpc.RpcError as error:
            return error.code().name, {"error": error.details() or ""}

    def close(self):
        with self.lock:
            for channel in self.channels.values():
                channel.close()
            self.channels, self.stubs = {}, {}

    stop = close  # for Cleanup


class Redis:
    """redis-server on loopback, AOF fsynced at every write (or as `appendfsync` says), its
    files in `folder`."""

    def __init__(self, folder, appendfsync="always"):
        self.folder, self.appendfsync = folder, appendfsync
        self.port = free_port()
        self.process = None
        self.start()

    @property
    def url(self):
        return "redis://127.0.0.1:%d/0" % self.port

    def start(self):
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--appendfsync", self.appendfsync, "--dir", self.folder,
             "--logfile", os.path.join(self.folder, "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: self.cli("PING") == "PONG", 30, "redis-server to answer PING on %d"
                   % self.port)

    def cli(self, *command):
        """redis-cli's answer (text), or "" when it cannot reach the server."""
        try:
            done = subprocess.run([REDIS_CLI, "-p", str(self.port), *command],
                                  capture_output=True, text=True, timeout=10)
        except subprocess.TimeoutExpired:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    def kill9(self):
        self.process.kill()
        self.process.wait(timeout=30)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


NGINX_CONFIG = """# A minimal non-root nginx for the scale-out tests (tests/scaleout/cluster.py)
daemon off;
master_process on;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log {dir}/access.log;
  client_body_temp_path {dir}/client_body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  upstream tsserve_http {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    client_max_body_size 16m;
    location / {{
      proxy_pass http://tsserve_http;
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
    }}
  }}
  upstream tsserve_grpc {{
{grpc_servers}
  }}
  server {{
    listen 127.0.0.1:{grpc_port} http2;
    client_max_body_size 16m;
    location / {{
      grpc_pass grpc://tsserve_grpc;
      grpc_next_upstream error timeout;
      grpc_connect_timeout 2s;
      grpc_read_timeout 60s;
    }}
  }}
}}
"""


def render_nginx_config(folder, port, http_ports, grpc_port, grpc_ports):
    """deploy/nginx/render.sh's config (the template compose uses) when the repository has
    it, rendered with these loopback ports (HTTP on `port` over `http_ports`, gRPC on
    `grpc_port` over `grpc_ports`) and `folder` for its runtime files; else the minimal
    config above. Returns (path, which)."""
    path = os.path.join(folder, "nginx.conf")
    render = os.path.join(HERE, "..", "..", "deploy", "nginx", "render.sh")
    if os.path.exists(render):
        env = dict(os.environ,
                   TSSERVE_UPSTREAMS_HTTP=" ".join("127.0.0.1:%d" % p for p in http_ports),
                   TSSERVE_UPSTREAMS_GRPC=" ".join("127.0.0.1:%d" % p for p in grpc_ports),
                   TSSERVE_NGINX_HTTP_LISTEN="127.0.0.1:%d" % port,
                   TSSERVE_NGINX_GRPC_LISTEN="127.0.0.1:%d" % grpc_port,
                   TSSERVE_NGINX_RUNTIME_DIR=folder)
        done = subprocess.run(["sh", render], env=env, capture_output=True, text=True, timeout=60)
        check(done.returncode == 0, "deploy/nginx/render.sh exited %d: %s" % (
            done.returncode, done.stderr[-2000:]))
        with open(path, "w") as f:
            f.write(done.stdout)
        return path, "deploy/nginx/tsserve.conf.template rendered by deploy/nginx/render.sh"
    # max_fails=0: a replica that refused or answered 503 is tried again by the next call,
    # never marked down (with all 3 down, nginx would answer 502 "no live upstreams").
    servers = "\n".join("    server 127.0.0.1:%d max_fails=0;" % p for p in http_ports)
    grpc_servers = "\n".join("    server 127.0.0.1:%d max_fails=0;" % p for p in grpc_ports)
    with open(path, "w") as f:
        f.write(NGINX_CONFIG.format(dir=folder, port=port, servers=servers,
                                    grpc_port=grpc_port, grpc_servers=grpc_servers))
    return path, "tests/scaleout/cluster.py's minimal config (no deploy/nginx/render.sh)"


class Nginx:
    """nginx balancing HTTP round robin over `http_ports` on `port`, retrying the next
    replica on a refused connection, a timeout or a 503 (POSTs included), and gRPC (HTTP/2)
    round robin over `grpc_ports` on `grpc_port`, retrying the next replica on a refused
    connection or a connect timeout only (grpc_next_upstream error timeout): a gRPC status
    travels in the trailers of an HTTP 200, so UNAVAILABLE from a draining replica or a
    store outage, and nginx's own 502 for a replica lost mid-call (a POST once sent is not
    passed on: no non_idempotent), reach the caller as UNAVAILABLE, to be retried by it."""

    def __init__(self, folder, http_ports, grpc_ports):
        os.makedirs(folder, exist_ok=True)
        self.folder, self.port, self.grpc_port = folder, free_port(), free_port()
        self.config, self.which = render_nginx_config(folder, self.port, http_ports,
                                                      self.grpc_port, grpc_ports)
        self.process = subprocess.Popen([NGINX, "-c", self.config, "-p", folder],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def listening():
            check(self.process.poll() is None, "nginx exited %s: %s" % (
                self.process.returncode, self.process.stderr.read().decode()[-2000:]))
            try:
                for port in (self.port, self.grpc_port):
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        pass
                return True
            except OSError:
                return False
        wait_until(listening, 30, "nginx to listen on %d (HTTP) and %d (gRPC)"
                   % (self.port, self.grpc_port))

    def upstream_errors(self):
        """The errors nginx logged talking to a replica, by kind (each one a try it passed
        to the next replica): "refused" (connect() failed: nothing listening), "lost" (the
        connection reset or closed before the answer: a call in flight), "other"."""
        kinds = {"refused": 0, "lost": 0, "other": 0}
        try:
            with open(os.path.join(self.folder, "error.log")) as f:
                lines = [line for line in f if "upstream" in line and "[error]" in line]
        except OSError:
            lines = []
        for line in lines:
            if "Connection refused" in line:
                kinds["refused"] += 1
            elif "prematurely closed" in line or "reset by peer" in line:
                kinds["lost"] += 1
            else:
                kinds["other"] += 1
        return kinds

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(binary, work, name, store_url=None, env=None):
    """A tsserve (tsserve_fleet.Server) with HTTP on a fixed free port, so restart() brings
    it back where nginx sends; on `store_url` when given. `env` adds to the environment."""
    http_port = free_port()
    args = ["--http-address", "127.0.0.1:%d" % http_port]
    if store_url:
        args += ["--series-store", store_url]
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        server = Server(binary, work, name, args=args)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    server.http_port = http_port
    return server


ACCURACY_COUNTS = ["tsserve_forecast_scored_points_total", "tsserve_interval_covered_points_total",
                   "tsserve_interval_scored_points_total", "tsserve_observed_points_total",
                   "tsserve_observed_checked_points_total", "tsserve_observed_outside_points_total"]
ACCURACY_SUMS = ["tsserve_forecast_abs_error_total", "tsserve_forecast_squared_error_total"]
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def accuracy_samples(expositions):
    """{(name, labels): value} of the live accuracy counters (server/accuracy/
    accuracy_metrics.cpp, server/live/live_series_metrics.cpp), summed over expositions."""
    total = {}
    for exposition in expositions:
        for line in exposition.splitlines():
            match = tsserve_fleet._SAMPLE.match(line)
            if not match or match.group(1) not in ACCURACY_COUNTS + ACCURACY_SUMS:
                continue
            labels = tuple(sorted(_LABEL.findall(match.group(2) or "")))
            key = (match.group(1), labels)
            total[key] = total.get(key, 0.0) + float(match.group(3))
    return total


def accuracy_differences(replicas, single):
    """Lines naming each accuracy series whose sum over `replicas` differs from `single`'s
    (counts exactly, sums within 1e-9 relative); and the number of series compared."""
    summed = accuracy_samples(r.metrics() for r in replicas)
    alone = accuracy_samples([single.metrics()])
    differences = []
    for key in sorted(set(summed) | set(alone)):
        a, b = summed.get(key, 0.0), alone.get(key, 0.0)
        if key[0] in ACCURACY_COUNTS:
            same = a == b
        else:
            same = abs(a - b) <= 1e-9 * max(abs(a), abs(b))
        if not same:
            differences.append("%s%s: replicas %r, one server %r" % (key[0], dict(key[1]), a, b))
    return differences, len(set(summed) | set(alone))


class Cleanup:
    """Stops every process handed to it, last first, whatever happened."""

    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return item

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for item in reversed(self.items):
            try:
                if isinstance(item, Server):
                    item.ensure_stopped()
                else:
                    item.stop()
            except Exception as error:  # keep stopping the others
                print("cleanup: %s" % error, file=sys.stderr)


def fresh_folder(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path
