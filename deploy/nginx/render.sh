#!/bin/sh
# Renders deploy/nginx/tsserve.conf.template into a complete nginx.conf on stdout.
#   TSSERVE_UPSTREAMS_HTTP="tsserve-1:8000 tsserve-2:8000 tsserve-3:8000" \
#   TSSERVE_UPSTREAMS_GRPC="tsserve-1:50051 tsserve-2:50051 tsserve-3:50051" \
#   deploy/nginx/render.sh > /tmp/nginx.conf && nginx -c /tmp/nginx.conf
# Variables (only these ${...} names are replaced; nginx's own $variables are left alone):
#   TSSERVE_UPSTREAMS_HTTP     replicas' HTTP HOST:PORTs, space or comma separated (required)
#   TSSERVE_UPSTREAMS_GRPC     replicas' gRPC HOST:PORTs; empty = no gRPC server block
#   TSSERVE_NGINX_HTTP_LISTEN  HTTP listen address (default 8000)
#   TSSERVE_NGINX_GRPC_LISTEN  gRPC listen address (default 50051)
#   TSSERVE_NGINX_RUNTIME_DIR  pid file and temporary files (default /tmp/tsserve-nginx;
#                              created; any user may run nginx with it)
#   TSSERVE_NGINX_ERROR_LOG    default $TSSERVE_NGINX_RUNTIME_DIR/error.log (/dev/stderr in compose)
#   TSSERVE_NGINX_ACCESS_LOG   default $TSSERVE_NGINX_RUNTIME_DIR/access.log ("off" = none)
#   TSSERVE_NGINX_TEMPLATE     the template (default: tsserve.conf.template beside this script)
# POSIX sh and sed only: it runs in the nginx image as well as in CI.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
template=${TSSERVE_NGINX_TEMPLATE:-$here/tsserve.conf.template}
: "${TSSERVE_UPSTREAMS_HTTP:?names the replicas HTTP HOST:PORTs}"
grpc=${TSSERVE_UPSTREAMS_GRPC:-}
http_listen=${TSSERVE_NGINX_HTTP_LISTEN:-8000}
grpc_listen=${TSSERVE_NGINX_GRPC_LISTEN:-50051}
runtime=${TSSERVE_NGINX_RUNTIME_DIR:-/tmp/tsserve-nginx}
error_log=${TSSERVE_NGINX_ERROR_LOG:-$runtime/error.log}
access_log=${TSSERVE_NGINX_ACCESS_LOG:-$runtime/access.log}
mkdir -p "$runtime"

# "a:1 b:2" -> one "    server a:1 max_fails=0;" line each, joined by \n for sed.
servers() {
  out=""
  for address in $(printf '%s' "$1" | tr ',' ' '); do
    case $address in
      *:*) ;;
      *) echo "render.sh: upstream '$address' is not HOST:PORT" >&2; exit 1 ;;
    esac
    out="$out    server $address max_fails=0;\\n"
  done
  [ -n "$out" ] || { echo "render.sh: no upstream addresses" >&2; exit 1; }
  printf '%s' "${out%\\n}"
}
# sed replacement text: escape \, & and the | delimiter (the \n joins stay newlines).
quote() { printf '%s' "$1" | sed -e 's/[&|]/\\&/g'; }

http_servers=$(servers "$TSSERVE_UPSTREAMS_HTTP")
if [ -n "$grpc" ]; then
  grpc_servers=$(servers "$grpc")
  drop='/^# BEGIN grpc/d; /^# END grpc/d'
else
  grpc_servers=""
  drop='/^# BEGIN grpc/,/^# END grpc/d'
fi
sed -e "$drop" \
    -e "s|\${TSSERVE_UPSTREAMS_HTTP}|$http_servers|g" \
    -e "s|\${TSSERVE_UPSTREAMS_GRPC}|$grpc_servers|g" \
    -e "s|\${TSSERVE_NGINX_HTTP_LISTEN}|$(quote "$http_listen")|g" \
    -e "s|\${TSSERVE_NGINX_GRPC_LISTEN}|$(quote "$grpc_listen")|g" \
    -e "s|\${TSSERVE_NGINX_RUNTIME_DIR}|$(quote "$runtime")|g" \
    -e "s|\${TSSERVE_NGINX_ERROR_LOG}|$(quote "$error_log")|g" \
    -e "s|\${TSSERVE_NGINX_ACCESS_LOG}|$(quote "$access_log")|g" \
    "$template"
