"""A real tsserve on loopback for the HTTP checks in tests/e2e: started on free ports,
called with Python's standard library (urllib), stopped with SIGTERM (it must drain and
exit 0)."""
import json
import os
import select
import subprocess
import sys
import urllib.error
import urllib.request


def require(condition, message="check failed"):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (an assert would not)."""
    if not condition:
        print("FAIL: %s" % (message,), file=sys.stderr)
        sys.exit(1)


def start_tsserve(binary, work, *flags):
    """(process, http_port) of `binary` serving the bundled model; `flags` added."""
    server, ports = start_tsserve_ports(binary, work, *flags)
    return server, ports["http_port"]


def start_tsserve_ports(binary, work, *flags):
    """(process, {"grpc_port": ..., "http_port": ...}) as start_tsserve."""
    log = open(os.path.join(work, "tsserve.log"), "w")
    server = subprocess.Popen([binary, "--grpc-address", "127.0.0.1:0", "--http-address",
                               "127.0.0.1:0", "--metrics-address", "", *flags],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    ready, _, _ = select.select([server.stdout], [], [], 120)
    line = server.stdout.readline() if ready else ""
    fields = dict(f.split("=") for f in line.split() if "=" in f)
    require("http_port" in fields, "tsserve did not start: %r (log in %s)" % (line, work))
    return server, {name: int(value) for name, value in fields.items() if name.endswith("_port")}


def stop_tsserve(server, work):
    server.terminate()
    require(server.wait(timeout=60) == 0, "tsserve did not drain (log in %s)" % work)


def call(port, path, body=None, headers=None, method=None):
    """(status, decoded JSON body) of one request; a dict body is sent as JSON."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data,
                                     headers=dict({"Content-Type": "application/json"},
                                                  **(headers or {})), method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)
