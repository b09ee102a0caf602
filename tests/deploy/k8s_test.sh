#!/usr/bin/env bash
# deploy/k8s offline: `kubectl kustomize` renders the kustomization without a cluster,
# kubernetes-models validates every object (rendered + extras/) against the Kubernetes
# schemas and validate_manifests.js checks the wiring; then the real tsserve starts with
# the ConfigMap's config.json, so a key the server does not know fails here, not in a pod.
#   tests/deploy/k8s_test.sh TSSERVE_BINARY WORK_DIR
set -euo pipefail
tsserve=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
k8s=$root/deploy/k8s

kubectl kustomize "$k8s" >"$work/rendered.yaml"
echo "kubectl kustomize: $(grep -c '^kind:' "$work/rendered.yaml") objects rendered"

# The validator's Node packages, pinned by package-lock.json, installed in the work dir.
mkdir -p "$work/node"
cp "$root/tests/deploy/k8s/package.json" "$root/tests/deploy/k8s/package-lock.json" \
   "$root/tests/deploy/k8s/validate_manifests.js" "$work/node/"
source "$root/tests/support/npm_ci.sh"
npm_ci_or_skip "$work/node" "kubernetes-models schema validation"
skipped=$npm_skipped
if [ -z "$skipped" ]; then
  image_user=$(sed -n 's/^USER \([0-9]*\).*/\1/p' "$root/Dockerfile")
  [ -n "$image_user" ] || { echo "FAIL: no numeric USER in the Dockerfile" >&2; exit 1; }
  node "$work/node/validate_manifests.js" "$work/rendered.yaml" "$k8s"/extras/*.yaml --image-user "$image_user"
fi

# The ConfigMap's config file, served for real (addresses overridden: flags win).
/usr/bin/python3 - "$work/rendered.yaml" "$work/config.json" <<'PY'
import sys, yaml
maps = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "ConfigMap"]
open(sys.argv[2], "w").write(maps[0]["data"]["config.json"])
PY
rm -f "$work/stdout"; mkfifo "$work/stdout"
"$tsserve" --config "$work/config.json" --log-format text \
  --grpc-address 127.0.0.1:0 --http-address 127.0.0.1:0 --metrics-address 127.0.0.1:0 >"$work/stdout" 2>"$work/tsserve.log" &
server=$!
trap 'kill -KILL $server 2>/dev/null || true' EXIT
exec 3<"$work/stdout"
read -r -t 120 ready <&3 || { cat "$work/tsserve.log"; echo "FAIL: tsserve refused the ConfigMap's config" >&2; exit 1; }
echo "ConfigMap config.json accepted: $ready"
kill -TERM $server
trap - EXIT
wait $server || { cat "$work/tsserve.log"; echo "FAIL: tsserve did not drain and exit 0" >&2; exit 1; }
if [ -n "$skipped" ]; then
  echo "SKIPPED: $skipped (kustomize and the ConfigMap's config passed)"
  exit 77
fi
echo "PASS: deploy/k8s"
