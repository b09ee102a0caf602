// Attention: the last forecast's maps per layer, per head or averaged over heads, per
// variable (PatchTST: patch to patch) or token to token (iTransformer: the variables and
// calendar features), on one colour scale per view with the value under the pointer.
// Linked to the input: a chosen cell highlights, on the series the model read, the input
// steps its query and key patches cover (PatchTST) or the variables its tokens are
// (iTransformer). A TimeXer's covariates maps rank what the target listened to, each
// covariate linked to its series. Downloads: the map as CSV, every map as JSON, the views
// as PNG.

import { byId, download, el, hideTooltip, setStatus, showTooltip } from "./dom.js";
import { cellAt, drawHeatmap, drawScale } from "./heatmap.js";
import { chartPng, seriesChart } from "./chart.js";
import { onForecast, state } from "./state.js";

let view = null; // {maps, matrix, min, max, selected, labels, chart}

// What the model's info says of its maps, not its family's name: one map per variable and
// layer (PatchTST) rather than one per sample and layer (iTransformer, Informer,
// Transformer; maps_per_sample), and tokens that are patches of the input (patch_count > 0,
// PatchTST) rather than named tokens.
function mapsPerVariable() {
  return !state.forecast.info.maps_per_sample;
}

function tokensArePatches() {
  return state.forecast.info.patch_count > 0;
}

// The input steps (inclusive) patch `i` covers; `padded` when it reaches into the
// repeated last value the model appends (stride points).
export function patchSpan(info, i) {
  const from = i * info.stride;
  const last = from + info.patch_len - 1;
  return {
    from: Math.min(from, info.seq_len - 1),
    to: Math.min(last, info.seq_len - 1),
    padded: last > info.seq_len - 1,
  };
}

function tokenLabel(i) {
  if (!tokensArePatches()) {
    const map = currentMaps()[0];
    return map.token_names ? map.token_names[i] : "token " + i;
  }
  // A TimeXer's last token is its global token, after the patches.
  if (i >= state.forecast.info.patch_count) return "global token";
  const span = patchSpan(state.forecast.info, i);
  return "patch " + i + " (steps " + span.from + "-" + span.to + (span.padded ? ", padded" : "") + ")";
}

function currentMaps() {
  const layer = Number(byId("attention-layer").value);
  const variable = byId("attention-variable").value;
  // A TimeXer's "covariates" maps (its global token over the covariates) are not drawn
  // here: the heatmap is the self-attention over its tokens.
  return state.forecast.response.attention.filter(
    (map) =>
      map.layer === layer &&
      map.stack !== "covariates" &&
      (!mapsPerVariable() || map.variable === variable),
  );
}

// The selected head's [Q][K] (or the mean over heads, computed here in double).
function currentMatrix() {
  const map = currentMaps()[0];
  if (map.heads_averaged) return map.weights;
  const head = byId("attention-head").value;
  if (head !== "mean") return map.weights[Number(head)];
  const heads = map.weights.length;
  return map.weights[0].map((row, q) =>
    row.map((_, k) => map.weights.reduce((sum, h) => sum + h[q][k], 0) / heads),
  );
}

function valueText(q, k) {
  const head = byId("attention-head").value;
  const of = head === "mean" ? " (mean of heads)" : " (head " + head + ")";
  return tokenLabel(q) + " -> " + tokenLabel(k) + ": " + view.matrix[q][k] + of;
}

// A TimeXer's map of the chosen layer from its global token over the covariate tokens, as
// [{name, weight}] most attended first (the chosen head, or the mean of heads); [] for
// another model.
export function rankedCovariates() {
  const layer = Number(byId("attention-layer").value);
  const map = state.forecast.response.attention.find((m) => m.stack === "covariates" && m.layer === layer);
  if (!map) return [];
  const head = byId("attention-head").value;
  const heads = map.heads_averaged ? [map.weights] : head === "mean" ? map.weights : [map.weights[Number(head)]];
  const names = map.token_names || [];
  const weights = names.map((_, k) => heads.reduce((sum, h) => sum + h[0][k], 0) / heads.length);
  return names.map((name, k) => ({ name, weight: weights[k] })).sort((a, b) => b.weight - a.weight);
}

function drawCovariates() {
  const ranked = rankedCovariates();
  byId("attention-covariates").hidden = ranked.length === 0;
  const top = ranked.length ? ranked[0].weight : 1;
  byId("attention-covariate-list").replaceChildren(
    ...ranked.map(({ name, weight }) => {
      const bar = el("span", { class: "bar" });
      // Through the CSSOM: the page's CSP allows no inline style attribute.
      bar.style.width = Math.round((100 * weight) / top) + "px";
      const text = " " + name + " " + weight.toFixed(3);
      const item = el("li", { "data-covariate": name, "data-weight": String(weight) }, bar, text);
      if (state.forecast.columns.includes(name)) {
        item.classList.add("linked");
        item.addEventListener("click", () => {
          view.covariate = name;
          drawLinkedInput();
        });
      }
      return item;
    }),
  );
}

function redraw() {
  if (!state.forecast || !state.forecast.response.attention || !state.forecast.response.attention.length) return;
  const matrix = currentMatrix();
  let min = Infinity;
  let max = -Infinity;
  for (const row of matrix) {
    for (const v of row) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  }
  view.matrix = matrix;
  view.min = min;
  view.max = max;
  const canvas = byId("attention-map");
  drawHeatmap(canvas, matrix, min, max, view.selected);
  drawScale(byId("attention-scale"), min, max);
  drawCovariates();
  drawLinkedInput();
}

function variableOfToken(i) {
  const map = currentMaps()[0];
  const name = map.token_names ? map.token_names[i] : null;
  return state.forecast.columns.includes(name) ? name : null;
}

