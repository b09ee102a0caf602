// Offline checks of tsserve's Kubernetes objects (tests/deploy/k8s_test.sh runs this).
//   node validate_manifests.js RENDERED.yaml EXTRA.yaml... --image-user UID
// 1. Schema: every object is validated by kubernetes-models against the Kubernetes
//    OpenAPI schemas (the ServiceMonitor against the Prometheus operator's CRD; the
//    KServe predictor, an inline PodSpec, as a core/v1 Pod spec). The schemas accept
//    unknown keys, so 2. reads the fields that matter and fails when they are missing.
// 2. Wiring: selectors match the pod labels, readiness is a native gRPC probe on the gRPC
//    port, liveness GET /v2/health/live on the HTTP port (the process, not the models),
//    the grace period outlasts preStop + the drain timeout from the ConfigMap, the pod
//    runs as the image's non-root user, the HPA and PDB point at the Deployment, the
//    ServiceMonitor selects the ClusterIP Service and names a port it has.
// Exit 0 = all good; each problem is printed with the object it is about.
"use strict";
const fs = require("fs");
const YAML = require("yaml");

const MODELS = {
  v1: () => require("kubernetes-models/v1"),
  "apps/v1": () => require("kubernetes-models/apps/v1"),
  "autoscaling/v2": () => require("kubernetes-models/autoscaling/v2"),
  "policy/v1": () => require("kubernetes-models/policy/v1"),
  "monitoring.coreos.com/v1": () =>
    require("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1"),
};

const problems = [];
const fail = (where, message) => problems.push(`${where}: ${message}`);
const nameOf = (o) => `${o.kind}/${o.metadata && o.metadata.name}`;

function schemaCheck(object) {
  if (object.apiVersion === "serving.kserve.io/v1beta1" && object.kind === "InferenceService") {
    // KServe's PredictorSpec embeds a PodSpec inline next to its own fields (left out here).
    const podSpec = { ...object.spec.predictor };
    for (const field of ["minReplicas", "maxReplicas", "scaleTarget", "scaleMetric"]) delete podSpec[field];
    return schemaCheck({ apiVersion: "v1", kind: "Pod", metadata: { name: object.metadata.name }, spec: podSpec });
  }
  const load = MODELS[object.apiVersion];
  if (!load) return fail(nameOf(object), `no schema for apiVersion ${object.apiVersion}`);
  const Model = load()[object.kind];
  if (!Model) return fail(nameOf(object), `no schema for ${object.apiVersion} ${object.kind}`);
  try {
    new Model(object).validate();
  } catch (e) {
    fail(nameOf(object), `schema: ${e.message}`);
  }
}

const matches = (selector, labels) =>
  Object.entries(selector || {}).every(([k, v]) => labels && labels[k] === v) &&
  Object.keys(selector || {}).length > 0;

function checkPodSpec(where, spec, drainTimeoutS, imageUser) {
  const container = spec.containers[0];
  const grpcPort = (container.ports || []).find((p) => p.name === "grpc" || p.name === "h2c");
  if (!grpcPort) return fail(where, "no container port named grpc (or h2c for KServe)");
  const ready = container.readinessProbe;
  if (!ready || !ready.grpc) fail(where, "readinessProbe must be a native gRPC probe (grpc.health.v1)");
  else if (ready.grpc.port !== grpcPort.containerPort)
    fail(where, `readinessProbe probes port ${ready.grpc.port}; the gRPC port is ${grpcPort.containerPort}`);
  // Liveness on the process alone: a probe of readiness would restart every replica when
  // one model of a shared repository fails to load.
  const live = container.livenessProbe;
  const httpPort = (container.ports || []).find((p) => p.name === "http");
  const liveHttpPort = httpPort ? httpPort.containerPort : 8000;  // tsserve's default --http-address
  if (!live || !live.httpGet || live.httpGet.path !== "/v2/health/live")
    fail(where, "livenessProbe must be httpGet /v2/health/live (the process, not the models' readiness)");
  else if (live.httpGet.port !== liveHttpPort && !(httpPort && live.httpGet.port === httpPort.name))
    fail(where, `livenessProbe probes port ${live.httpGet.port}; the HTTP port is ${liveHttpPort}`);
  const preStop = container.lifecycle && container.lifecycle.preStop;
  const sleep = preStop && preStop.exec && preStop.exec.command[0] === "sleep" ? Number(preStop.exec.command[1]) : NaN;
  if (!(sleep > 0)) fail(where, "preStop should pause (sleep N) so endpoints drop the pod before SIGTERM");
  const grace = spec.terminationGracePeriodSeconds;
  if (!(grace > sleep + drainTimeoutS))
    fail(where, `terminationGracePeriodSeconds ${grace} must exceed preStop ${sleep} s` +
                ` + drain_timeout_s ${drainTimeoutS}`);
  const pod = spec.securityContext || {};
  const ctr = container.securityContext || {};
  if (pod.runAsNonRoot !== true) fail(where, "securityContext.runAsNonRoot must be true");
  if (pod.runAsUser !== imageUser) fail(where, `runAsUser ${pod.runAsUser}; the image's user is ${imageUser}`);
  if (ctr.allowPrivilegeEscalation !== false) fail(where, "allowPrivilegeEscalation must be false");
  if (ctr.readOnlyRootFilesystem !== true) fail(where, "readOnlyRootFilesystem should be true");
  if (!(ctr.capabilities && (ctr.capabilities.drop || []).includes("ALL"))) fail(where, "capabilities should drop ALL");
  const res = container.resources || {};
  for (const kind of ["requests", "limits"])
    for (const r of ["cpu", "memory"])
      if (!(res[kind] && res[kind][r])) fail(where, `resources.${kind}.${r} missing`);
  return container;
}

