// Accuracy: each served version's live error by horizon (MAE, MSE in the model's space,
// from the actuals reported to POST /v1/actuals) and its interval coverage beside the
// nominal level. Polled every 10 s while the view is shown, never faster.

import { api } from "./api.js";
import { byId, el, formatNumber, setStatus } from "./dom.js";

const POLL_MS = 10000;
let timer = null;

function table(head, rows) {
  return el(
    "div",
    { class: "scroll" },
    el("table", {}, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))), el("tbody", {}, ...rows)),
  );
}

function versionBlock(version) {
  const errors = version.horizons.filter((h) => h.points > 0).map((h) =>
    el(
      "tr",
      {},
      el("td", {}, h.steps),
      el("td", {}, String(h.points)),
      el("td", {}, formatNumber(h.mae)),
      el("td", {}, formatNumber(h.mse)),
    ),
  );
  const coverage = [];
  for (const interval of version.intervals) {
    for (const h of interval.horizons) {
      if (!h.points) continue;
      const gap = h.coverage - interval.level;
      coverage.push(
        el(
          "tr",
          {},
          el("td", {}, String(interval.level)),
          el("td", {}, h.steps),
          el("td", {}, String(h.points)),
          el("td", { class: gap < -0.05 ? "under" : "" }, formatNumber(h.coverage)),
        ),
      );
    }
  }
  return el(
    "div",
    { class: "model", "data-model": version.model, "data-version": version.version },
    el("h2", {}, version.model + " version " + version.version),
    table(["horizon (steps)", "points", "MAE", "MSE"], errors),
    coverage.length
      ? table(["level", "horizon (steps)", "points", "coverage"], coverage)
      : el("p", { class: "note" }, "No interval scored yet."),
  );
}

export async function refreshAccuracy() {
  const accuracy = await api("/v1/accuracy");
  const list = byId("accuracy-list");
  if (!accuracy.counting) {
    const why = "This server counts no accuracy: it runs without metrics (--metrics-address \"\").";
    list.replaceChildren(el("p", { class: "note" }, why));
    return accuracy;
  }
  if (!accuracy.versions.some((v) => v.horizons.some((h) => h.points > 0))) {
    const how = "Nothing scored yet: send forecasts with a series_key, then their actuals to POST /v1/actuals.";
    list.replaceChildren(el("p", { class: "note" }, how));
    return accuracy;
  }
  // Versions with a point scored get their tables; the others one line.
  const scored = accuracy.versions.filter((v) => v.horizons.some((h) => h.points > 0));
  const waiting = accuracy.versions.filter((v) => !scored.includes(v));
  const blocks = scored.map(versionBlock);
  if (waiting.length) {
    const names = waiting.map((v) => v.model + " version " + v.version).join(", ");
    blocks.push(el("p", { class: "note" }, "Nothing scored yet: " + names + "."));
  }
  list.replaceChildren(...blocks);
  return accuracy;
}

export function showAccuracy(shown) {
  clearInterval(timer);
  timer = null;
  if (!shown) return;
  const poll = () => refreshAccuracy().catch((error) => setStatus(error.message, true));
  poll();
  timer = setInterval(poll, POLL_MS);
}

export function initAccuracy() {
  byId("accuracy-refresh").addEventListener("click", () =>
    refreshAccuracy().catch((error) => setStatus(error.message, true)),
  );
}
