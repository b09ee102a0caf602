#!/usr/bin/python3
"""The request path one Forecast takes through server/, measured on the running server:
the units (a header with its source), folders and hops (one unit's code calling another's)
whose code ran for one call, by door. A measurement, not a test: it needs gdb, and it
attaches to the server it starts.

  tests/bench/request_path_trace.py BUILD_DIR [grpc|http ...]

For each door it starts BUILD_DIR/server/tsserve on the bundled model, sends one warm-up
Forecast (ETTh1's last 336 rows, 7 named columns with their timestamps), then attaches
gdb, puts a breakpoint on every line where a function of tsserve::server begins (inlined
copies included) and sends the same Forecast again. A breakpoint that fires records its
unit and the unit of the nearest calling frame in server/ (a hop), then lets the thread
go on. The warm-up keeps one-time work (first-use initialisation) out of the count, so the
figures are the steady path of a call, door to batcher to model and back. Functions of
model/ are not counted: both doors reach the same ones.
"""
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "..", "shared", "data", "ETTh1.csv")
POINTS = 336


def etth1_tail():
    with open(DATA) as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[-POINTS:]
    names = header[1:]
    columns = {name: [float(r[i + 1]) for r in body] for i, name in enumerate(names)}
    times = [int(time.mktime(time.strptime(r[0], "%Y-%m-%d %H:%M:%S"))) - time.timezone
             for r in body]
    return names, columns, times


def http_forecast(port, names, columns, times):
    body = json.dumps({"series": columns, "timestamps": times}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/models/patchtst-etth1/forecast",
                                     data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as reply:
        assert reply.status == 200, reply.status
        json.loads(reply.read())


def grpc_forecaster(work):
    subprocess.run(["protoc", "-I", os.path.join(ROOT, "proto"), f"--python_out={work}",
                    os.path.join(ROOT, "proto/tsserve/v1/forecast_service.proto"),
                    os.path.join(ROOT, "proto/tsserve/v1/tensor.proto"),
                    os.path.join(ROOT, "proto/tsserve/v1/attention.proto")], check=True)
    sys.path.insert(0, work)
    import grpc
    from tsserve.v1 import forecast_service_pb2 as pb

    def forecast(port, names, columns, times):
        request = pb.ForecastRequest(model="patchtst-etth1")
        request.variable_names.extend(names)
        request.series.shape.extend([len(names), POINTS])
        for name in names:
            request.series.values.extend(columns[name])
        request.timestamps.extend(times)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary("/tsserve.v1.ForecastService/Forecast",
                                       request_serializer=pb.ForecastRequest.SerializeToString,
                                       response_deserializer=pb.ForecastResponse.FromString)
            call(request, timeout=600)
    return forecast


GDB_SCRIPT = r'''
import gdb, os, re, signal, threading, json
ROOT = os.environ["TRACE_ROOT"]
def unit(path):
    path = os.path.relpath(path, ROOT) if os.path.isabs(path) else path
    if not path.startswith("server/"):
        return None
    return os.path.splitext(path)[0]
def frame_unit(frame):
    sal = frame.find_sal()
    return unit(sal.symtab.fullname()) if sal is not None and sal.symtab is not None else None
hits, hops = set(), set()
class Probe(gdb.Breakpoint):
    def stop(self):
        frame = gdb.newest_frame()
        here = frame_unit(frame)
        if here is None:
            return False
        hits.add(here)
        caller = frame.older()
        while caller is not None:
            there = frame_unit(caller)
            if there is not None:
                if there != here:
                    hops.add((there, here))
                break
            caller = caller.older()
        return False
listing = gdb.execute("info functions ^tsserve::server::", to_string=True)
lines, current = set(), None
for line in listing.splitlines():
    m = re.match(r"^File (.*):$", line)
    if m:
        current = m.group(1) if unit(os.path.join(ROOT, m.group(1)) if not os.path.isabs(m.group(1)) else m.group(1)) else None
        continue
    m = re.match(r"^(\d+):", line)
    if m and current is not None:
        lines.add((current, int(m.group(1))))
gdb.execute("set pagination off")
gdb.execute("set breakpoint pending off")
for path, number in sorted(lines):
    try:
        Probe(f"{path}:{number}", internal=True)
    except gdb.error:
        pass
open(os.environ["TRACE_READY"], "w").close()
gdb.execute("continue")
with open(os.environ["TRACE_OUT"], "w") as out:
    json.dump({"units": sorted(hits), "hops": sorted(hops), "probes": len(lines)}, out)
gdb.execute("detach")
'''


def trace(build, door, send, names, columns, times, work):
    stdout = os.path.join(work, f"{door}.stdout")
    server = subprocess.Popen(
        [os.path.join(build, "server", "tsserve"), "--grpc-address", "127.0.0.1:0",
         "--http-address", "127.0.0.1:0", "--metrics-address", "127.0.0.1:0",
         "--repository-poll-s", "0", "--idle-spin-us", "0"],
        stdout=subprocess.PIPE, stderr=open(os.path.join(work, f"{door}.log"), "w"), text=True)
    ready = server.stdout.readline()
    ports = dict(re.findall(r"(\w+_port)=(\d+)", ready))
    port = int(ports["grpc_port" if door == "grpc" else "http_port"])
    send(port, names, columns, times)  # the warm-up
    script = os.path.join(work, "trace.py")
    with open(script, "w") as f:
        f.write(GDB_SCRIPT)
    env = dict(os.environ, TRACE_ROOT=ROOT, TRACE_OUT=os.path.join(work, f"{door}.json"),
               TRACE_READY=os.path.join(work, f"{door}.ready"))
    gdb = subprocess.Popen(["gdb", "-q", "-batch", "-p", str(server.pid), "-x", script],
                           stdout=open(os.path.join(work, f"{door}.gdb.log"), "w"),
                           stderr=subprocess.STDOUT, env=env)
    while not os.path.exists(env["TRACE_READY"]):
        if gdb.poll() is not None:
            sys.exit(f"gdb ended before its breakpoints were set: {work}/{door}.gdb.log")
        time.sleep(0.5)
    time.sleep(2)  # the `continue` after the ready file: the server runs again
    send(port, names, columns, times)
    os.kill(server.pid, signal.SIGSTOP)  # gdb's `continue` returns; it writes and detaches
    gdb.wait()
    os.kill(server.pid, signal.SIGCONT)
    server.terminate()
    server.wait()
    with open(env["TRACE_OUT"]) as f:
        return json.load(f)


def main():
    build = sys.argv[1]
    doors = sys.argv[2:] or ["grpc", "http"]
    names, columns, times = etth1_tail()
    with tempfile.TemporaryDirectory() as work:
        senders = {"http": http_forecast, "grpc": grpc_forecaster(work)}
        for door in doors:
            result = trace(build, door, senders[door], names, columns, times, work)
            units = result["units"]
            folders = sorted({os.path.dirname(u) for u in units})
            print(f"{door}: {len(units)} units, {len(folders)} folders, {len(result['hops'])} hops"
                  f" ({result['probes']} functions probed)")
            for u in units:
                print(f"  {u}")


if __name__ == "__main__":
    main()
