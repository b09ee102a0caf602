// A variable's history and forecast as an SVG line chart: the bands shaded behind the
// forecast (wider levels lighter), the server's forecast timestamps on the time axis, the
// value under the pointer in the tooltip. Spans of the history can be highlighted (the
// input steps an attention patch covers).
//
// The plot's geometry is kept on the <svg> as data attributes (data-left, data-right,
// data-top, data-bottom, data-y-min, data-y-max, data-steps), so a test can read a
// plotted point back as a value.

import { hideTooltip, showTooltip } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

function svgEl(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function niceTicks(min, max, count) {
  const span = max - min || 1;
  const step = Math.pow(10, Math.floor(Math.log10(span / count)));
  const multiple = [1, 2, 5, 10].find((m) => span / (m * step) <= count) || 10;
  const size = multiple * step;
  const ticks = [];
  for (let v = Math.ceil(min / size) * size; v <= max + 1e-9; v += size) ticks.push(v);
  return ticks;
}

// history: {times, values}; forecast: {times, values}; bands: [{level, lower, upper}]
// (arrays as long as the forecast). Returns {node, highlight(spans)}.
export function seriesChart({ name, history, forecast, bands = [], width = 760, height = 260 }) {
  const margin = { left: 56, right: 12, top: 22, bottom: 36 };
  const steps = history.values.length + (forecast ? forecast.values.length : 0);
  const all = [...history.values];
  if (forecast) all.push(...forecast.values);
  for (const band of bands) all.push(...band.lower, ...band.upper);
  let yMin = Math.min(...all);
  let yMax = Math.max(...all);
  if (yMin === yMax) {
    yMin -= 1;
    yMax += 1;
  }
  const pad = (yMax - yMin) * 0.05;
  yMin -= pad;
  yMax += pad;
  const left = margin.left;
  const right = width - margin.right;
  const top = margin.top;
  const bottom = height - margin.bottom;
  const x = (step) => left + ((right - left) * step) / Math.max(1, steps - 1);
  const y = (value) => bottom - ((bottom - top) * (value - yMin)) / (yMax - yMin);

  const svg = svgEl("svg", {
    viewBox: "0 0 " + width + " " + height,
    class: "chart",
    role: "img",
    "data-left": left,
    "data-right": right,
    "data-top": top,
    "data-bottom": bottom,
    "data-y-min": yMin,
    "data-y-max": yMax,
    "data-steps": steps,
  });
  svg.dataset.variable = name;
  const title = svgEl("text", { x: left, y: 15, class: "chart-title" });
  title.textContent = name;
  svg.append(title);

  for (const tick of niceTicks(yMin, yMax, 5)) {
    svg.append(svgEl("line", { x1: left, x2: right, y1: y(tick), y2: y(tick), class: "grid" }));
    const label = svgEl("text", { x: left - 6, y: y(tick) + 4, class: "axis", "text-anchor": "end" });
    label.textContent = Number(tick.toPrecision(6)).toString();
    svg.append(label);
  }
  const times = [...history.times, ...(forecast ? forecast.times : [])];
  // The first and last times, and the last input time where it has room (a label is about
  // 130 units wide).
  const labelled = [[0, "start"], [steps - 1, "end"]];
  const now = history.values.length - 1;
  if (now - 0 > 0 && x(steps - 1) - x(now) > 140 && x(now) - x(0) > 140) labelled.push([now, "end"]);
  for (const [step, anchor] of labelled) {
    if (step < 0 || step >= times.length) continue;
    const label = svgEl("text", { x: x(step), y: bottom + 16, class: "axis", "text-anchor": anchor });
    label.textContent = String(times[step]).replace("T", " ").replace("Z", "");
    svg.append(label);
  }

  const highlights = svgEl("g", { class: "highlights" });
  svg.append(highlights);

  const offset = history.values.length;
  [...bands]
    .sort((a, b) => b.level - a.level)
    .forEach((band, i) => {
      const upper = band.upper.map((v, j) => x(offset + j) + "," + y(v));
      const lower = band.lower.map((v, j) => x(offset + j) + "," + y(v)).reverse();
      const polygon = svgEl("polygon", {
        points: [...upper, ...lower].join(" "),
        class: "band band-" + Math.min(i, 3),
        "data-level": band.level,
      });
      svg.append(polygon);
    });

  const line = (values, start, kind) =>
    svgEl("polyline", {
      points: values.map((v, j) => x(start + j) + "," + y(v)).join(" "),
      class: kind,
      "data-kind": kind,
    });
  svg.append(line(history.values, 0, "history"));
  if (forecast) {
    svg.append(svgEl("line", { x1: x(offset - 0.5), x2: x(offset - 0.5), y1: top, y2: bottom, class: "now" }));
    svg.append(line(forecast.values, offset, "forecast"));
  }
  const cursor = svgEl("line", { y1: top, y2: bottom, class: "cursor", visibility: "hidden" });
  svg.append(cursor);

  svg.addEventListener("mousemove", (event) => {
    const box = svg.getBoundingClientRect();
    const px = ((event.clientX - box.left) / box.width) * width;
    const step = Math.round(((px - left) / (right - left)) * Math.max(1, steps - 1));
    if (step < 0 || step >= steps) return hideTooltip();
    cursor.setAttribute("x1", x(step));
    cursor.setAttribute("x2", x(step));
    cursor.setAttribute("visibility", "visible");
    const lines = [String(times[step] || "step " + step)];
    if (step < offset) {
      lines.push(name + " " + history.values[step]);
    } else {
      const j = step - offset;
      lines.push(name + " forecast " + forecast.values[j]);
      for (const band of bands) {
        lines.push(band.level + ": " + band.lower[j] + " .. " + band.upper[j]);
      }
    }
    showTooltip(event, lines);
  });
  svg.addEventListener("mouseleave", () => {
    cursor.setAttribute("visibility", "hidden");
    hideTooltip();
  });

  // spans: [{from, to, kind}] in history steps, inclusive.
  function highlight(spans) {
    highlights.replaceChildren();
    for (const span of spans) {
      const x0 = x(span.from - 0.5);
      const x1 = x(span.to + 0.5);
      highlights.append(
        svgEl("rect", {
          x: x0,
          y: top,
          width: Math.max(1, x1 - x0),
          height: bottom - top,
          class: "highlight highlight-" + span.kind,
          "data-from": span.from,
          "data-to": span.to,
        }),
      );
    }
  }

  return { node: svg, highlight };
}

// The chart as a PNG Blob (drawn through an <img> of the SVG's own text).
export function chartPng(svg, scale = 2) {
  const box = svg.viewBox.baseVal;
  const clone = svg.cloneNode(true);
  clone.setAttribute("width", box.width);
  clone.setAttribute("height", box.height);
  const style = document.createElementNS(SVG, "style");
  style.textContent = chartStyleText();
  clone.prepend(style);
  const text = new XMLSerializer().serializeToString(clone);
  const image = new Image();
  return new Promise((resolve, reject) => {
    image.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = box.width * scale;
      canvas.height = box.height * scale;
      const context = canvas.getContext("2d");
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(resolve, "image/png");
    };
    image.onerror = () => reject(new Error("the chart could not be drawn as a picture"));
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  });
}

// The chart rules of console.css, so a downloaded picture looks as on the page.
function chartStyleText() {
  const rules = [];
  for (const sheet of document.styleSheets) {
    for (const rule of sheet.cssRules) {
      if (/\.(chart|grid|axis|band|history|forecast|now|highlight)/.test(rule.selectorText || "")) {
        rules.push(rule.cssText);
      }
    }
  }
  return rules.join("\n");
}
