#!/usr/bin/env bash
# deploy/k8s offline: `kubectl kustomize` renders the kustomization without a cluster,
# kubernetes-models validates every object (rendered + extras/) against the Kubernetes
# schemas and validate_manifests.js checks the wiring; then the real tsserve starts with
# the ConfigMap's config.json, so a key the server does not know fails here, not in a pod.
# Scale-out (issue 46): validate_scaleout.js checks the Redis StatefulSet and series_store,
# the keda/ Component rendered into an overlay (KEDA's CRD schema), and kserve/ (runtime and
# InferenceService, structurally); the server's /metrics must export the metric the
# ScaledObject queries. With --plant, only that: defects planted in copies (a wrong Redis
# port in series_store, no appendfsync, an HPA left beside the ScaledObject, an
# InferenceService naming no runtime) must each be caught.
#   tests/deploy/k8s_test.sh TSSERVE_BINARY WORK_DIR [--plant]
set -euo pipefail
tsserve=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
plant=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
k8s=$root/deploy/k8s

kubectl kustomize "$k8s" >"$work/rendered.yaml"
echo "kubectl kustomize: $(grep -c '^kind:' "$work/rendered.yaml") objects rendered"
# The keda/ Component, as an operator turns it on: an overlay of deploy/k8s (kustomize
# wants relative paths, and an overlay outside the base's folder).
mkdir -p "$work/keda-overlay"
rel=$(/usr/bin/python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$k8s" "$work/keda-overlay")
printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s\ncomponents:\n  - %s/keda\n' \
  "$rel" "$rel" >"$work/keda-overlay/kustomization.yaml"
if ! kubectl kustomize "$work/keda-overlay" >"$work/rendered-keda.yaml" 2>"$work/keda.err"; then
  # Debian's kubectl 1.20 bundles a kustomize that predates Components ("unknown field
  # components"). Apply the Component as kustomize would: its resources added, its
  # `$patch: delete` patches removing their object, nothing else (it has nothing else).
  grep -q 'unknown field "components"' "$work/keda.err" || { cat "$work/keda.err" >&2; exit 1; }
  echo "kubectl's kustomize has no Components: keda/ applied to the rendered base by hand"
  /usr/bin/python3 - "$k8s/keda" "$work/rendered.yaml" "$work/rendered-keda.yaml" <<'PY'
import os, sys, yaml
component, base, out = sys.argv[1:]
spec = yaml.safe_load(open(os.path.join(component, "kustomization.yaml")))
if spec.get("kind") != "Component" or set(spec) - {"apiVersion", "kind", "resources", "patches"}:
    sys.exit("FAIL: keda/ is no longer a Component of resources and delete patches only: "
             "render it with a kubectl whose kustomize has Components")
objects = [d for d in yaml.safe_load_all(open(base)) if d]
for patch in spec.get("patches", []):
    target = yaml.safe_load(patch["patch"])
    if target.get("$patch") != "delete":
        sys.exit("FAIL: keda/ has a patch other than a delete")
    key = (target["kind"], target["metadata"]["name"])
    kept = [o for o in objects if (o["kind"], o["metadata"]["name"]) != key]
    if len(kept) == len(objects):
        sys.exit("FAIL: keda/ deletes %s %s, which the base does not render" % key)
    objects = kept
for resource in spec.get("resources", []):
    objects += [d for d in yaml.safe_load_all(open(os.path.join(component, resource))) if d]
with open(out, "w") as f:
    yaml.safe_dump_all(objects, f, sort_keys=False)
PY
fi
echo "with keda/: $(grep '^kind:' "$work/rendered-keda.yaml" | sort | uniq -c | tr -s ' \n' ' ')"

# The validator's Node packages, pinned by package-lock.json, installed in the work dir.
mkdir -p "$work/node"
cp "$root/tests/deploy/k8s/package.json" "$root/tests/deploy/k8s/package-lock.json" \
   "$root/tests/deploy/k8s/validate_manifests.js" "$root/tests/deploy/k8s/validate_scaleout.js" "$work/node/"
source "$root/tests/support/npm_ci.sh"
npm_ci_or_skip "$work/node" "kubernetes-models schema validation"
skipped=$npm_skipped
if [ -z "$skipped" ]; then
  image_user=$(sed -n 's/^USER \([0-9]*\).*/\1/p' "$root/Dockerfile")
  [ -n "$image_user" ] || { echo "FAIL: no numeric USER in the Dockerfile" >&2; exit 1; }
  if [ "$plant" = --plant ]; then
    /usr/bin/python3 - "$work" "$k8s" <<'PY'
import copy, glob, json, os, sys, yaml
work, k8s = sys.argv[1], sys.argv[2]
docs = lambda path: [d for d in yaml.safe_load_all(open(path)) if d]
rendered, keda = docs(work + "/rendered.yaml"), docs(work + "/rendered-keda.yaml")
kserve = [d for f in sorted(glob.glob(k8s + "/kserve/*.yaml")) for d in docs(f)]
def of(objects, kind):
    return next(o for o in objects if o["kind"] == kind)
def wrong_port(r, k, s):
    data = of(r, "ConfigMap")["data"]
    config = json.loads(data["config.json"])
    config["series_store"] = config["series_store"].replace(":6379", ":6380")
    data["config.json"] = json.dumps(config)
def no_fsync(r, k, s):
    c = of(r, "StatefulSet")["spec"]["template"]["spec"]["containers"][0]
    i = c["args"].index("--appendfsync")
    del c["args"][i:i + 2]
def hpa_left(r, k, s):
    k.append(of(r, "HorizontalPodAutoscaler"))
def no_runtime(r, k, s):
    of(s, "InferenceService")["spec"]["predictor"]["model"]["runtime"] = "kserve-other"
for name, plant in (("wrong-redis-port", wrong_port), ("no-appendfsync", no_fsync),
                    ("hpa-beside-keda", hpa_left), ("isvc-without-runtime", no_runtime)):
    r, k, s = copy.deepcopy(rendered), copy.deepcopy(keda), copy.deepcopy(kserve)
    plant(r, k, s)
    folder = os.path.join(work, "plant", name)
    os.makedirs(folder, exist_ok=True)
    for file, objects in (("rendered.yaml", r), ("rendered-keda.yaml", k), ("kserve.yaml", s)):
        with open(os.path.join(folder, file), "w") as f:
            yaml.safe_dump_all(objects, f, sort_keys=False)
PY
    for folder in "$work"/plant/*/; do
      echo "plant $(basename "$folder"):"
      node "$work/node/validate_scaleout.js" "$folder/rendered.yaml" "$folder/rendered-keda.yaml" \
        "$folder/kserve.yaml" --expect-fail
    done
    echo "PASS: every planted defect was caught"
    exit 0
  fi
  node "$work/node/validate_manifests.js" "$work/rendered.yaml" "$k8s"/extras/*.yaml --image-user "$image_user"
  node "$work/node/validate_scaleout.js" "$work/rendered.yaml" "$work/rendered-keda.yaml" "$k8s"/kserve/*.yaml
elif [ "$plant" = --plant ]; then
  echo "SKIPPED: $skipped (the plants need the validator)"
  exit 77
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
# The metric the KEDA ScaledObject queries is one this server exports.
/usr/bin/python3 - "$ready" "$work/rendered-keda.yaml" <<'PY' || { kill -KILL $server; exit 1; }
import re, sys, urllib.request, yaml
port = re.search(r"metrics_port=(\d+)", sys.argv[1]).group(1)
exposition = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=30).read().decode()
exported = set(re.findall(r"^# TYPE (\S+) ", exposition, re.M))
scaled = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d and d["kind"] == "ScaledObject"]
queries = [t["metadata"]["query"] for d in scaled for t in d["spec"]["triggers"] if t["type"] == "prometheus"]
names = {n for q in queries for n in re.findall(r"\btsserve_\w+", q)}
missing = sorted(names - exported)
if not names or missing:
    sys.exit("FAIL: the ScaledObject queries %s; not exported by tsserve: %s" % (queries, missing or "no tsserve_ metric"))
print("ScaledObject's metrics exported: %s" % ", ".join(sorted(names)))
PY
kill -TERM $server
trap - EXIT
wait $server || { cat "$work/tsserve.log"; echo "FAIL: tsserve did not drain and exit 0" >&2; exit 1; }
if [ -n "$skipped" ]; then
  echo "SKIPPED: $skipped (kustomize and the ConfigMap's config passed)"
  exit 77
fi
echo "PASS: deploy/k8s"
