// Offline checks of tsserve's scale-out objects (issue 46; tests/deploy/k8s_test.sh runs
// this beside validate_manifests.js).
//   node validate_scaleout.js RENDERED.yaml KEDA_RENDERED.yaml KSERVE.yaml... [--expect-fail]
// RENDERED: `kubectl kustomize deploy/k8s`; KEDA_RENDERED: the same with the keda/
// Component; KSERVE: deploy/k8s/kserve/*.yaml.
// 1. Schema: the ScaledObject against KEDA's CRD (@kubernetes-models/keda). KServe has no
//    published models: its objects are checked structurally (apiVersion, kind, required
//    fields) and their containers as core/v1 containers of a Pod.
// 2. Wiring: the ConfigMap's series_store names the Redis Service's host and port; that
//    Service selects the StatefulSet's pods and targets a port the container has; the
//    StatefulSet runs 1 Redis with --appendonly yes, --appendfsync everysec (or always)
//    and --dir on a volumeClaimTemplate; with KEDA, the ScaledObject scales the
//    Deployment, queries tsserve_queue_depth_rows and no HPA is left on the Deployment;
//    the InferenceService names the ClusterServingRuntime and a model format it supports,
//    the runtime speaks v2 and grpc-v2 and listens where its ports and probes say.
// --expect-fail: exit 0 only if a problem was found (tests/deploy/k8s_test.sh --plant).
"use strict";
const fs = require("fs");
const YAML = require("yaml");

const problems = [];
const fail = (where, message) => problems.push(`${where}: ${message}`);
const nameOf = (o) => `${o.kind}/${o.metadata && o.metadata.name}`;
const matches = (selector, labels) =>
  Object.keys(selector || {}).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels && labels[k] === v);
const load = (file) =>
  YAML.parseAllDocuments(fs.readFileSync(file, "utf8")).map((d) => d.toJSON()).filter(Boolean);

function validate(Model, object, where) {
  try {
    new Model(object).validate();
  } catch (e) {
    fail(where, `schema: ${e.message}`);
  }
}

// Containers of a CRD, validated as a core/v1 Pod's (required name, types of every field).
function validateContainers(where, containers, extra = {}) {
  const { Pod } = require("kubernetes-models/v1");
  if (!Array.isArray(containers) || containers.length === 0) return fail(where, "no containers");
  validate(Pod, { apiVersion: "v1", kind: "Pod", metadata: { name: "check" }, spec: { containers, ...extra } }, where);
}

// "--flag value" or "--flag=value" in an argument list.
function flag(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(name + "=")) return args[i].slice(name.length + 1);
  }
  return undefined;
}

function checkRedis(objects) {
  const [configMap] = objects.filter((o) => o.kind === "ConfigMap");
  const config = JSON.parse(configMap.data["config.json"]);
  const m = /^redis:\/\/([^:/]+):(\d+)(\/\d+)?$/.exec(config.series_store || "");
  if (!m)
    return fail(nameOf(configMap), `series_store ${JSON.stringify(config.series_store)} is not redis://HOST:PORT[/DB]`);
  const [, host, port] = m;
  const sets = objects.filter((o) => o.kind === "StatefulSet");
  const service = objects.find((o) => o.kind === "Service" && o.metadata.name === host);
  if (!service) return fail(nameOf(configMap), `series_store names ${host}, which is no Service here`);
  const servicePort = service.spec.ports.find((p) => String(p.port) === port);
  if (!servicePort) fail(nameOf(service), `has no port ${port} (series_store ${config.series_store})`);
  const set = sets.find((s) => matches(service.spec.selector, s.spec.template.metadata.labels));
  if (!set) return fail(nameOf(service), "selects no StatefulSet's pods");
  if (set.spec.replicas !== 1)
    fail(nameOf(set), `replicas ${set.spec.replicas}; one Redis (no replication set up here)`);
  if (!matches(set.spec.selector.matchLabels, set.spec.template.metadata.labels))
    fail(nameOf(set), "selector does not match its pod labels");
  const deployment = objects.find((o) => o.kind === "Deployment");
  if (deployment && matches(deployment.spec.selector.matchLabels, set.spec.template.metadata.labels))
    fail(nameOf(set), "its pods carry the Deployment's selector labels (tsserve's Services would send calls to Redis)");
  const container = set.spec.template.spec.containers[0];
  const args = [...(container.command || []), ...(container.args || [])];
  if (flag(args, "--appendonly") !== "yes") fail(nameOf(set), "redis-server without --appendonly yes");
  if (!["everysec", "always"].includes(flag(args, "--appendfsync")))
    fail(nameOf(set), `--appendfsync ${flag(args, "--appendfsync")}; everysec (docs) or always`);
  const dir = flag(args, "--dir");
  const mount = (container.volumeMounts || []).find((v) => v.mountPath === dir);
  const claims = (set.spec.volumeClaimTemplates || []).map((c) => c.metadata.name);
  if (!mount || !claims.includes(mount.name))
    fail(nameOf(set), `--dir ${dir} is not on a volumeClaimTemplate (claims: ${claims.join(", ") || "none"})`);
  if (servicePort) {
    const target = servicePort.targetPort;
    const ports = container.ports || [];
    if (!ports.some((p) => p.name === target || p.containerPort === target))
      fail(nameOf(service), `targetPort ${target} is not a port of the Redis container`);
    const redisPort = flag(args, "--port") || "6379";
    if (!ports.some((p) => (p.name === target || p.containerPort === target) && String(p.containerPort) === redisPort))
      fail(nameOf(set), `redis-server listens on ${redisPort}; the Service targets ${target}`);
  }
}

