// Building the page from data. Every text that comes from a file or a model (variable
// names, model names, refusal reasons) is set as text, never parsed as markup: el()
// appends strings as text nodes and has no way to set innerHTML.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export function byId(id) {
  return document.getElementById(id);
}

// The line under the header: what the page is doing, or what went wrong.
export function setStatus(text, isError = false) {
  const status = byId("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

// Saves `content` (text or a Blob) as a file the browser downloads.
export function download(fileName, type, content) {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// "1.2 MiB", for sizes the API gives in bytes.
export function formatBytes(bytes) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = Number(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return (unit === 0 ? String(value) : value.toFixed(1)) + " " + units[unit];
}

// A figure for a table: null (nothing measured) as a dash.
export function formatNumber(value, digits = 4) {
  return value === null || value === undefined ? "-" : Number(value).toPrecision(digits);
}

// The tooltip that follows the pointer over charts and maps.
export function showTooltip(event, lines) {
  const tooltip = byId("tooltip");
  tooltip.replaceChildren(...lines.map((line) => el("div", {}, line)));
  tooltip.hidden = false;
  const x = Math.min(event.clientX + 14, window.innerWidth - tooltip.offsetWidth - 4);
  tooltip.style.left = Math.max(0, x) + "px";
  tooltip.style.top = event.clientY + 14 + "px";
}

export function hideTooltip() {
  byId("tooltip").hidden = true;
}
