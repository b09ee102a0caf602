"""The HTTP door under hostile input, against the real tsserve binary: each row of issue
48's table and each item of its read, with the bound it must hold, then the server still
alive, answering health and a real forecast.

    /usr/bin/python3 tests/security/http_hostile_inputs.py --tsserve build/server/tsserve

Costs are the server's own CPU time (utime + stime from /proc) and resident memory
(VmRSS), read around each probe; probes run one at a time. Prints one line per check
and exits 1 if any failed."""
import argparse
import json
import os
import resource
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from tsserve_http import start_tsserve_ports, stop_tsserve  # noqa: E402

MODEL = "patchtst-etth1"
COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
TICKS = os.sysconf("SC_CLK_TCK")
failures = []


def check(name, ok, detail):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)
    if not ok:
        failures.append(name)


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def request(port, method, path, body=b"", headers=None, timeout=60):
    """(status, headers dict, body bytes) of one request on a fresh connection."""
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n" % (method, path, port)
    for name, value in (headers or {}).items():
        head += "%s: %s\r\n" % (name, value)
    if body or method == "POST":
        head += "Content-Length: %d\r\n" % len(body)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        try:
            conn.sendall(head.encode() + b"\r\n" + body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused on its headers; the answer is still there to read
        data = b""
        while True:
            try:
                chunk = conn.recv(1 << 16)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    return parse_reply(data)


def parse_reply(data):
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


JSON = {"Content-Type": "application/json"}


def window(points=336):
    return {c: [float(v + (t % 24)) for t in range(points)] for v, c in enumerate(COLUMNS)}


def forecast_ok(port, headers=None):
    status, _, _ = request(port, "POST", "/v1/models/%s/forecast" % MODEL,
                           json.dumps({"series": window()}).encode(), dict(JSON, **(headers or {})))
    return status == 200


def alive(name, server, port, headers=None):
    status, _, _ = request(port, "GET", "/v2/health/live")
    check(name + " / alive after", server.poll() is None and status == 200 and
          forecast_ok(port, headers), "health %d, a forecast answered" % status)


def measured(server, probe):
    """(probe's result, server CPU seconds, RSS growth MB)."""
    cpu0, rss0 = cpu_seconds(server.pid), rss_mb(server.pid)
    result = probe()
    return result, cpu_seconds(server.pid) - cpu0, rss_mb(server.pid) - rss0


def wide_body(columns):
    return json.dumps({"series": {"c%d" % i: [1.0] for i in range(columns)}}).encode()


def row_many_columns(server, port):
    """20,000 then 80,000 columns: linear (4x the columns at most ~5x the CPU)."""
    path = "/v1/models/%s/forecast" % MODEL
    small, large = wide_body(20000), wide_body(80000)
    (s1, _, b1), cpu_small, _ = measured(server, lambda: request(port, "POST", path, small, JSON))
    (s2, _, _), cpu_large, rss = measured(server, lambda: request(port, "POST", path, large, JSON))
    # CPU time is read in 10 ms ticks: a floor keeps two tiny costs from making a ratio.
    ratio = cpu_large / max(cpu_small, 0.05)
    check("forecast with 20k/80k columns is refused", s1 == 400 and s2 == 400,
          "%d / %d: %s" % (s1, s2, b1[:120]))
    check("forecast with 80k columns costs <= 5x 20k", ratio <= 5.0 and cpu_large < 2.0,
          "%.2f s vs %.2f s of CPU (%d / %d bytes)" % (cpu_large, cpu_small, len(large), len(small)))
    check("forecast with 80k columns keeps <= 32 MB", rss <= 32, "RSS +%.1f MB" % rss)
    (s3, _, _), cpu_absent, _ = measured(
        server, lambda: request(port, "POST", "/v1/models/absent/forecast", large, JSON))
    check("80k columns for an absent model", s3 in (400, 404) and cpu_absent <= max(cpu_large, 0.05) * 1.5,
          "%d after %.2f s of CPU" % (s3, cpu_absent))


def row_largest_body(server, port):
    """Maximum-size bodies parsed whole (one column of 4 million numbers): what they freed
    goes back to the system once answered, so memory stays within 4x the largest body,
    however many come."""
    body = b'{"series":{"OT":[' + b",".join([b"1.5"] * (((16 << 20) - 64) // 4)) + b"]}}"
    path = "/v1/models/%s/forecast" % MODEL
    request(port, "POST", path, body, JSON)  # the first: what a first call of any size grows
    rss0 = rss_mb(server.pid)
    statuses = [request(port, "POST", path, body, JSON)[0] for _ in range(4)]
    bound = 4 * len(body) / 2**20
    deadline = time.monotonic() + 5
    while rss_mb(server.pid) - rss0 > bound and time.monotonic() < deadline:
        time.sleep(0.05)  # a bounded wait for the pages given back after the last answer
    rss = rss_mb(server.pid) - rss0
    check("4 more bodies of 16 MiB keep <= 4x one", set(statuses) == {200} and rss <= bound,
          "statuses %s, RSS +%.1f MB (bound %.0f MB)" % (sorted(set(statuses)), rss, bound))


def row_observe(server, port):
    """100 timestamps x 2,000 columns: refused before any work, a small answer."""
    body = json.dumps({"timestamps": list(range(1700000000, 1700000000 + 3600 * 100, 3600)),
                       "values": {"c%d" % i: [1.0] * 100 for i in range(2000)}}).encode()
    (status, _, answer), cpu, rss = measured(
        server, lambda: request(port, "POST", "/v1/series/hostile/observe", body, JSON))
    check("observe of 2,000 columns is refused", status == 400 and len(answer) < 4096,
          "%d, %d bytes: %s" % (status, len(answer), answer[:160]))
    check("observe of 2,000 columns keeps <= 16 MB", rss <= 16, "RSS +%.1f MB, %.2f s CPU" % (rss, cpu))


def row_endless_chunk_line(server, port):
    """A chunk-size line that never ends: refused at the framing bound (32 KiB)."""
    def probe():
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(b"POST /v1/actuals HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n1;")
            sent = 0
            try:
                while sent < 8 << 20:
                    conn.sendall(b"e" * 65536)
                    sent += 65536
            except (BrokenPipeError, ConnectionResetError):
                pass
            data = b""
            try:
                while True:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except ConnectionResetError:
                pass
            return parse_reply(data), sent
    ((status, _, body), sent), _, rss = measured(server, probe)
    check("endless chunk-size line", status == 400 and b"over 32768 bytes" in body and rss <= 8,
          "%d after %d KiB sent, RSS +%.1f MB: %s" % (status, sent >> 10, rss, body[:100]))


def row_cross_origin(server, port):
    """Simple cross-origin posts (no preflight) change nothing."""
    actuals = json.dumps({"series_key": "k", "timestamps": [0], "actuals": {"OT": [1.0]}}).encode()
    for label, headers in [("no Content-Type", {}), ("text/plain", {"Content-Type": "text/plain"}),
                           ("a form", {"Content-Type": "application/x-www-form-urlencoded"})]:
        status, _, body = request(port, "POST", "/v1/actuals", actuals, headers)
        check("actuals with %s" % label, status == 415, "%d: %s" % (status, body[:100]))
    status, _, body = request(port, "POST", "/v1/actuals", actuals,
                              dict(JSON, Origin="https://evil.example"))
    check("actuals from another origin", status == 403, "%d: %s" % (status, body[:100]))
    unload = "/v2/repository/models/%s/unload" % MODEL
    status, _, body = request(port, "POST", unload, b"", {"Content-Type": "text/plain"})
    check("unload as text/plain", status == 415, "%d: %s" % (status, body[:100]))
    status, _, body = request(port, "POST", unload, b"{}", JSON)
    check("unload with repository control off", status == 403 and forecast_ok(port),
          "%d, the model still served: %s" % (status, body[:100]))


def row_request_timeout(server, port):
    for value in ["9223372036854775807", "99999999999999999999999"]:
        status, _, body = request(port, "POST", "/v1/models/%s/forecast" % MODEL,
                                  json.dumps({"series": window()}).encode(),
                                  dict(JSON, **{"Request-Timeout-Ms": value}))
        check("Request-Timeout-Ms %s is clamped" % value[:6], status == 200, "%d %s" % (status, body[:80]))


def row_head_then_get(server, port):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(b"HEAD /console/ HTTP/1.1\r\nHost: x\r\n\r\nGET /v2/health/live HTTP/1.1\r\n"
                     b"Host: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    check("HEAD answers carry no body", head.startswith(b"HTTP/1.1 200") and
          rest.startswith(b"HTTP/1.1 200"), "after the HEAD's headers: %r" % rest[:40])


def grpc_health(grpc_port):
    import grpc
    with grpc.insecure_channel("127.0.0.1:%d" % grpc_port) as channel:
        check_call = channel.unary_unary("/grpc.health.v1.Health/Check")
        return check_call(b"", timeout=10) == b"\x08\x01"  # status: SERVING


def hold_connections(port, count):
    held = []
    for _ in range(count):
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    return held


def row_idle_connections(server, ports):
    """1,100 idle connections (over the 512 cap): health on both doors still answers."""
    held = hold_connections(ports["http_port"], 1100)
    try:
        cpu0 = cpu_seconds(server.pid)
        time.sleep(1.0)  # a window to measure the server's CPU in, not a wait for a state
        cpu = cpu_seconds(server.pid) - cpu0
        status, _, _ = request(ports["http_port"], "GET", "/v2/health/live", timeout=10)
        grpc_ok = grpc_health(ports["grpc_port"])
        check("1,100 idle connections", status == 200 and grpc_ok and cpu < 0.3,
              "%d held, HTTP health %d, gRPC health %s, %.2f s CPU in 1 s" %
              (len(held), status, "SERVING" if grpc_ok else "no", cpu))
    finally:
        for conn in held:
            conn.close()


def row_unknown_unloads(server, port):
    names = ["n%05d" % i + "x" * 8000 for i in range(2000)]
    def probe():
        return [request(port, "POST", "/v2/repository/models/%s/unload" % name, b"{}", JSON)[0]
                for name in names]
    statuses, cpu, rss = measured(server, probe)
    check("2,000 unloads of absent 8 KB names", set(statuses) == {404} and rss <= 6,
          "statuses %s, RSS +%.1f MB, %.2f s CPU" % (sorted(set(statuses)), rss, cpu))


def row_kept_forecasts_by_names(server, port):
    """200 forecasts kept under one key, then one report of 20,000 names: linear in the
    report, not kept x names (each kept forecast still scored once, by its own name)."""
    key, start = "hostile-key", 1700000000
    body = json.dumps({"series": window(), "series_key": key,
                       "timestamps": [start + 3600 * t for t in range(336)]}).encode()
    kept = sum(request(port, "POST", "/v1/models/%s/forecast" % MODEL, body, JSON)[0] == 200
               for _ in range(200))
    actuals = {"name%05d" % i: [1.0] for i in range(20000)}
    actuals["OT"] = [1.0]
    report = json.dumps({"series_key": key, "timestamps": [start + 3600 * 336],
                         "actuals": actuals}).encode()
    (status, _, answer), cpu, rss = measured(
        server, lambda: request(port, "POST", "/v1/actuals", report, JSON))
    matched = json.loads(answer).get("matched") if status == 200 else None
    check("actuals of 20,000 names against 200 kept forecasts",
          kept == 200 and status in (200, 400) and matched in (None, 200) and rss <= 16 and cpu < 2.0,
          "%d kept; %d, RSS +%.1f MB, %.2f s CPU: %s" % (kept, status, rss, cpu, answer[:160]))


def rows_with_token(binary, work):
    token_file = os.path.join(work, "token")
    with open(token_file, "w") as out:
        out.write("hostile-test-token\n")
    server, ports = start_tsserve_ports(binary, work, "--auth-token-file", token_file)
    port = ports["http_port"]
    bearer = {"Authorization": "Bearer hostile-test-token"}
    try:
        # The route table of docs/operations.md: open without the token, or not.
        routes = [("GET", "/v2/health/live", True), ("GET", "/v2/health/ready", True),
                  ("GET", "/openapi.json", True), ("GET", "/console/", True),
                  ("GET", "/v2", False), ("GET", "/v2/models/%s" % MODEL, False),
                  ("GET", "/v2/models/%s/ready" % MODEL, False),
                  ("POST", "/v2/models/%s/infer" % MODEL, False),
                  ("POST", "/v2/repository/index", False),
                  ("POST", "/v2/repository/models/%s/load" % MODEL, False),
                  ("GET", "/v1/models", False), ("GET", "/v1/models/%s" % MODEL, False),
                  ("POST", "/v1/models/%s/forecast" % MODEL, False), ("POST", "/v1/actuals", False),
                  ("GET", "/v1/accuracy", False), ("POST", "/v1/series/k/observe", False),
                  ("GET", "/nowhere", False)]
        for method, path, open_route in routes:
            body = b"{}" if method == "POST" else b""
            status, _, _ = request(port, method, path, body, JSON if body else {})
            authorised, _, _ = request(port, method, path, body, dict(JSON, **bearer) if body else bearer)
            ok = (status != 401) if open_route else (status == 401 and authorised != 401)
            check("token on %s %s" % (method, path), ok,
                  "%d without, %d with the token (%s)" % (status, authorised,
                                                          "open" if open_route else "closed"))
        # A 16 MiB body without the token: refused on its headers, no 100-continue.
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(("POST /v1/models/%s/forecast HTTP/1.1\r\nHost: x\r\nContent-Type: "
                          "application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n"
                          % (MODEL, 16 << 20)).encode())
            reply = conn.recv(65536)
        check("a 16 MiB body without the token", reply.startswith(b"HTTP/1.1 401"),
              "first answer: %r" % reply[:30])
        alive("token", server, port, bearer)
    finally:
        stop_tsserve(server, work)


def row_out_of_descriptors(binary, work):
    """Under a 256-descriptor limit with the cap above it: accept fails (EMFILE), and the
    loop pauses instead of spinning."""
    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    import subprocess
    log = open(os.path.join(work, "tsserve-emfile.log"), "w")
    server = subprocess.Popen([binary, "--grpc-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0",
                               "--metrics-address", "", "--http-max-connections", "5000"],
                              stdout=subprocess.PIPE, stderr=log, text=True, preexec_fn=low_limit)
    line = server.stdout.readline()
    fields = dict(f.split("=") for f in line.split() if "=" in f)
    port = int(fields["http_port"])
    held = hold_connections(port, 400)
    try:
        cpu0 = cpu_seconds(server.pid)
        time.sleep(1.0)  # a window to measure the server's CPU in
        cpu = cpu_seconds(server.pid) - cpu0
        check("out of descriptors (EMFILE)", server.poll() is None and cpu < 0.3,
              "%d connections held, %.2f s CPU in 1 s" % (len(held), cpu))
    finally:
        for conn in held:
            conn.close()
    deadline = time.monotonic() + 30
    status = 0
    while time.monotonic() < deadline and status != 200:
        try:
            status, _, _ = request(port, "GET", "/v2/health/live", timeout=5)
        except OSError:
            time.sleep(0.1)  # descriptors are freed as the server sees the closes
    check("out of descriptors / answers again", status == 200, "health %d" % status)
    stop_tsserve(server, work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsserve", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="http-hostile-")
    # The server under `ulimit -n 1024` (it inherits it), this client with room for more.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
    server, ports = start_tsserve_ports(args.tsserve, work, "--http-repository-control", "false")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    port = ports["http_port"]
    try:
        for name, row in [("many columns", row_many_columns), ("largest body", row_largest_body),
                          ("observe", row_observe),
                          ("chunk line", row_endless_chunk_line), ("cross origin", row_cross_origin),
                          ("request timeout", row_request_timeout), ("HEAD", row_head_then_get),
                          ("kept x names", row_kept_forecasts_by_names)]:
            row(server, port)
            alive(name, server, port)
        row_idle_connections(server, ports)
        alive("idle connections", server, port)
    finally:
        stop_tsserve(server, work)
    server, ports = start_tsserve_ports(args.tsserve, work, "--http-repository-control", "true")
    try:
        row_unknown_unloads(server, ports["http_port"])
        alive("unloads", server, ports["http_port"])
    finally:
        stop_tsserve(server, work)
    rows_with_token(args.tsserve, work)
    row_out_of_descriptors(args.tsserve, work)
    print("%d failed: %s" % (len(failures), ", ".join(failures)) if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
