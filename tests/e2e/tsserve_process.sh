# Sourced by the end-to-end scripts: start the tsserve binary on loopback port 0 and stop
# it with SIGTERM, checking that it drains and exits 0.
#   start_tsserve TSSERVE_BINARY WORK_DIR [OPTION ...]   sets $server (pid), $port (gRPC),
#                                                        $http_port, $metrics_port and $log
#   stop_tsserve                            SIGTERM, wait, "stopped (drained)" in the log

start_tsserve() {
  local tsserve=$1 work=$2 ready
  shift 2
  log="$work/tsserve.log"
  # The server prints one "tsserve listening ..." line on stdout once it serves; reading it
  # through a FIFO waits for exactly that event (bounded by read -t), no polling.
  rm -f "$work/stdout"; mkfifo "$work/stdout"
  "$tsserve" --grpc-address 127.0.0.1:0 --http-address 127.0.0.1:0 --metrics-address 127.0.0.1:0 \
    "$@" >"$work/stdout" 2>"$log" &
  server=$!
  trap 'kill -KILL $server 2>/dev/null || true' EXIT
  exec 3<"$work/stdout"
  read -r -t 120 ready <&3 || { cat "$log"; echo "FAIL: tsserve did not report listening" >&2; exit 1; }
  port=$(echo "$ready" | sed -n 's/.*grpc_port=\([0-9]*\).*/\1/p')
  http_port=$(echo "$ready" | sed -n 's/.*http_port=\([0-9]*\).*/\1/p')
  metrics_port=$(echo "$ready" | sed -n 's/.*metrics_port=\([0-9]*\).*/\1/p')
  [ -n "$port" ] || { echo "FAIL: unexpected first line: $ready" >&2; exit 1; }
}

stop_tsserve() {
  kill -TERM "$server"
  trap - EXIT
  if wait "$server"; then echo "tsserve drained and exited 0"; else echo "FAIL: exit $?" >&2; cat "$log"; exit 1; fi
  grep -q "stopped (drained)" "$log" || { cat "$log"; echo "FAIL: no drain" >&2; exit 1; }
}

# write_etth1_csv FILE: a CSV in the ETTh1 layout (date + the 7 scaler columns), 400 rows,
# seeded, for the example clients.
write_etth1_csv() {
  /usr/bin/python3 - "$1" <<'PY'
import math, random, sys
random.seed(7)
cols = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
with open(sys.argv[1], "w") as f:
    f.write("date," + ",".join(cols) + "\n")
    for r in range(400):
        f.write("2018-01-%02d %02d:00:00," % (1 + r // 24, r % 24) +
                ",".join("%.4f" % (5 + i + 2 * math.sin(r / 12 + i) + random.gauss(0, 0.2)) for i in range(7)) + "\n")
PY
}
