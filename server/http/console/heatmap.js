// An attention map on a <canvas>: row q (the query), column k (the key), colour on one
// scale given by the caller (so the maps of one view compare), the cell under the pointer
// reported to `onHover` and a clicked cell to `onSelect`.

// Colour stops of a perceptually ordered scale (dark blue, teal, yellow).
const STOPS = [
  [0.0, [13, 8, 135]],
  [0.25, [84, 2, 163]],
  [0.5, [33, 145, 140]],
  [0.75, [144, 215, 67]],
  [1.0, [253, 231, 37]],
];

export function colourAt(t) {
  const u = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  for (let i = 1; i < STOPS.length; i += 1) {
    if (u <= STOPS[i][0]) {
      const [t0, c0] = STOPS[i - 1];
      const [t1, c1] = STOPS[i];
      const f = (u - t0) / (t1 - t0);
      return c0.map((c, j) => Math.round(c + f * (c1[j] - c)));
    }
  }
  return STOPS[STOPS.length - 1][1];
}

// Draws `matrix` ([Q][K] numbers) on `canvas` between `min` and `max`; returns the cell
// size. `selected`: {q, k} outlined.
export function drawHeatmap(canvas, matrix, min, max, selected) {
  const rows = matrix.length;
  const cols = rows ? matrix[0].length : 0;
  const cell = Math.max(1, Math.floor(Math.min(canvas.width / cols, canvas.height / rows)));
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  const image = context.createImageData(cell * cols, cell * rows);
  for (let q = 0; q < rows; q += 1) {
    for (let k = 0; k < cols; k += 1) {
      const [r, g, b] = colourAt((matrix[q][k] - min) / (max - min || 1));
      for (let dy = 0; dy < cell; dy += 1) {
        let offset = ((q * cell + dy) * cell * cols + k * cell) * 4;
        for (let dx = 0; dx < cell; dx += 1) {
          image.data[offset] = r;
          image.data[offset + 1] = g;
          image.data[offset + 2] = b;
          image.data[offset + 3] = 255;
          offset += 4;
        }
      }
    }
  }
  context.putImageData(image, 0, 0);
  if (selected) {
    context.strokeStyle = "#ff3b30";
    context.lineWidth = 2;
    context.strokeRect(selected.k * cell + 1, selected.q * cell + 1, cell - 2, cell - 2);
  }
  canvas.dataset.rows = rows;
  canvas.dataset.cols = cols;
  canvas.dataset.cell = cell;
  return cell;
}

// The cell {q, k} under a pointer event, or null.
export function cellAt(canvas, event) {
  const box = canvas.getBoundingClientRect();
  const cell = Number(canvas.dataset.cell);
  const px = ((event.clientX - box.left) / box.width) * canvas.width;
  const py = ((event.clientY - box.top) / box.height) * canvas.height;
  const q = Math.floor(py / cell);
  const k = Math.floor(px / cell);
  if (q < 0 || k < 0 || q >= Number(canvas.dataset.rows) || k >= Number(canvas.dataset.cols)) return null;
  return { q, k };
}

// The colour scale's legend: a gradient bar between its two values.
export function drawScale(container, min, max) {
  const canvas = document.createElement("canvas");
  canvas.width = 200;
  canvas.height = 10;
  const context = canvas.getContext("2d");
  for (let x = 0; x < canvas.width; x += 1) {
    const [r, g, b] = colourAt(x / (canvas.width - 1));
    context.fillStyle = "rgb(" + r + "," + g + "," + b + ")";
    context.fillRect(x, 0, 1, canvas.height);
  }
  const low = document.createElement("span");
  low.textContent = Number(min.toPrecision(3)).toString();
  const high = document.createElement("span");
  high.textContent = Number(max.toPrecision(3)).toString();
  container.replaceChildren(low, canvas, high);
}
