// The console in a real browser (Debian's chromium, headless, driven by puppeteer-core)
// against a real tsserve serving a model repository with a bearer token:
//   - the page loads with no console errors (the one 401 before the token is given aside)
//     and asks for the token;
//   - the models view lists the repository's versions and refusals, a refused name that is
//     markup shown as text;
//   - an ETTh1 window uploaded as a CSV draws a forecast whose plotted values (the tooltip's
//     text, and the line's points read back through the chart's scale) are the API's answer
//     to the same request, sent here with fetch;
//   - the attention view's hovered value is the API's map at that cell, and a chosen cell
//     highlights the input steps its query and key patches cover; an iTransformer's tokens
//     are named and a chosen token shows its variable; a TimeXer's covariates are ranked
//     by what its target listened to (the API's map), a chosen one showing its series;
//   - the accuracy view shows what GET /v1/accuracy counts after actuals are reported;
//   - a column named <img src=x onerror=alert(1)> is drawn as text;
//   - at 1280x800 and at a 390-px phone width nothing overflows sideways; screenshots of
//     each view at both sizes.
//
//   node console_check.js TSSERVE WORK ETTH1_CSV SCREENSHOT_DIR
"use strict";
/* global document, window, location -- page.evaluate's and waitForFunction's callbacks run in the page */

const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const readline = require("node:readline");
const puppeteer = require("puppeteer-core");

const [tsserve, work, csvPath, shots] = process.argv.slice(2);
// console_test.sh runs a copy of this file beside its npm install in the work folder (the
// source tree may be read-only) and names the source tree in TSSERVE_SOURCE_ROOT.
const ROOT = process.env.TSSERVE_SOURCE_ROOT || path.resolve(__dirname, "..", "..", "..");
const TOKEN = "console-test-token";
const XSS = "<img src=x onerror=alert(1)>";

function step(text) {
  console.log("- " + text);
}

// The repository: patchtst-etth1 versions 1 and 2 (both served), itransformer-etth1
// version 1, timexer-etth1 version 1, and an entry refused for its name.
function makeRepository() {
  const repo = path.join(work, "repository");
  fs.rmSync(repo, { recursive: true, force: true });
  const add = (name, version, stem) => {
    const folder = path.join(repo, name, String(version));
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(path.join(ROOT, "model", "default", stem + ".pt"), path.join(folder, "model.pt"));
    const config = JSON.parse(fs.readFileSync(path.join(ROOT, "model", "default", stem + ".json"), "utf8"));
    config.name = name;
    config.version = String(version);
    fs.writeFileSync(path.join(folder, "config.json"), JSON.stringify(config));
  };
  add("patchtst-etth1", 1, "patchtst_etth1");
  add("patchtst-etth1", 2, "patchtst_etth1");
  fs.writeFileSync(path.join(repo, "patchtst-etth1", "model.json"), JSON.stringify({ version_policy: "all" }));
  add("itransformer-etth1", 1, "itransformer_etth1");
  add("timexer-etth1", 1, "timexer_etth1");
  fs.mkdirSync(path.join(repo, XSS, "1"), { recursive: true });
  return repo;
}

function startServer(repo) {
  const tokenFile = path.join(work, "token");
  fs.writeFileSync(tokenFile, TOKEN + "\n");
  const log = fs.openSync(path.join(work, "tsserve.log"), "w");
  const server = spawn(
    tsserve,
    [
      "--model-repository", repo, "--grpc-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0",
      "--metrics-address", "127.0.0.1:0", "--auth-token-file", tokenFile,
      "--http-console-sample", csvPath, "--instances", "1",
    ],
    { stdio: ["ignore", "pipe", log] },
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("tsserve did not start (log in " + work + ")")), 120000);
    readline.createInterface({ input: server.stdout }).once("line", (line) => {
      clearTimeout(timer);
      const port = /http_port=(\d+)/.exec(line);
      if (!port) return reject(new Error("tsserve printed no http_port: " + line));
      resolve({ server, base: "http://127.0.0.1:" + port[1] });
    });
    server.once("exit", (code) => reject(new Error("tsserve exited " + code + " (log in " + work + ")")));
  });
}

