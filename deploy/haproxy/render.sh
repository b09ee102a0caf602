#!/bin/sh
# Renders deploy/haproxy/tsserve.cfg.template into a complete haproxy.cfg on stdout, from
# the same variables as deploy/nginx/render.sh:
#   TSSERVE_UPSTREAMS_HTTP="a:8000 b:8000" TSSERVE_UPSTREAMS_GRPC="a:50051 b:50051" \
#   deploy/haproxy/render.sh > /tmp/haproxy.cfg && haproxy -f /tmp/haproxy.cfg
#   TSSERVE_UPSTREAMS_HTTP     replicas' HTTP HOST:PORTs, space or comma separated (required)
#   TSSERVE_UPSTREAMS_GRPC     replicas' gRPC HOST:PORTs; empty = no gRPC frontend
#   TSSERVE_NGINX_HTTP_LISTEN  HTTP listen address (default :8000; a bare port means all)
#   TSSERVE_NGINX_GRPC_LISTEN  gRPC listen address (default :50051)
#   TSSERVE_NGINX_RUNTIME_DIR  the pid file (default /tmp/tsserve-haproxy)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
template=${TSSERVE_HAPROXY_TEMPLATE:-$here/tsserve.cfg.template}
: "${TSSERVE_UPSTREAMS_HTTP:?names the replicas HTTP HOST:PORTs}"
grpc=${TSSERVE_UPSTREAMS_GRPC:-}
listen() { case $1 in *:*) printf '%s' "$1" ;; *) printf ':%s' "$1" ;; esac; }
http_listen=$(listen "${TSSERVE_NGINX_HTTP_LISTEN:-8000}")
grpc_listen=$(listen "${TSSERVE_NGINX_GRPC_LISTEN:-50051}")
runtime=${TSSERVE_NGINX_RUNTIME_DIR:-/tmp/tsserve-haproxy}
mkdir -p "$runtime"

# "a:1 b:2" -> "  server NAME1 a:1 EXTRA" lines joined by \n for sed.
servers() {
  out=""; i=0
  for address in $(printf '%s' "$1" | tr ',' ' '); do
    case $address in
      *:*) ;;
      *) echo "render.sh: upstream '$address' is not HOST:PORT" >&2; exit 1 ;;
    esac
    i=$((i + 1))
    out="$out  server $2$i $address$3\\n"
  done
  [ -n "$out" ] || { echo "render.sh: no upstream addresses" >&2; exit 1; }
  printf '%s' "${out%\\n}"
}
quote() { printf '%s' "$1" | sed -e 's/[&|]/\\&/g'; }

http_servers=$(servers "$TSSERVE_UPSTREAMS_HTTP" http "")
if [ -n "$grpc" ]; then
  grpc_servers=$(servers "$grpc" grpc " proto h2")
  drop='/^# BEGIN grpc/d; /^# END grpc/d'
else
  grpc_servers=""
  drop='/^# BEGIN grpc/,/^# END grpc/d'
fi
sed -e "$drop" \
    -e "s|\${TSSERVE_HAPROXY_SERVERS_HTTP}|$http_servers|g" \
    -e "s|\${TSSERVE_HAPROXY_SERVERS_GRPC}|$grpc_servers|g" \
    -e "s|\${TSSERVE_HAPROXY_HTTP_LISTEN}|$(quote "$http_listen")|g" \
    -e "s|\${TSSERVE_HAPROXY_GRPC_LISTEN}|$(quote "$grpc_listen")|g" \
    -e "s|\${TSSERVE_HAPROXY_RUNTIME_DIR}|$(quote "$runtime")|g" \
    "$template"
