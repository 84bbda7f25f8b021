// Headless-browser test of the page served at GET / by `bitsift serve`.
//
// Started by run.sh, which provides: BITSIFT_URL (a running server over the demo index, with
// metadata for some documents and --max-query-bases 5000), CHROMIUM, REPO_ROOT and SCREENSHOT.
// The checks run in order on one page, as a person would use it.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "playwright-core";

const URL_ = process.env.BITSIFT_URL;
const ROOT = process.env.REPO_ROOT;
const SCREENSHOT = process.env.SCREENSHOT;
assert.ok(URL_ && ROOT && SCREENSHOT, "run this test through tests/web/run.sh");

const AMR = fs.readFileSync(path.join(ROOT, "data/demo/queries/amr_genes.fa"), "utf8");
const RECORDS = AMR.split(/^(?=>)/m).filter((r) => r.startsWith(">"));
const MCR1 = RECORDS[0];                 // >mcr-1.1_1_KP347127
const KPC2 = RECORDS[1];                 // >blaKPC-2_1_AY034847
const MCR1_NAME = "mcr-1.1_1_KP347127";
const KPC2_NAME = "blaKPC-2_1_AY034847";
const MCR1_HOST = "Kpn_pMCR_1511_KX377410";

let context, page, profile;
const consoleErrors = [];
// Requests the tests provoke on purpose: the browser logs each refused one as a console error.
const expectedFailures = [];

/** Fills the query textarea and runs a search; waits until the page is idle again. */
async function searchFor(text, { threshold = "0.8", key = false } = {}) {
  await page.fill("#query", text);
  await page.fill("#threshold", threshold);
  // The page validates, then marks itself busy, synchronously on submit: once the button is
  // enabled again the answer (or the error) is on the page.
  if (key) await page.press("#query", "Control+Enter");
  else await page.click("#search-button");
  await page.waitForFunction(() => !document.querySelector("#search-button").disabled);
}

/** The body cells of the hit table of query section `n` (0-based), as rows of trimmed text. */
async function tableRows(n) {
  return page.$$eval(`#results section.query:nth-of-type(${n + 1}) tbody tr`, (rows) =>
    rows.map((row) => [...row.cells].map((cell) => cell.textContent.trim())));
}

async function headers(n) {
  return page.$$eval(`#results section.query:nth-of-type(${n + 1}) thead th`, (ths) =>
    ths.map((th) => th.textContent.replace(/[↕↑↓]/g, "").trim()));
}

async function downloadText(buttonSelector) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(buttonSelector)]);
  const file = await download.path();
  return { name: download.suggestedFilename(), text: fs.readFileSync(file, "utf8") };
}

