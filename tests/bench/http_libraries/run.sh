#!/usr/bin/env bash
# Measures the three HTTP libraries Debian offers for tsserve's HTTP door (Boost.Beast,
# cpp-httplib, libmicrohttpd), each in a process holding LibTorch, doing the same JSON
# work (forecast_payload.h), then the HTTP layer alone (HTTP_BENCH_NO_JSON: a fixed answer,
# the body unread): wrk at concurrency 1 and 32, requests/s, p50 and p99. Prints a Markdown
# table for BENCHMARKS.md. Usage: run.sh [seconds per run, default 5]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-5}
missing=()
for p in libboost-dev libcpp-httplib-dev libmicrohttpd-dev wrk; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  as_root=(); [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
build=${HTTP_BENCH_BUILD:-/tmp/http_library_comparison}
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH=/usr/lib/x86_64-linux-gnu/cmake >/dev/null
cmake --build "$build" >/dev/null

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
/usr/bin/python3 - "$work/body.json" <<'PY'
import json, random, sys
random.seed(7)
names = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
series = {n: [round(random.uniform(-5, 30), 3) for _ in range(336)] for n in names}
open(sys.argv[1], "w").write(json.dumps({"series": series}))
PY
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/body.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA

echo "| library | work | threads | concurrency | requests/s | p50 (us) | p99 (us) |"
echo "|---|---|---|---|---|---|---|"
port=18090
for work_kind in json http-only; do
for server in beast_server httplib_server microhttpd_server; do
  for concurrency in 1 32; do
    threads=2
    # cpp-httplib holds a pool thread per kept-alive connection.
    [ "$server" = httplib_server ] && [ "$concurrency" -gt 2 ] && threads=$concurrency
    port=$((port + 1))
    if [ "$work_kind" = http-only ]; then export HTTP_BENCH_NO_JSON=1; else unset HTTP_BENCH_NO_JSON; fi
    "$build/$server" "$port" "$threads" > "$work/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
      grep -q serving "$work/server.log" && break
      kill -0 $pid 2>/dev/null || { cat "$work/server.log"; exit 1; }
      sleep 0.1
    done
    wrk -t1 -c"$concurrency" -d"${seconds}s" --latency -s "$work/post.lua" \
      "http://127.0.0.1:$port/infer" > "$work/wrk.txt"
    kill $pid; wait $pid 2>/dev/null || true
    /usr/bin/python3 - "$work/wrk.txt" "$server" "$threads" "$concurrency" "$work_kind" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def us(label):
    m = re.search(r"^\s*%s\s+([\d.]+)(us|ms|s)\s*$" % label, text, re.M)
    v, unit = float(m.group(1)), m.group(2)
    return v * {"us": 1, "ms": 1e3, "s": 1e6}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
name = {"beast_server": "Boost.Beast 1.74", "httplib_server": "cpp-httplib 0.11",
        "microhttpd_server": "libmicrohttpd 0.9.75"}[sys.argv[2]]
note = " (%s non-2xx)" % errors.group(1) if errors else ""
work = {"json": "parse + write JSON", "http-only": "HTTP only"}[sys.argv[5]]
print("| %s | %s | %s | %s | %.0f%s | %.0f | %.0f |" % (name, work, sys.argv[3], sys.argv[4], rps,
      note, us("50%"), us("99%")))
PY
  done
done
done
