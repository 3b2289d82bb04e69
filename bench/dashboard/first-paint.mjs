#!/usr/bin/env node
// How fast the dashboard page shows its first charts in headless Chromium, and what it downloads
// before it paints. Each of --runs runs starts a new Chromium with a fresh profile (empty cache),
// opens --url at 1280×800 and measures, on the page's own clock (performance.now(), 0 at
// navigation start):
//   - first paint: the first-contentful-paint entry;
//   - first charts: the first animation frame in which --charts chart cards
//     (`[data-benchmark-id] canvas`) have their canvas on screen (rAF runs just before the frame
//     is painted, so this is when that frame starts to be drawn);
//   - bytes before first paint: the sum of Resource Timing `transferSize` (headers and body as
//     sent on the wire, before any decompression) of the document and every resource whose
//     responseEnd is at or before first paint; same clock, so no mapping between clocks is needed;
//   - bytes up to the first charts: the same up to the first-charts time, checked against the sum
//     of the DevTools protocol's Network.loadingFinished encodedDataLength for the same requests.
//
//   node bench/dashboard/first-paint.mjs --url 'http://127.0.0.1:PORT/?pkg=NAME' [--runs 5]
//        [--charts 6] [--screenshot out.png] [--timeline]
//
// Prints every run and the median and maximum of each figure; --timeline also lists the first
// run's requests (start, end, bytes on the wire), to see where the time goes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
// playwright-core from web/'s npm packages: installed in web/ by hand, or in a build folder's
// web/npm by the build (build/*/web/npm).
const root = path.join(here, '..', '..');
const buildFolder = path.join(root, 'build');
const packageFiles = [path.join(root, 'web', 'package.json')].concat(
  fs.existsSync(buildFolder)
    ? fs.readdirSync(buildFolder).map((name) => path.join(buildFolder, name, 'web', 'npm', 'package.json'))
    : []);
const withPlaywright = packageFiles.find((file) =>
  fs.existsSync(path.join(path.dirname(file), 'node_modules', 'playwright-core')));
if (!withPlaywright) {
  console.error('first-paint.mjs: playwright-core is not installed in web/ or build/*/web/npm; build the project first');
  process.exit(2);
}
const require = createRequire(withPlaywright);
const { chromium } = require('playwright-core');