describe("bitsift web page", () => {
  before(async () => {
    profile = fs.mkdtempSync(path.join(os.tmpdir(), "bitsift-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true
    });
    page = context.pages()[0] || await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`));
    await page.goto(URL_);
  });

  after(async () => {
    if (context) await context.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  test("the page loads and summarises the loaded index", async () => {
    assert.match(await page.title(), /bitsift/);
    await page.waitForFunction(() => document.querySelectorAll("input[name=index]").length > 0);
    const summary = await page.textContent("#summary");
    assert.match(summary, /1 index · 12 genomes · k = 31/);
    const boxes = await page.$$eval("input[name=index]", (b) => b.map((x) => [x.value, x.checked]));
    assert.deepEqual(boxes, [["demo", true]]);
    assert.equal(await page.textContent("#index-summary"), "demo");
    assert.equal(await page.inputValue("#threshold"), "0.8");
    assert.equal(await page.inputValue("#limit"), "100");
  });

  test("mcr-1 finds its plasmid with fraction 1.0000 and metadata", async () => {
    await searchFor(MCR1);
    assert.equal(await page.textContent("#results section.query h3"), MCR1_NAME);
    const facts = await page.textContent("#results section.query .facts");
    assert.match(facts, /1,626 bases · 1,596 k-mers · 1 hit/);
    assert.deepEqual(await headers(0), ["Document", "Index", "k-mers found", "Fraction", "species", "source"]);
    const rows = await tableRows(0);
    const row = rows.find((r) => r[0] === MCR1_HOST);
    assert.ok(row, `no row for ${MCR1_HOST}: ${JSON.stringify(rows)}`);
    assert.deepEqual(row, [MCR1_HOST, "demo", "1,596 / 1,596", "1.0000", "Klebsiella pneumoniae", "plasmid pMCR_1511"]);
    const bar = await page.$eval("#results tbody tr .bar span", (s) => s.style.width);
    assert.equal(bar, "100%");
  });

  test("where hits match: covered stretches and the longest gap, when asked", async () => {
    await page.check("#coverage");
    await searchFor(MCR1);
    assert.deepEqual(await headers(0),
      ["Document", "Index", "k-mers found", "Fraction", "Covered", "Longest gap", "species", "source"]);
    const row = (await tableRows(0)).find((r) => r[0] === MCR1_HOST);
    assert.deepEqual(row.slice(4, 6), ["1-1626", "0"]);
    await page.uncheck("#coverage");
    await searchFor(MCR1);
    assert.deepEqual(await headers(0), ["Document", "Index", "k-mers found", "Fraction", "species", "source"]);
  });

  test("the search statistics are shown in plain words", async () => {
    const stats = await page.textContent("#results .stats");
    for (const words of ["Time", "Waiting in queue", "I/O engine", "Read", "Reads skipped", "Cache", "Batch"]) {
      assert.ok(stats.includes(words), `stats lack "${words}": ${stats}`);
    }
    assert.match(stats, /Read[\d.,]+ (bytes|KiB|MiB) in [\d,]+ requests?/);
  });

  test("TSV and JSON downloads hold the results", async () => {
    const tsv = await downloadText("#download-tsv");
    assert.equal(tsv.name, "bitsift-hits.tsv");
    const lines = tsv.text.trimEnd().split("\n").map((l) => l.split("\t"));
    assert.deepEqual(lines[0], ["query", "index", "document", "kmers_found", "kmers_total", "fraction", "species", "source"]);
    assert.deepEqual(lines.find((l) => l[2] === MCR1_HOST),
      [MCR1_NAME, "demo", MCR1_HOST, "1596", "1596", "1.0000", "Klebsiella pneumoniae", "plasmid pMCR_1511"]);
    const json = await downloadText("#download-json");
    assert.equal(json.name, "bitsift-hits.json");
    const response = JSON.parse(json.text);
    assert.equal(response.results[0].query, MCR1_NAME);
    const hit = response.results[0].hits.find((h) => h.document === MCR1_HOST);
    assert.equal(hit.fraction, 1);
    assert.equal(hit.metadata.species, "Klebsiella pneumoniae");
    assert.equal(typeof response.stats.time_ms, "number");
  });

  test("two FASTA records give two result sections (Ctrl+Enter)", async () => {
    await searchFor(MCR1 + KPC2, { key: true });
    const names = await page.$$eval("#results section.query h3", (h) => h.map((x) => x.textContent));
    assert.deepEqual(names, [MCR1_NAME, KPC2_NAME]);
    const rows = await tableRows(1);
    assert.ok(rows.length >= 3, `blaKPC-2 should hit at least 3 documents: ${JSON.stringify(rows)}`);
    assert.equal(rows[0][0], "Kpn_HS11286_CP003200_pKPHS1-6");
    assert.equal(rows[0][3], "1.0000");
    const row = rows.find((r) => r[0] === "Kpn_HS11286_CP003200_pKPHS1-6");
    assert.equal(row[4], "Klebsiella pneumoniae");
  });

  test("clicking column headers sorts the hit table", async () => {
    const before = (await tableRows(1)).map((r) => r[0]);
    const documentHeader = "#results section.query:nth-of-type(2) th[data-key=document] button";
    await page.click(documentHeader);
    const ascending = (await tableRows(1)).map((r) => r[0]);
    assert.deepEqual(ascending, [...before].sort((a, b) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" })));
    assert.notDeepEqual(ascending, before, "sorting by document should change the order");
    assert.equal(await page.getAttribute("#results section.query:nth-of-type(2) th[data-key=document]", "aria-sort"), "ascending");
    await page.click(documentHeader);
    assert.deepEqual((await tableRows(1)).map((r) => r[0]), [...ascending].reverse());
    await page.click("#results section.query:nth-of-type(2) th[data-key=fraction] button");
    const fractions = (await tableRows(1)).map((r) => Number(r[3]));
    assert.deepEqual(fractions, [...fractions].sort((a, b) => b - a), "fraction sorts descending first");
    // Back to document order ascending for the screenshot.
    await page.click(documentHeader);
  });

  test("a screenshot of the results is saved", async () => {
    await page.evaluate(() => { window.scrollTo(0, 0); document.querySelector("#query").scrollTop = 0; });
    await page.evaluate(() => document.activeElement && document.activeElement.blur());
    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    const size = fs.statSync(SCREENSHOT).size;
    assert.ok(size > 10000 && size < 1000000, `screenshot size ${size} bytes`);
  });

  test("a query shorter than k gets an inline error while the others are searched", async () => {
    await searchFor(">tiny\nACGTACGTAC\n" + MCR1);
    const sections = await page.$$eval("#results section.query", (s) => s.map((x) => x.textContent));
    assert.equal(sections.length, 2);
    assert.match(sections[0], /Not searched: query is 10 bases, shorter than k = 31/);
    assert.match(sections[1], new RegExp(MCR1_HOST));
  });

  test("a threshold no document reaches says so", async () => {
    // 40 bases of a random-looking sequence in none of the genomes.
    await searchFor(">nowhere\nGATTACAGATTACACCGGTTAACCGGTTAAGGCCTTAAGGCC", { threshold: "1" });
    assert.match(await page.textContent("#results section.query"), /No document reaches the threshold/);
  });

  test("bad input shows the server's error message", async () => {
    expectedFailures.push(400);
    await searchFor("hello 123");
    const alert = await page.textContent("#results [role=alert]");
    assert.match(alert, /HTTP 400/);
    assert.match(alert, /not a nucleotide sequence: 'e', 'l', 'o', '1', '2', '3' from position 2/);
    assert.equal(await page.isEnabled("#search-button"), true);
  });

  test("a threshold of 2 is refused with a readable error, by the page and by the API", async () => {
    await searchFor(MCR1, { threshold: "2" });
    const alert = await page.textContent("#results [role=alert]");
    assert.match(alert, /Threshold 2 is out of range/);
    assert.equal(await page.getAttribute("#threshold", "aria-invalid"), "true");
    const api = await page.evaluate(async (body) => {
      const r = await fetch("/api/search", { method: "POST", headers: { "Content-Type": "application/json" }, body });
      return { status: r.status, json: await r.json() };
    }, JSON.stringify({ sequence: "ACGTACGTACGTACGTACGTACGTACGTACGTACGT", threshold: 2 }));
    expectedFailures.push(400);
    assert.equal(api.status, 400);
    assert.match(api.json.error, /threshold 2 is out of range/);
  });

  test("a query over the server's limit shows the 413 message", async () => {
    expectedFailures.push(413);
    await searchFor(">long\n" + "ACGT".repeat(1500));
    const alert = await page.textContent("#results [role=alert]");
    assert.match(alert, /too large.*HTTP 413/);
    assert.match(alert, /6000 bases; this server accepts at most 5000/);
  });

  test("an uploaded FASTA file (gzip too) is read, named and searched", async () => {
    await page.fill("#threshold", "0.8");
    await page.setInputFiles("#file", { name: "genes.fa.gz", mimeType: "application/gzip", buffer: zlib.gzipSync(MCR1 + KPC2) });
    // "Reading genes.fa.gz…" first, then the name and size once the file is in the textarea.
    await page.waitForFunction(() => /genes\.fa\.gz \(/.test(document.querySelector("#file-info").textContent));
    assert.match(await page.textContent("#file-info"), /genes\.fa\.gz \(\d+(\.\d)? (bytes|KiB)\)/);
    assert.equal(await page.inputValue("#query"), MCR1 + KPC2);
    assert.match(await page.textContent("#query-info"), /2 sequences, 2,508 bases/);
    await page.click("#search-button");
    await page.waitForSelector("#results section.query:nth-of-type(2)");
    assert.deepEqual(await page.$$eval("#results section.query h3", (h) => h.map((x) => x.textContent)), [MCR1_NAME, KPC2_NAME]);
    await page.click("#file-clear");
    assert.equal(await page.textContent("#file-info"), "");
  });

  test("503 (with Retry-After) and a proxy's non-JSON error are explained", async () => {
    await page.route("**/api/search", (route) => route.fulfill({
      status: 503, headers: { "Retry-After": "2" }, contentType: "application/json",
      body: JSON.stringify({ error: "the server is at capacity; retry in a moment", status: 503 })
    }));
    expectedFailures.push(503);
    await searchFor(MCR1);
    let alert = await page.textContent("#results [role=alert]");
    assert.match(alert, /The server is busy \(HTTP 503 Service Unavailable\)/);
    assert.match(alert, /The server is at capacity; retry in a moment\. Please retry in 2 seconds\./);
    await page.unroute("**/api/search");
    await page.route("**/api/search", (route) => route.fulfill({ status: 502, contentType: "text/html", body: "<h1>Bad gateway</h1>" }));
    expectedFailures.push(502);
    await searchFor(MCR1);
    alert = await page.textContent("#results [role=alert]");
    assert.match(alert, /HTTP 502 Bad Gateway/);
    assert.match(alert, /without an error message: <h1>Bad gateway<\/h1>/, "shown as text, not parsed as HTML");
    assert.equal(await page.$("#results [role=alert] h1"), null);
    await page.unroute("**/api/search");
  });

  test("a file larger than the server accepts is refused before sending", async () => {
    // --max-query-bases 5000: the request limit is max(1 MiB, 1000 x 5256 bytes) = 5256000 bytes.
    let searched = false;
    const watch = (request) => { if (request.url().endsWith("/api/search")) searched = true; };
    page.on("request", watch);
    await page.setInputFiles("#file", { name: "huge.fa", mimeType: "text/plain", buffer: Buffer.alloc(6 << 20, 65) });
    await page.waitForFunction(() => /huge\.fa/.test(document.querySelector("#results").textContent));
    page.off("request", watch);
    const alert = await page.textContent("#results [role=alert]");
    assert.match(alert, /huge\.fa is 6\.0 MiB; this server accepts at most 5\.0 MiB/);
    assert.equal(searched, false);
    assert.equal(await page.textContent("#file-info"), "");
  });

  test("searching no index is caught by the page", async () => {
    await page.fill("#query", MCR1);
    await page.click("#index-summary");
    await page.uncheck("input[name=index][value=demo]");
    assert.equal(await page.textContent("#index-summary"), "none selected");
    await page.click("#search-button");
    assert.match(await page.textContent("#results [role=alert]"), /Select at least one index/);
    assert.equal(await page.getAttribute("details#index-picker", "open"), null, "a click elsewhere closes the picker");
    await page.click("#index-summary");
    await page.check("input[name=index][value=demo]");
    await page.keyboard.press("Escape");
    assert.equal(await page.textContent("#index-summary"), "demo");
  });

  test("an empty query is caught by the page", async () => {
    await page.fill("#query", "");
    await page.click("#search-button");
    assert.match(await page.textContent("#results [role=alert]"), /Paste a sequence or FASTA/);
  });

  test("network failures are reported", async () => {
    await page.route("**/api/search", (route) => route.abort("connectionrefused"));
    await searchFor(MCR1);
    await page.unroute("**/api/search");
    expectedFailures.push("net::ERR_CONNECTION_REFUSED");
    assert.match(await page.textContent("#results [role=alert]"), /Could not reach the bitsift server/);
  });

  test("no unexpected console errors", () => {
    // Chromium logs each refused request; those provoked above are expected, nothing else is.
    const unexpected = consoleErrors.filter((text) => {
      const at = expectedFailures.findIndex((what) =>
        typeof what === "number" ? text.includes(`status of ${what}`) : text.includes(what));
      if (at < 0) return true;
      expectedFailures.splice(at, 1);
      return false;
    });
    assert.deepEqual(unexpected, []);
  });
});