async function apiCall(base, route, body) {
  const response = await fetch(base + route, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: "Bearer " + TOKEN, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  assert.equal(response.status, 200, route + ": " + JSON.stringify(answer));
  return answer;
}

// The last `rows` rows of the CSV, as the console sends them.
function csvWindow(text, rows, end) {
  const lines = text.trim().split(/\r?\n/);
  const header = lines[0].split(",");
  const last = end === undefined ? lines.length : end;
  const body = lines.slice(last - rows, last).map((line) => line.split(","));
  const series = {};
  header.slice(1).forEach((name, i) => (series[name] = body.map((fields) => Number(fields[i + 1]))));
  return { header, times: body.map((fields) => fields[0]), series };
}

async function screenshot(page, name) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, name + ".png"), fullPage: false });
}

async function showView(page, name) {
  await page.evaluate((view) => (location.hash = view), name);
  await page.waitForFunction((view) => !document.getElementById(view).hidden, {}, name);
  await page.evaluate(() => window.scrollTo(0, 0));
}

// The chart of `variable` in `container`: hover over `step`; the tooltip's lines.
async function hoverChart(page, container, variable, stepIndex) {
  const position = await page.evaluate(
    (container, variable, stepIndex) => {
      const svg = [...document.querySelectorAll("#" + container + " svg.chart")].find(
        (s) => s.dataset.variable === variable,
      );
      svg.scrollIntoView({ block: "center" });
      const box = svg.getBoundingClientRect();
      const width = svg.viewBox.baseVal.width;
      const left = Number(svg.dataset.left);
      const right = Number(svg.dataset.right);
      const steps = Number(svg.dataset.steps);
      const x = left + ((right - left) * stepIndex) / (steps - 1);
      return { x: box.left + (x / width) * box.width, y: box.top + box.height / 2 };
    },
    container,
    variable,
    stepIndex,
  );
  await page.mouse.move(position.x, position.y);
  return page.evaluate(() => [...document.querySelectorAll("#tooltip div")].map((d) => d.textContent));
}

// The forecast line's points of `variable` read back as values through the chart's scale.
async function plottedForecast(page, variable) {
  return page.evaluate((variable) => {
    const svg = [...document.querySelectorAll("#forecast-charts svg.chart")].find(
      (s) => s.dataset.variable === variable,
    );
    const top = Number(svg.dataset.top);
    const bottom = Number(svg.dataset.bottom);
    const min = Number(svg.dataset.yMin);
    const max = Number(svg.dataset.yMax);
    const line = svg.querySelector('polyline[data-kind="forecast"]');
    return {
      valuePerUnit: (max - min) / (bottom - top),
      values: line
        .getAttribute("points")
        .split(" ")
        .map((p) => min + ((bottom - Number(p.split(",")[1])) * (max - min)) / (bottom - top)),
    };
  }, variable);
}

async function uploadAndForecast(page, file, model, levels) {
  await showView(page, "forecast");
  await page.waitForFunction(
    (model) => [...document.querySelectorAll("#forecast-model option")].some((o) => o.value === model),
    {},
    model,
  );
  await page.select("#forecast-model", model);
  await page.waitForFunction((model) => document.getElementById("forecast-levels").dataset.for === model, {}, model);
  const input = await page.$("#forecast-file");
  await input.uploadFile(file);
  await page.waitForFunction(() => !document.getElementById("forecast-run").disabled);
  await page.evaluate((levels) => {
    for (const box of document.querySelectorAll("#forecast-levels input")) {
      box.checked = levels.includes(Number(box.value));
    }
  }, levels);
  const before = await page.$eval("#forecast-summary", (p) => p.dataset.requestId || "");
  await page.click("#forecast-run");
  await page.waitForFunction(
    (before) => (document.getElementById("forecast-summary").dataset.requestId || "") !== before,
    {},
    before,
  );
}

