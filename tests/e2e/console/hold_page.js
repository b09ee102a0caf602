// Keeps the console open in headless chromium until SIGTERM, then prints how many requests
// the page made and over how many seconds: the "console open" side of
// tests/bench/console_cost.sh.
//   node hold_page.js URL
"use strict";

const puppeteer = require("puppeteer-core");

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const page = await browser.newPage();
  let requests = 0;
  page.on("request", () => (requests += 1));
  const start = Date.now();
  await page.goto(process.argv[2], { waitUntil: "load" });
  console.log("open");
  process.on("SIGTERM", async () => {
    const seconds = (Date.now() - start) / 1000;
    await browser.close();
    console.log("requests " + requests + " seconds " + seconds.toFixed(1));
    process.exit(0);
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