const { values: options } = parseArgs({
  options: {
    url: { type: 'string' },
    runs: { type: 'string', default: '5' },
    charts: { type: 'string', default: '6' },
    timeout: { type: 'string', default: '30' },
    screenshot: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
if (!options.url) {
  console.error("first-paint: --url is required, e.g. --url 'http://127.0.0.1:8080/?pkg=bench'");
  process.exit(2);
}
const runCount = Number.parseInt(options.runs, 10);
const chartsWanted = Number.parseInt(options.charts, 10);
const timeoutMs = Number.parseFloat(options.timeout) * 1000;

const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

// Runs in the page before its own scripts: records the time of the first frame in which `wanted`
// chart canvases are inside the viewport, and keeps every resource timing entry.
function watchForCharts(wanted) {
  performance.setResourceTimingBufferSize(100000);
  const visible = (element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight
      && box.right > 0 && box.left < innerWidth;
  };
  const check = () => {
    let count = 0;
    for (const canvas of document.querySelectorAll('[data-benchmark-id] canvas')) {
      if (visible(canvas)) count++;
      if (count >= wanted) {
        window.__firstChartsAt = performance.now();
        return;
      }
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

async function measureOnce(run) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'benchwatch-first-paint-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const wireBytes = new Map(); // request id → { url, encoded }
    const urls = new Map();
    cdp.on('Network.requestWillBeSent', (event) => urls.set(event.requestId, event.request.url));
    cdp.on('Network.loadingFinished', (event) => {
      wireBytes.set(event.requestId, { url: urls.get(event.requestId), encoded: event.encodedDataLength });
    });
    await page.addInitScript(watchForCharts, chartsWanted);
    await page.goto(options.url, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.__firstChartsAt !== undefined, null, { timeout: timeoutMs, polling: 50 });
    const timings = await page.evaluate(() => {
      const entry = (e) => ({ name: e.name, start: e.startTime, end: e.responseEnd, transfer: e.transferSize, body: e.decodedBodySize, type: e.initiatorType });
      return {
        firstPaint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
        firstCharts: window.__firstChartsAt,
        navigation: entry(performance.getEntriesByType('navigation')[0]),
        resources: performance.getEntriesByType('resource').map(entry),
        cards: document.querySelectorAll('[data-benchmark-id]').length,
      };
    });
    if (options.screenshot && run === 0) await page.screenshot({ path: options.screenshot });
    if (options.timeline && run === 0) printTimeline(timings);
    const all = [timings.navigation, ...timings.resources];
    const upTo = (ms) => all.filter((e) => e.end <= ms);
    const sum = (entries, field) => entries.reduce((total, e) => total + e[field], 0);
    const beforePaint = upTo(timings.firstPaint);
    const beforeCharts = upTo(timings.firstCharts);
    const chartUrls = new Set(beforeCharts.map((e) => e.name));
    const cdpBytes = [...wireBytes.values()].filter((w) => chartUrls.has(w.url)).reduce((t, w) => t + w.encoded, 0);
    return {
      firstPaint: timings.firstPaint,
      firstCharts: timings.firstCharts,
      bytesBeforePaint: sum(beforePaint, 'transfer'),
      requestsBeforePaint: beforePaint.length,
      bytesBeforeCharts: sum(beforeCharts, 'transfer'),
      bodyBytesBeforeCharts: sum(beforeCharts, 'body'),
      cdpBytesBeforeCharts: cdpBytes,
      requestsBeforeCharts: beforeCharts.length,
      cards: timings.cards,
      largest: [...beforeCharts].sort((a, b) => b.transfer - a.transfer).slice(0, 3)
        .map((e) => `${new URL(e.name).pathname.split('/').slice(-2).join('/')} ${kb(e.transfer)}`),
    };
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

function printTimeline(timings) {
  console.log(`timeline of run 1 (ms from navigation start): first paint ${timings.firstPaint.toFixed(0)}, first charts ${timings.firstCharts.toFixed(0)}`);
  const entries = [timings.navigation, ...timings.resources].filter((e) => e.start <= timings.firstCharts);
  for (const e of entries.sort((a, b) => a.start - b.start)) {
    const where = new URL(e.name);
    console.log(`  ${e.start.toFixed(0).padStart(6)} → ${e.end.toFixed(0).padStart(6)}  ${kb(e.transfer).padStart(10)}  ${where.pathname}${where.search}`);
  }
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const results = [];
for (let run = 0; run < runCount; run++) {
  const r = await measureOnce(run);
  results.push(r);
  console.log(`run ${run + 1}: first paint ${r.firstPaint.toFixed(0)} ms, first ${chartsWanted} charts ${r.firstCharts.toFixed(0)} ms;`
    + ` before first paint ${kb(r.bytesBeforePaint)} in ${r.requestsBeforePaint} requests;`
    + ` up to the charts ${kb(r.bytesBeforeCharts)} on the wire (DevTools: ${kb(r.cdpBytesBeforeCharts)}; ${kb(r.bodyBytesBeforeCharts)} decoded)`
    + ` in ${r.requestsBeforeCharts} requests; ${r.cards} cards; largest: ${r.largest.join(', ')}`);
}
const figure = (label, field, format) => {
  const values = results.map((r) => r[field]);
  console.log(`${label.padEnd(34)} median ${format(median(values)).padStart(10)}   max ${format(Math.max(...values)).padStart(10)}`);
};
const ms = (v) => `${v.toFixed(0)} ms`;
console.log(`first-paint: ${runCount} runs of ${options.url}, fresh profile each`);
figure('first contentful paint', 'firstPaint', ms);
figure(`first ${chartsWanted} charts visible`, 'firstCharts', ms);
figure('transferred before first paint', 'bytesBeforePaint', kb);
figure('transferred up to the first charts', 'bytesBeforeCharts', kb);