function drawLinkedInput() {
  const forecast = state.forecast;
  const selected = view.selected;
  let variable = byId("attention-variable").value;
  if (!mapsPerVariable()) variable = (selected && variableOfToken(selected.q)) || forecast.columns[0];
  // A covariate chosen in the ranking: its series (a TimeXer's map is its target's).
  if (view.covariate) variable = view.covariate;
  const column = forecast.window.columns.find((c) => c.name === variable);
  const used = forecast.response.input_points_used;
  const history = { times: forecast.window.times.slice(-used), values: column.values.slice(-used) };
  view.chart = seriesChart({ name: variable, history, width: 640, height: 220 });
  byId("attention-series").replaceChildren(view.chart.node);
  const tokens = byId("attention-tokens");
  tokens.replaceChildren();
  if (tokensArePatches()) {
    if (selected) {
      const query = patchSpan(forecast.info, selected.q);
      const key = patchSpan(forecast.info, selected.k);
      view.chart.highlight([
        { ...key, kind: "key" },
        { ...query, kind: "query" },
      ]);
      byId("attention-selection").textContent = "query " + tokenLabel(selected.q) + ", key " + tokenLabel(selected.k);
    } else {
      byId("attention-selection").textContent = "Click a cell: its query and key patches are marked on the series.";
    }
    return;
  }
  const names = currentMaps()[0].token_names || [];
  names.forEach((name, i) => {
    const classes = ["token"];
    if (selected && selected.q === i) classes.push("token-query");
    if (selected && selected.k === i) classes.push("token-key");
    tokens.append(el("li", { class: classes.join(" "), "data-token": String(i) }, name));
  });
  byId("attention-selection").textContent = selected
    ? "query token " + names[selected.q] + ", key token " + names[selected.k] + "; the series shown: " + variable
    : "Click a cell: its query and key tokens are marked, and the query's variable is shown.";
}

function clearReadout() {
  const readout = byId("attention-readout");
  readout.textContent = "";
  for (const name of ["query", "key", "value"]) delete readout.dataset[name];
}

function fillSelect(select, options) {
  select.replaceChildren(...options.map(([value, text]) => el("option", { value }, text)));
}

function showForecast(forecast) {
  const maps = forecast.response.attention || [];
  byId("attention-empty").hidden = maps.length > 0;
  byId("attention-body").hidden = maps.length === 0;
  if (!maps.length) return;
  const layers = [...new Set(maps.map((m) => m.layer))].sort((a, b) => a - b);
  fillSelect(byId("attention-layer"), layers.map((l) => [String(l), "layer " + l]));
  const heads = maps[0].heads_averaged ? [] : maps[0].weights.map((_, h) => [String(h), "head " + h]);
  fillSelect(byId("attention-head"), [["mean", "mean of heads"], ...heads]);
  const variables = [...new Set(maps.map((m) => m.variable).filter((v) => v !== null))];
  fillSelect(byId("attention-variable"), variables.map((v) => [v, v]));
  byId("attention-variable-label").hidden = !mapsPerVariable();
  view = { selected: null };
  clearReadout();
  redraw();
}

function mapCsv() {
  const size = view.matrix.length;
  const labels = Array.from({ length: size }, (_, i) => tokenLabel(i));
  const quote = (text) => '"' + String(text).replaceAll('"', '""') + '"';
  const lines = [["query \\ key", ...labels].map(quote).join(",")];
  view.matrix.forEach((row, q) => lines.push([quote(labels[q]), ...row.map(String)].join(",")));
  return lines.join("\n") + "\n";
}

function fileStem() {
  const f = state.forecast;
  return f.model + "-v" + f.version + "-layer" + byId("attention-layer").value + "-" + byId("attention-head").value;
}

export function initAttention() {
  onForecast(showForecast);
  for (const id of ["attention-layer", "attention-head", "attention-variable"]) {
    byId(id).addEventListener("change", () => {
      view.selected = null;
      view.covariate = null;
      clearReadout();
      redraw();
    });
  }
  const canvas = byId("attention-map");
  canvas.addEventListener("mousemove", (event) => {
    const cell = cellAt(canvas, event);
    if (!cell || !view.matrix) return hideTooltip();
    const text = valueText(cell.q, cell.k);
    byId("attention-readout").textContent = text;
    byId("attention-readout").dataset.query = cell.q;
    byId("attention-readout").dataset.key = cell.k;
    byId("attention-readout").dataset.value = String(view.matrix[cell.q][cell.k]);
    showTooltip(event, [text]);
  });
  canvas.addEventListener("mouseleave", hideTooltip);
  canvas.addEventListener("click", (event) => {
    const cell = cellAt(canvas, event);
    if (!cell) return;
    view.selected = cell;
    view.covariate = null;
    redraw();
  });
  byId("attention-csv").addEventListener("click", () => download(fileStem() + ".csv", "text/csv", mapCsv()));
  byId("attention-json").addEventListener("click", () => {
    const f = state.forecast;
    const maps = {
      model: f.model,
      version: f.version,
      request_id: f.response.request_id,
      attention: f.response.attention,
    };
    download(f.model + "-v" + f.version + "-attention.json", "application/json", JSON.stringify(maps));
  });
  byId("attention-png").addEventListener("click", () =>
    canvas.toBlob((blob) => download(fileStem() + ".png", "image/png", blob), "image/png"),
  );
  byId("attention-series-png").addEventListener("click", () =>
    chartPng(view.chart.node)
      .then((blob) => download(fileStem() + "-series.png", "image/png", blob))
      .catch((error) => setStatus(error.message, true)),
  );
}
