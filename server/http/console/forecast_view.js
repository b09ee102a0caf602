// Forecast: pick a model and version, load a CSV window (a file, or the server's sample
// when it offers one), choose columns and interval levels, and see each variable's
// history, forecast and bands in raw units on the server's forecast timestamps.

import { api, exists, versionPath } from "./api.js";
import { byId, el, setStatus } from "./dom.js";
import { parseCsv } from "./csv.js";
import { seriesChart } from "./chart.js";
import { infoKey, publishForecast, state } from "./state.js";

let csvText = null; // the loaded file, read again when the model's seq_len changes
let csvName = "";
let window_ = null; // {times, columns}

function selectedInfo() {
  return state.infos.get(infoKey(byId("forecast-model").value, byId("forecast-version").value));
}

function fillSelect(select, values) {
  const keep = select.value;
  select.replaceChildren(...values.map((v) => el("option", { value: v }, v)));
  if (values.includes(keep)) select.value = keep;
}

async function ensureInfo(model, version) {
  const key = infoKey(model, version);
  if (!state.infos.has(key)) {
    state.infos.set(key, await api(versionPath(model, version)));
  }
  return state.infos.get(key);
}

let listed = [];

export async function refreshForecastModels() {
  const list = await api("/v1/models");
  listed = list.models.filter((m) => m.versions.some((v) => v.state === "STATE_READY"));
  fillSelect(byId("forecast-model"), listed.map((m) => m.name));
  await modelChanged();
}

let shownModel = "";

async function modelChanged() {
  const model = listed.find((m) => m.name === byId("forecast-model").value);
  const versions = model ? model.versions.filter((v) => v.state === "STATE_READY").map((v) => v.version) : [];
  const select = byId("forecast-version");
  fillSelect(select, versions);
  // Another model starts at its default version (the newest ready one).
  if (model && (model.name !== shownModel || !versions.includes(select.value))) select.value = model.default_version;
  shownModel = model ? model.name : "";
  await versionChanged();
}

async function versionChanged() {
  const model = byId("forecast-model").value;
  const version = byId("forecast-version").value;
  if (!model || !version) return;
  const info = await ensureInfo(model, version);
  const levels = byId("forecast-levels");
  const boxes = (info.calibration_levels || []).map((level) =>
    el(
      "label",
      {},
      el("input", {
        type: "checkbox",
        value: String(level),
        ...(level === 0.8 || level === 0.95 ? { checked: "" } : {}),
      }),
      " " + level,
    ),
  );
  levels.replaceChildren(
    el("legend", {}, "Interval levels"),
    ...(boxes.length ? boxes : [el("span", { class: "note" }, "this version has no calibration")]),
  );
  levels.dataset.for = model;
  if (csvText !== null) readWindow();
}

function readWindow() {
  const info = selectedInfo();
  try {
    window_ = parseCsv(csvText, info.seq_len);
  } catch (error) {
    window_ = null;
    byId("forecast-run").disabled = true;
    setStatus(csvName + ": " + error.message, true);
    return;
  }
  const note =
    csvName + ": the last " + window_.times.length + " of " + window_.totalRows + " rows, " +
    window_.times[0] + " to " + window_.times[window_.times.length - 1] +
    (window_.times.length < info.seq_len ? " (the model reads " + info.seq_len + ")" : "");
  byId("forecast-window").textContent = note;
  const columns = byId("forecast-columns");
  columns.replaceChildren(
    el("legend", {}, "Columns"),
    ...window_.columns.map((column) =>
      el("label", {}, el("input", { type: "checkbox", value: column.name, checked: "" }), " " + column.name),
    ),
  );
  byId("forecast-run").disabled = false;
  setStatus("Window loaded: " + window_.columns.length + " columns");
}

function checkedValues(container) {
  return [...container.querySelectorAll("input:checked")].map((input) => input.value);
}

async function runForecast() {
  const model = byId("forecast-model").value;
  const version = byId("forecast-version").value;
  const info = selectedInfo();
  const names = checkedValues(byId("forecast-columns"));
  const levels = checkedValues(byId("forecast-levels")).map(Number);
  const columns = window_.columns.filter((c) => names.includes(c.name));
  const body = { series: {}, timestamps: window_.times };
  for (const column of columns) body.series[column.name] = column.values;
  if (levels.length) body.intervals = levels;
  if (byId("forecast-attention").checked) body.attention = { average_heads: false };
  setStatus("Forecasting...");
  const path = versionPath(model, version) + "/forecast";
  const response = await api(path, { method: "POST", body });
  const charts = byId("forecast-charts");
  charts.replaceChildren();
  const used = response.input_points_used;
  for (const column of columns) {
    const history = { times: window_.times.slice(-used), values: column.values.slice(-used) };
    // A model forecasting a target from covariates answers the target alone: the
    // covariates are drawn as history.
    if (!(column.name in response.forecast)) {
      charts.append(el("div", { class: "chart-box" }, seriesChart({ name: column.name, history }).node));
      continue;
    }
    const forecast = { times: response.timestamps || [], values: response.forecast[column.name] };
    const bands = Object.entries(response.intervals || {}).map(([level, band]) => ({
      level: Number(level),
      lower: band.lower[column.name],
      upper: band.upper[column.name],
    }));
    charts.append(el("div", { class: "chart-box" }, seriesChart({ name: column.name, history, forecast, bands }).node));
  }
  byId("forecast-summary").textContent =
    response.model + " version " + response.version + ", request " + response.request_id +
    ", " + (response.timing.compute_seconds * 1000).toFixed(2) + " ms of model time" +
    (response.scaler_applied ? ", scaler applied" : "");
  byId("forecast-summary").dataset.requestId = response.request_id;
  publishForecast({ model, version, info, window: window_, columns: columns.map((c) => c.name), response });
  setStatus("Forecast by " + response.model + " version " + response.version);
}

async function loadSample() {
  const response = await fetch("sample.csv");
  if (!response.ok) throw new Error("the server offers no sample (start it with --http-console-sample FILE)");
  csvText = await response.text();
  csvName = "sample.csv";
  readWindow();
}

export function initForecast() {
  const report = (promise) => promise.catch((error) => setStatus(error.message, true));
  byId("forecast-model").addEventListener("change", () => report(modelChanged()));
  byId("forecast-version").addEventListener("change", () => report(versionChanged()));
  byId("forecast-file").addEventListener("change", (event) => {
    const file = event.target.files[0];
    if (!file) return;
    report(
      file.text().then((text) => {
        csvText = text;
        csvName = file.name;
        readWindow();
      }),
    );
  });
  byId("forecast-sample").addEventListener("click", () => report(loadSample()));
  byId("forecast-run").addEventListener("click", () => report(runForecast()));
  report(exists("sample.csv").then((offered) => (byId("forecast-sample").hidden = !offered)));
}
