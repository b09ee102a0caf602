// Models: every model and version the server knows with its state, default version, load
// time and memory; for a ready version its family, shapes, attention, calibrated levels,
// device and kernels; and the repository's refusals with their reasons.

import { api, versionPath } from "./api.js";
import { byId, el, formatBytes, setStatus } from "./dom.js";
import { infoKey, state } from "./state.js";

const STATES = {
  STATE_LOADING: "loading",
  STATE_READY: "ready",
  STATE_FAILED: "failed",
  STATE_UNLOADING: "unloading",
};

function shapes(info) {
  const parts = [
    "seq_len " + info.seq_len,
    "pred_len " + info.pred_len,
    "enc_in " + info.enc_in,
    "d_model " + info.d_model,
    "heads " + info.n_heads,
    "layers " + info.e_layers,
  ];
  // A family whose tokens are patches of the input says so by its patch_count (PatchTST).
  if (info.patch_count > 0) {
    parts.push("patch " + info.patch_len + "/" + info.stride + " (" + info.patch_count + " patches)");
  }
  if (info.calendar_features && info.calendar_features.length) {
    parts.push("calendar " + info.calendar_features.join(", "));
  }
  return parts.join(", ");
}

function versionRow(model, status, info) {
  const cells = [
    el("td", {}, status.version),
    el("td", { class: "state state-" + (STATES[status.state] || "unknown") }, STATES[status.state] || status.state),
    el("td", {}, status.load_seconds ? status.load_seconds.toFixed(2) + " s" : "-"),
    el("td", {}, status.resident_bytes && status.resident_bytes !== "0" ? formatBytes(status.resident_bytes) : "-"),
  ];
  if (info) {
    cells.push(
      el("td", {}, info.family),
      el("td", {}, shapes(info)),
      el("td", {}, info.attention === "ATTENTION_KIND_PROB" ? "ProbSparse (factor " + info.factor + ")" : "full"),
      el("td", {}, (info.calibration_levels || []).join(", ") || "none"),
      el(
        "td",
        {},
        info.device +
          ", " +
          info.forward_kernels +
          (info.forward_fallback_reason ? " (" + info.forward_fallback_reason + ")" : ""),
      ),
    );
  } else {
    cells.push(el("td", { colspan: 5, class: "reason" }, status.reason || ""));
  }
  return el("tr", { "data-model": model, "data-version": status.version }, ...cells);
}

export async function refreshModels() {
  setStatus("Loading the models...");
  const list = await api("/v1/models");
  const container = byId("models-list");
  const tables = [];
  for (const model of list.models) {
    const rows = [];
    for (const status of model.versions) {
      let info = null;
      if (status.state === "STATE_READY") {
        info = await api(versionPath(model.name, status.version));
        state.infos.set(infoKey(model.name, status.version), info);
      }
      rows.push(versionRow(model.name, status, info));
    }
    const head = el(
      "tr",
      {},
      ...["version", "state", "load", "memory", "family", "shapes", "attention", "calibrated levels", "device, kernels"]
        .map((h) => el("th", {}, h)),
    );
    tables.push(
      el(
        "div",
        { class: "model", "data-model": model.name },
        el("h2", {}, model.name),
        el("p", { class: "note" }, "default version: " + (model.default_version || "none ready")),
        el("div", { class: "scroll" }, el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows))),
      ),
    );
  }
  container.replaceChildren(...tables);
  const refusals = byId("models-refusals");
  refusals.replaceChildren(
    ...(list.refusals.length ? list.refusals.map((r) => el("li", {}, r)) : [el("li", { class: "note" }, "none")]),
  );
  setStatus(list.models.length + " model(s)");
  return list;
}

export function initModels() {
  byId("models-refresh").addEventListener("click", () => refreshModels().catch((e) => setStatus(e.message, true)));
}