async function main() {
  fs.mkdirSync(work, { recursive: true });
  const repo = makeRepository();
  const { server, base } = await startServer(repo);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const problems = [];
  let tokenGiven = false;
  try {
    const page = await browser.newPage();
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      // The first call finds out that the server wants a token: its 401 is logged by the
      // browser itself, before the prompt.
      if (!tokenGiven && /status of 401/.test(message.text())) return;
      problems.push("console error: " + message.text());
    });
    page.on("pageerror", (error) => problems.push("page error: " + error.message));
    page.on("response", (response) => {
      if (response.status() >= 400 && !(response.status() === 401 && !tokenGiven)) {
        problems.push("answered " + response.status() + ": " + response.url());
      }
    });
    page.on("dialog", async (dialog) => {
      problems.push("a dialog opened (script ran from data?): " + dialog.message());
      await dialog.dismiss();
    });
    await page.setViewport({ width: 1280, height: 800 });

    step("the page loads and asks for the token");
    await page.goto(base + "/console/", { waitUntil: "load" });
    await page.waitForFunction(() => !document.getElementById("token-dialog").hidden);
    await screenshot(page, "token");
    await page.type("#token-input", TOKEN);
    tokenGiven = true;
    await page.click("#token-save");

    step("the models view lists the versions and the refusals, markup as text");
    await page.waitForFunction(() => document.querySelectorAll("#models-list tr[data-version]").length >= 4);
    const listed = await page.evaluate(() =>
      [...document.querySelectorAll("#models-list tr[data-version]")].map((row) => [
        row.dataset.model,
        row.dataset.version,
        row.cells[1].textContent,
      ]),
    );
    assert.deepEqual(
      listed.map((r) => r.join(" ")).sort(),
      ["itransformer-etth1 1 ready", "patchtst-etth1 1 ready", "patchtst-etth1 2 ready", "timexer-etth1 1 ready"],
    );
    // The shapes cell names the patching where the version's info reports patches (its
    // patch_count), whatever the family.
    const shapesCells = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll("#models-list tr[data-version]")].map((row) => [
          row.dataset.model + " " + row.dataset.version,
          row.cells[5].textContent,
        ]),
      ),
    );
    for (const [name, version, patched] of [["patchtst-etth1", "2", true], ["itransformer-etth1", "1", false]]) {
      const info = await apiCall(base, "/v1/models/" + name + "/versions/" + version);
      assert.equal(info.patch_count > 0, patched, name + " reports patch_count " + info.patch_count);
      const cell = shapesCells[name + " " + version];
      const patching = "patch " + info.patch_len + "/" + info.stride + " (" + info.patch_count + " patches)";
      assert.equal(cell.includes(patching), patched, name + "'s shapes: " + cell);
      assert.equal(/\bpatch\b/.test(cell), patched, name + "'s shapes: " + cell);
    }
    const refusals = await page.$$eval("#models-refusals li", (items) => items.map((i) => i.textContent));
    assert.ok(refusals.some((r) => r.includes(XSS)), "the refused entry is listed: " + JSON.stringify(refusals));
    assert.equal(await page.$$eval("img", (images) => images.length), 0, "markup from a name became an element");
    await screenshot(page, "models");

    const csvText = fs.readFileSync(csvPath, "utf8");
    const windowOf = (rows, end) => csvWindow(csvText, rows, end);

    step("a CSV upload draws the API's forecast and bands");
    const patchInfo = await apiCall(base, "/v1/models/patchtst-etth1/versions/2");
    const win = windowOf(patchInfo.seq_len);
    const upload = path.join(work, "etth1_window.csv");
    const csvLines = csvText.trim().split(/\r?\n/);
    fs.writeFileSync(upload, csvLines.slice(0, 1).concat(csvLines.slice(-patchInfo.seq_len)).join("\n") + "\n");
    await uploadAndForecast(page, upload, "patchtst-etth1", [0.8, 0.95]);
    const expected = await apiCall(base, "/v1/models/patchtst-etth1/versions/2/forecast", {
      series: win.series,
      timestamps: win.times,
      intervals: [0.8, 0.95],
      attention: { average_heads: false },
    });
    assert.equal(await page.$eval("#forecast-version", (s) => s.value), "2", "the default version is the newest");
    for (const variable of ["OT", "HUFL"]) {
      for (const k of [0, 17, patchInfo.pred_len - 1]) {
        const lines = await hoverChart(page, "forecast-charts", variable, patchInfo.seq_len + k);
        assert.equal(lines[0], expected.timestamps[k], "the time axis is the server's forecast timestamps");
        assert.equal(lines[1], variable + " forecast " + expected.forecast[variable][k]);
        const band = expected.intervals["0.8"];
        assert.equal(lines[2], "0.8: " + band.lower[variable][k] + " .. " + band.upper[variable][k]);
      }
      const plotted = await plottedForecast(page, variable);
      assert.equal(plotted.values.length, expected.forecast[variable].length);
      plotted.values.forEach((value, k) =>
        assert.ok(
          Math.abs(value - expected.forecast[variable][k]) <= plotted.valuePerUnit * 0.01 + 1e-9,
          variable + " step " + k + " plotted at " + value,
        ),
      );
    }
    await screenshot(page, "forecast");

    step("the attention view shows the API's map under the pointer and links patches to the input");
    await showView(page, "attention");
    await page.select("#attention-layer", "1");
    await page.select("#attention-head", "2");
    await page.select("#attention-variable", "OT");
    const map = expected.attention.find((m) => m.layer === 1 && m.variable === "OT");
    const [q, k] = [5, 9];
    const cellCentre = async (q, k) =>
      page.evaluate(
        (q, k) => {
          const canvas = document.getElementById("attention-map");
          canvas.scrollIntoView({ block: "center" });
          const box = canvas.getBoundingClientRect();
          const cell = Number(canvas.dataset.cell);
          return {
            x: box.left + ((k + 0.5) * cell * box.width) / canvas.width,
            y: box.top + ((q + 0.5) * cell * box.height) / canvas.height,
          };
        },
        q,
        k,
      );
    let centre = await cellCentre(q, k);
    await page.mouse.move(centre.x, centre.y);
    const readout = await page.$eval("#attention-readout", (r) => ({ ...r.dataset, text: r.textContent }));
    assert.equal(Number(readout.query), q);
    assert.equal(Number(readout.key), k);
    assert.equal(readout.value, String(map.weights[2][q][k]), "the hovered value is the API's map at that cell");
    await page.mouse.click(centre.x, centre.y);
    const spans = await page.$$eval("#attention-series rect.highlight", (rects) =>
      rects.map((r) => ({
        kind: r.getAttribute("class"),
        from: Number(r.dataset.from),
        to: Number(r.dataset.to),
        x: Number(r.getAttribute("x")),
        width: Number(r.getAttribute("width")),
      })),
    );
    const span = (i) => ({ from: i * patchInfo.stride, to: i * patchInfo.stride + patchInfo.patch_len - 1 });
    const query = spans.find((s) => s.kind.includes("query"));
    const key = spans.find((s) => s.kind.includes("key"));
    assert.deepEqual([query.from, query.to], [span(q).from, span(q).to], "the query patch's input steps");
    assert.deepEqual([key.from, key.to], [span(k).from, span(k).to], "the key patch's input steps");
    const scale = await page.$eval("#attention-series svg.chart", (svg) => ({
      left: Number(svg.dataset.left),
      right: Number(svg.dataset.right),
      steps: Number(svg.dataset.steps),
    }));
    const xOf = (s) => scale.left + ((scale.right - scale.left) * s) / (scale.steps - 1);
    assert.ok(
      Math.abs(query.x - xOf(span(q).from - 0.5)) < 1e-6 &&
        Math.abs(query.x + query.width - xOf(span(q).to + 0.5)) < 1e-6,
      "the query rectangle covers its steps",
    );
    await screenshot(page, "attention");

    step("the downloads: the map as CSV (the API's values), every map as JSON, the views as PNG");
    const downloads = path.join(work, "downloads");
    fs.rmSync(downloads, { recursive: true, force: true });
    fs.mkdirSync(downloads, { recursive: true });
    const cdp = await page.createCDPSession();
    await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
    const downloaded = async (button, suffix) => {
      await page.click(button);
      const deadline = Date.now() + 20000;
      for (;;) {
        const file = fs.readdirSync(downloads).find((name) => name.endsWith(suffix));
        if (file) return fs.readFileSync(path.join(downloads, file));
        assert.ok(Date.now() < deadline, "no " + suffix + " downloaded by " + button);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const csvRows = (await downloaded("#attention-csv", ".csv")).toString("utf8").trim().split("\n");
    assert.equal(csvRows.length, map.weights[2].length + 1, "a header and one row per query patch");
    assert.equal(csvRows[q + 1].split(",").slice(-map.weights[2][q].length)[k], String(map.weights[2][q][k]));
    const json = JSON.parse((await downloaded("#attention-json", ".json")).toString("utf8"));
    assert.deepEqual(json.attention, expected.attention, "every map, as the API gave it");
    const PNG = "89504e470d0a1a0a";
    assert.equal((await downloaded("#attention-png", "-2.png")).subarray(0, 8).toString("hex"), PNG);
    assert.equal((await downloaded("#attention-series-png", "-series.png")).subarray(0, 8).toString("hex"), PNG);

    step("an iTransformer's tokens are named, and a chosen token shows its variable");
    const itrInfo = await apiCall(base, "/v1/models/itransformer-etth1");
    await uploadAndForecast(page, upload, "itransformer-etth1", []);
    await showView(page, "attention");
    const itrExpected = await apiCall(base, "/v1/models/itransformer-etth1/forecast", {
      series: win.series,
      timestamps: win.times,
      attention: { average_heads: false },
    });
    const tokens = await page.$$eval("#attention-tokens li", (items) => items.map((i) => i.textContent));
    assert.deepEqual(tokens, itrExpected.attention[0].token_names);
    const ot = tokens.indexOf("OT");
    centre = await cellCentre(ot, 0);
    await page.mouse.move(centre.x, centre.y);
    const itrReadout = await page.$eval("#attention-readout", (r) => r.dataset.value);
    const itrMap = itrExpected.attention.find((m) => m.layer === 0);
    const mean = itrMap.weights.reduce((sum, head) => sum + head[ot][0], 0) / itrMap.weights.length;
    assert.ok(Math.abs(Number(itrReadout) - mean) < 1e-7, "the mean of heads under the pointer");
    await page.mouse.click(centre.x, centre.y);
    assert.equal(await page.$eval("#attention-tokens li.token-query", (li) => li.textContent), "OT");
    assert.equal(await page.$eval("#attention-series svg.chart", (svg) => svg.dataset.variable), "OT");
    assert.ok(itrInfo.family === "iTransformer");

    step("a TimeXer's covariates are ranked by what its target listened to, linked to their series");
    await uploadAndForecast(page, upload, "timexer-etth1", []);
    await showView(page, "attention");
    const txExpected = await apiCall(base, "/v1/models/timexer-etth1/forecast", {
      series: win.series,
      timestamps: win.times,
      attention: { average_heads: false },
    });
    await page.select("#attention-layer", "1");
    await page.waitForFunction(() => !document.getElementById("attention-covariates").hidden);
    const ranked = await page.$$eval("#attention-covariate-list li", (items) =>
      items.map((li) => [li.dataset.covariate, Number(li.dataset.weight)]),
    );
    const txMap = txExpected.attention.find((m) => m.stack === "covariates" && m.layer === 1);
    assert.equal(txMap.variable, "OT", "the target's map");
    const expectedRanking = txMap.token_names
      .map((name, k) => [name, txMap.weights.reduce((sum, head) => sum + head[0][k], 0) / txMap.weights.length])
      .sort((a, b) => b[1] - a[1]);
    assert.deepEqual(
      ranked.map((r) => r[0]),
      expectedRanking.map((r) => r[0]),
      "the covariates, most attended first",
    );
    ranked.forEach(([name, weight], i) =>
      assert.ok(Math.abs(weight - expectedRanking[i][1]) < 1e-7, name + ": the mean of heads"),
    );
    const firstColumn = ranked.find(([name]) => win.series[name] !== undefined)[0];
    await page.click('#attention-covariate-list li[data-covariate="' + firstColumn + '"]');
    assert.equal(await page.$eval("#attention-series svg.chart", (svg) => svg.dataset.variable), firstColumn);
    await screenshot(page, "attention-covariates");

    step("the accuracy view shows what the server counted from reported actuals");
    const lines = csvText.trim().split(/\r?\n/);
    const end = lines.length - patchInfo.pred_len;
    const past = windowOf(patchInfo.seq_len, end);
    await apiCall(base, "/v1/models/patchtst-etth1/forecast", {
      series: past.series,
      timestamps: past.times,
      intervals: [0.8],
      series_key: "console-test",
    });
    const future = windowOf(patchInfo.pred_len);
    await apiCall(base, "/v1/actuals", {
      series_key: "console-test",
      actuals: future.series,
      timestamps: future.times,
    });
    const counted = await apiCall(base, "/v1/accuracy");
    const version = counted.versions.find((v) => v.model === "patchtst-etth1" && v.version === "2");
    assert.ok(version.horizons[0].points > 0, JSON.stringify(counted));
    await showView(page, "accuracy");
    const v2 = '#accuracy-list [data-model="patchtst-etth1"][data-version="2"]';
    await page.waitForFunction((v2) => document.querySelector(v2 + " td") !== null, {}, v2);
    const firstRow = await page.$eval(v2 + " tbody tr", (row) => [...row.cells].map((c) => c.textContent));
    const h0 = version.horizons[0];
    assert.deepEqual(firstRow, [h0.steps, String(h0.points), h0.mae.toPrecision(4), h0.mse.toPrecision(4)]);
    await screenshot(page, "accuracy");

    step("a column named as markup is drawn as text");
    const xssFile = path.join(work, "markup_column.csv");
    const xssLines = fs.readFileSync(upload, "utf8").split("\n");
    xssLines[0] = xssLines[0].replace(",OT", "," + XSS);
    fs.writeFileSync(xssFile, xssLines.join("\n"));
    await uploadAndForecast(page, xssFile, "patchtst-etth1", []);
    const titles = await page.$$eval("#forecast-charts svg.chart", (svgs) =>
      svgs.map((s) => s.querySelector(".chart-title").textContent),
    );
    assert.ok(titles.includes(XSS), "the column's name is the chart's title: " + JSON.stringify(titles));
    assert.equal(await page.$$eval("img", (images) => images.length), 0);

    step("a phone's width: nothing overflows sideways");
    for (const [width, height, suffix] of [
      [1280, 800, ""],
      [390, 844, "-phone"],
    ]) {
      await page.setViewport({ width, height });
      for (const view of ["models", "forecast", "attention", "accuracy"]) {
        await showView(page, view);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, view + " at " + width + " px overflows by " + overflow + " px");
        if (suffix) await screenshot(page, view + suffix);
      }
    }
    assert.deepEqual(problems, []);
    console.log("PASS: the console in chromium matched the API");
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
}

main().catch((error) => {
  console.error("FAIL: " + (error.stack || error.message));
  process.exit(1);
});