function checkKeda(objects) {
  const { ScaledObject } = require("@kubernetes-models/keda/keda.sh/v1alpha1");
  const scaled = objects.filter((o) => o.kind === "ScaledObject");
  const deployment = objects.find((o) => o.kind === "Deployment");
  if (scaled.length !== 1) return fail("keda", `${scaled.length} ScaledObjects rendered; expected 1`);
  const so = scaled[0];
  validate(ScaledObject, so, nameOf(so));
  const ref = so.spec.scaleTargetRef;
  if ((ref.kind || "Deployment") !== "Deployment" || ref.name !== deployment.metadata.name)
    fail(nameOf(so), `scales ${ref.kind}/${ref.name}, not ${nameOf(deployment)}`);
  for (const hpa of objects.filter((o) => o.kind === "HorizontalPodAutoscaler"))
    if (hpa.spec.scaleTargetRef.name === deployment.metadata.name)
      fail(nameOf(hpa), "still scales the Deployment: KEDA refuses a target another HPA scales");
  if (!(so.spec.minReplicaCount >= 2))
    fail(nameOf(so), "minReplicaCount below 2 leaves no replica during a rollout or drain");
  const prom = so.spec.triggers.filter((t) => t.type === "prometheus");
  if (!prom.some((t) => /\btsserve_queue_depth_rows\b/.test(t.metadata.query || "")))
    fail(nameOf(so), "no prometheus trigger on tsserve_queue_depth_rows");
  for (const t of prom)
    if (!(Number(t.metadata.threshold) > 0) || !/^https?:\/\//.test(t.metadata.serverAddress || ""))
      fail(nameOf(so), "a prometheus trigger needs serverAddress (http://...) and a positive threshold");
  if (!so.spec.triggers.some((t) => t.type === "cpu"))
    fail(nameOf(so), "no cpu trigger (the HPA's CPU rule it replaces)");
  console.log(`ScaledObject queries: ${prom.map((t) => t.metadata.query).join("; ")}`);
}

function checkKserve(objects) {
  const runtimes = objects.filter(
    (o) => o.apiVersion === "serving.kserve.io/v1alpha1" && o.kind === "ClusterServingRuntime");
  const services = objects.filter(
    (o) => o.apiVersion === "serving.kserve.io/v1beta1" && o.kind === "InferenceService");
  if (runtimes.length !== 1 || services.length !== 1)
    return fail("kserve",
                `${runtimes.length} ClusterServingRuntime(s), ${services.length} InferenceService(s); expected 1 each`);
  for (const o of [...runtimes, ...services])
    if (!o.metadata || !o.metadata.name || !o.spec) fail(nameOf(o), "needs metadata.name and spec");
  const [rt] = runtimes;
  const [isvc] = services;
  const formats = rt.spec.supportedModelFormats || [];
  if (!formats.some((f) => f.name === "tsserve")) fail(nameOf(rt), "supportedModelFormats lacks name tsserve");
  for (const p of ["v2", "grpc-v2"])
    if (!(rt.spec.protocolVersions || []).includes(p)) fail(nameOf(rt), `protocolVersions lacks ${p}`);
  const { containers, volumes } = rt.spec;
  validateContainers(nameOf(rt), containers, volumes ? { volumes } : {});
  const c = (containers || [])[0] || {};
  if (c.name !== "kserve-container") fail(nameOf(rt), "KServe runs the container named kserve-container");
  const args = c.args || [];
  const port = (f) => Number((flag(args, f) || "").split(":").pop());
  const http = port("--http-address");
  const grpc = port("--grpc-address");
  if (flag(args, "--model-repository") !== "/mnt/models")
    fail(nameOf(rt), "--model-repository should be /mnt/models (where KServe's storage initializer puts storageUri)");
  if (!(c.ports || []).some((p) => p.containerPort === http))
    fail(nameOf(rt), `container ports ${JSON.stringify(c.ports)} do not include the HTTP port ${http}`);
  for (const probe of ["readinessProbe", "livenessProbe"]) {
    const p = c[probe] || {};
    const probed = p.httpGet ? p.httpGet.port : p.grpc ? p.grpc.port : undefined;
    if (probed !== (p.grpc ? grpc : http))
      fail(nameOf(rt), `${probe} probes port ${probed}; tsserve listens on ${http} (HTTP), ${grpc} (gRPC)`);
  }
  if (c[`livenessProbe`] && c.livenessProbe.httpGet && c.livenessProbe.httpGet.path !== "/v2/health/live")
    fail(nameOf(rt), "liveness should be the process alone (/v2/health/live)");
  const env = Object.fromEntries((c.env || []).map((e) => [e.name, e.value]));
  if (!/^redis:\/\//.test(env.TSSERVE_SERIES_STORE || ""))
    fail(nameOf(rt), "no TSSERVE_SERIES_STORE: the predictor's replicas would not share series");
  const sc = c.securityContext || {};
  if (sc.runAsNonRoot !== true || sc.allowPrivilegeEscalation !== false)
    fail(nameOf(rt), "runAsNonRoot and no privilege escalation expected");
  const model = (isvc.spec.predictor || {}).model;
  if (!model) return fail(nameOf(isvc), "spec.predictor.model is required (a runtime-based predictor)");
  if (model.runtime !== rt.metadata.name)
    fail(nameOf(isvc), `runtime ${model.runtime}; the ClusterServingRuntime is ${rt.metadata.name}`);
  const format = model.modelFormat || {};
  if (!formats.some((f) => f.name === format.name && (!format.version || f.version === format.version)))
    fail(nameOf(isvc), `modelFormat ${JSON.stringify(format)} is not one the runtime supports`);
  if (model.protocolVersion && !(rt.spec.protocolVersions || []).includes(model.protocolVersion))
    fail(nameOf(isvc), `protocolVersion ${model.protocolVersion} is not one the runtime speaks`);
  if (!/^(pvc|s3|gs|https?):\/\//.test(model.storageUri || ""))
    fail(nameOf(isvc), "storageUri missing or of no known scheme");
  const p = isvc.spec.predictor;
  if (!(p.minReplicas >= 2 && p.maxReplicas >= p.minReplicas))
    fail(nameOf(isvc), "minReplicas >= 2 <= maxReplicas expected");
}

function main() {
  const args = process.argv.slice(2);
  const expectFail = args.includes("--expect-fail");
  const [rendered, kedaRendered, ...kserve] = args.filter((a) => a !== "--expect-fail");
  checkRedis(load(rendered));
  checkKeda(load(kedaRendered));
  checkKserve(kserve.flatMap(load));
  for (const p of problems) console.log(expectFail ? "caught:" : "FAIL:", p);
  if (expectFail) {
    if (!problems.length) {
      console.log("FAIL: the planted defect was not caught");
      process.exit(1);
    }
    return;
  }
  if (problems.length) process.exit(1);
  console.log("PASS: Redis StatefulSet and series_store, KEDA ScaledObject, KServe runtime and InferenceService");
}

main();