function main() {
  const args = process.argv.slice(2);
  const userFlag = args.indexOf("--image-user");
  const imageUser = Number(args[userFlag + 1]);
  const files = args.filter((_, i) => i !== userFlag && i !== userFlag + 1);
  const objects = files.flatMap((f) =>
    YAML.parseAllDocuments(fs.readFileSync(f, "utf8")).map((d) => d.toJSON()).filter(Boolean));
  for (const o of objects) schemaCheck(o);

  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const [deployment] = byKind("Deployment");
  const [configMap] = byKind("ConfigMap");
  if (!deployment || !configMap) throw new Error("the rendered kustomization needs a Deployment and a ConfigMap");
  const config = JSON.parse(configMap.data["config.json"]);
  const drain = config.drain_timeout_s;
  if (!(drain > 0)) fail(nameOf(configMap), "config.json should set drain_timeout_s");

  const podLabels = deployment.spec.template.metadata.labels;
  if (!matches(deployment.spec.selector.matchLabels, podLabels))
    fail(nameOf(deployment), "selector does not match its pod labels");
  const container = checkPodSpec(nameOf(deployment), deployment.spec.template.spec, drain, imageUser);
  const env = Object.fromEntries((container.env || []).map((e) => [e.name, e.value]));
  const mount = (container.volumeMounts || []).find(
    (m) => env.TSSERVE_CONFIG && env.TSSERVE_CONFIG.startsWith(m.mountPath + "/"));
  const volume = mount && deployment.spec.template.spec.volumes.find((v) => v.name === mount.name);
  if (!volume || !volume.configMap || volume.configMap.name !== configMap.metadata.name)
    fail(nameOf(deployment),
         `TSSERVE_CONFIG (${env.TSSERVE_CONFIG}) is not a file of the mounted ConfigMap ${configMap.metadata.name}`);

  const portNames = new Set(container.ports.map((p) => p.name));
  // tsserve's own Services; those of a StatefulSet's pods (the Redis of redis.yaml) are
  // validate_scaleout.js's to check.
  const services = byKind("Service").filter(
    (s) => !byKind("StatefulSet").some((set) => matches(s.spec.selector, set.spec.template.metadata.labels)));
  const headless = services.filter((s) => s.spec.clusterIP === "None");
  const clusterIp = services.filter((s) => s.spec.clusterIP !== "None");
  if (headless.length !== 1 || clusterIp.length !== 1)
    fail("Services", "expected one headless and one ClusterIP Service");
  for (const s of services) {
    if (!matches(s.spec.selector, podLabels)) fail(nameOf(s), "selector does not match the Deployment's pods");
    for (const p of s.spec.ports)
      if (!portNames.has(p.targetPort)) fail(nameOf(s), `targetPort ${p.targetPort} is not a container port name`);
  }
  for (const hpa of byKind("HorizontalPodAutoscaler")) {
    const ref = hpa.spec.scaleTargetRef;
    if (ref.kind !== "Deployment" || ref.name !== deployment.metadata.name)
      fail(nameOf(hpa), "does not scale the Deployment");
    if (!(hpa.spec.minReplicas >= 2))
      fail(nameOf(hpa), "minReplicas below 2 leaves no replica during a rollout or drain");
  }
  for (const pdb of byKind("PodDisruptionBudget")) {
    if (!matches(pdb.spec.selector.matchLabels, podLabels))
      fail(nameOf(pdb), "selector does not match the Deployment's pods");
    const minReplicas = Math.min(...byKind("HorizontalPodAutoscaler").map((h) => h.spec.minReplicas),
                                 deployment.spec.replicas);
    if (!(pdb.spec.minAvailable < minReplicas))
      fail(nameOf(pdb), "minAvailable must stay below the replica count, or no node can ever drain");
  }
  for (const sm of byKind("ServiceMonitor")) {
    const selected = services.filter((s) => matches(sm.spec.selector.matchLabels, s.metadata.labels));
    if (selected.length !== 1 || selected[0].spec.clusterIP === "None")
      fail(nameOf(sm),
           `should select exactly the ClusterIP Service (selects ${selected.map(nameOf).join(", ") || "none"})`);
    else
      for (const e of sm.spec.endpoints)
        if (!selected[0].spec.ports.some((p) => p.name === e.port))
          fail(nameOf(sm), `port ${e.port} is not a port of ${nameOf(selected[0])}`);
  }
  for (const isvc of byKind("InferenceService")) {
    const spec = isvc.spec.predictor;
    const env = Object.fromEntries((spec.containers[0].env || []).map((e) => [e.name, e.value]));
    checkPodSpec(nameOf(isvc), spec, Number(env.TSSERVE_DRAIN_TIMEOUT_S || 30), imageUser);
  }

  for (const p of problems) console.log("FAIL:", p);
  console.log(`${objects.length} objects: ${objects.map(nameOf).join(", ")}`);
  if (problems.length) process.exit(1);
  console.log("PASS: schemas and wiring");
}

main();
