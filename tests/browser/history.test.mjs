// A new user's first look at a C++ library's history (tests/browser/snappy-history.mjs, recorded
// with the real git and benchwatch) could show "Loading snappy…" until the charts scrolled into
// view in a later frame, draw ±5% noise over the whole height of a chart, stack commits of one
// committer date on one vertical line, and leave out the pull requests' runs. The chart rules are
// checked with exact numbers in Node; the page in headless Chromium, served and as a static site.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { COMMITS, FLAT, FLAT_NAME, PROJECT, PULLS, SHARED, recordSnappyHistory } from './snappy-history.mjs';

const binary = process.env.BENCHWATCH_BINARY;
const nodeModules = process.env.BENCHWATCH_NODE_MODULES;
const chromiumPath = '/usr/bin/chromium';

// The page's chart-rules.js, run as the page runs it (a classic script), its functions taken out.
const rules = (() => {
  const context = vm.createContext({});
  vm.runInContext(readFileSync(fileURLToPath(new URL('../../web/src/chart-rules.js', import.meta.url)), 'utf8'), context);
  const functions = vm.runInContext('({ median, axisHalfSpan, valueAxisRange, percentTicks, relativeLabel, chartRows, commitDateLabels })', context);
  // Their arrays come from the script's own realm: copied into this one to compare them.
  return Object.fromEntries(Object.entries(functions).map(([name, fn]) => [name, (...args) => structuredClone(fn(...args))]));
})();

describe('the chart rules', () => {
  it('gives a flat ±5% series an axis of its median ± 25%', () => {
    assert.deepEqual(rules.valueAxisRange(FLAT), [750, 1250]);
    assert.deepEqual(rules.valueAxisRange([950, 1050, 1000]), [750, 1250]);
    // A 20% step: median 11, so 8.25 to 13.75 still holds both levels.
    assert.deepEqual(rules.valueAxisRange([10, 10, 10, 12, 12, 12]), [8.25, 13.75]);
  });

  it('widens the axis to every point, with room, and starts it at 0 for large spans', () => {
    // One point at twice the median: room of 5% of 75..200 above it.
    assert.deepEqual(rules.valueAxisRange([100, 100, 100, 100, 200]), [75, 206.25]);
    // A tenfold step: the low end would be below a quarter of the high end, so it is 0.
    assert.deepEqual(rules.valueAxisRange([10, 10, 10, 100, 100]), [0, 104.625]);
    // Medians of 0 or below: the points' range with 5% room.
    assert.deepEqual(rules.valueAxisRange([-10, 0, 10]), [-11, 11]);
    assert.deepEqual(rules.valueAxisRange([]), [0, 1]);
  });

  it('gives a counted metric an axis of its median ± 1%, so that a 0.5% step shows', () => {
    assert.equal(rules.axisHalfSpan('instructions'), 0.01);
    assert.equal(rules.axisHalfSpan('estimated_cycles'), 0.01);
    assert.equal(rules.axisHalfSpan('time'), 0.25);
    // Six counts of 2,000 and six of 2,010: median 2,005, so 1,984.95 to 2,025.05 holds both.
    const counts = [...Array(6).fill(2000), ...Array(6).fill(2010)];
    const [low, high] = rules.valueAxisRange(counts, rules.axisHalfSpan('instructions'));
    assert.ok(Math.abs(low - 1984.95) < 1e-9 && Math.abs(high - 2025.05) < 1e-9, `${low}..${high}`);
    // At most five ticks: steps of 0.1% (21 ticks) and 0.2% (11) give too many, 0.5% gives five,
    // the axis' ends being ± 1% exactly.
    assert.deepEqual(rules.percentTicks(low, high, 2005, 5).map((tick) => rules.relativeLabel(tick, 2005)),
      ['-1%', '-0.5%', '0%', '+0.5%', '+1%']);
  });

  it('puts percentage ticks at round steps of the median', () => {
    assert.deepEqual(rules.percentTicks(750, 1250, 1000, 3), [800, 1000, 1200]);
    assert.deepEqual(rules.percentTicks(750, 1250, 1000, 5), [800, 900, 1000, 1100, 1200]);
    assert.deepEqual(rules.percentTicks(750, 1250, 1000, 1), [1000]);
    assert.deepEqual(['+20%', '0%', '-20%', '+2.5%'],
      [rules.relativeLabel(1200, 1000), rules.relativeLabel(1000, 1000), rules.relativeLabel(800, 1000),
        rules.relativeLabel(1025, 1000)]);
  });

  it('places points at their commits\' positions and pull requests just after their bases', () => {
    const rows = rules.chartRows({
      index: [0, 1, 2, 4],
      value: [1, 2, 3, 4],
      pulls: [{ base_index: 2, value: 5 }, { base_index: 2, value: 6 }, { base_index: 4, value: 7 },
        { base_index: null, value: 8 }],
    });
    assert.deepEqual(rows.map((row) => [row.x, row.kind, row.at]), [
      [0, 'commit', 0], [1, 'commit', 1], [2, 'commit', 2], [2 + 1 / 3, 'pull', 1], [2 + 2 / 3, 'pull', 0],
      [4, 'commit', 3], [4.5, 'pull', 2]]);
  });

  it('labels commit ticks with dates, once per date', () => {
    const day = 86400000;
    const start = Date.UTC(2025, 2, 6, 9);
    assert.deepEqual(rules.commitDateLabels([0, 1, 2, 3], [start, start + day, start + day, start + 4 * day]),
      ['Mar 6', 'Mar 7', '', 'Mar 10']);
    assert.deepEqual(rules.commitDateLabels([0, 1], [Date.UTC(2016, 2, 1), Date.UTC(2024, 0, 10)]),
      ['Mar 2016', 'Jan 2024']);
    assert.deepEqual(rules.commitDateLabels([0, 1], [start, start + 60000]), ['Mar 6 09:00', 'Mar 6 09:01']);
  });
});

function reasonToSkip() {
  if (!binary || !existsSync(binary)) return 'BENCHWATCH_BINARY does not name the built benchwatch';
  if (!nodeModules || !existsSync(join(nodeModules, 'playwright-core'))) {
    return 'BENCHWATCH_NODE_MODULES does not hold playwright-core (the build installs it)';
  }
  if (!existsSync(chromiumPath)) return `${chromiumPath} is missing: apt-get install chromium`;
  return false;
}
const skip = reasonToSkip();
if (skip && process.env.BENCHWATCH_REQUIRE_BROWSER === '1') {
  throw new Error(`the dashboard history browser test cannot run: ${skip}`);
}
if (skip) console.log(`# skipping the dashboard history browser test: ${skip}`);

// Starts `benchwatch serve` on a free port in the repository and resolves with its address.
function startServe(cwd, store) {
  const server = spawn(binary, ['serve', '--store', store, '--listen', '127.0.0.1:0'],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (chunk) => { stderr += chunk; });
  return new Promise((resolve, reject) => {
    let stdout = '';
    server.stdout.on('data', (chunk) => {
      stdout += chunk;
      const address = /^serving (http:\/\/\S+?\/)/.exec(stdout);
      if (address) resolve({ server, address: address[1] });
    });
    server.on('exit', (code) => reject(new Error(`benchwatch serve exited with ${code}: ${stderr}`)));
  });
}

const mediaTypes = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

// Serves a static site's folder, as a static host would.
function startStaticServer(root) {
  const server = http.createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname).slice(1));
    const file = join(root, path === '.' ? 'index.html' : path);
    if (!file.startsWith(root + sep) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': mediaTypes[extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, address: `http://127.0.0.1:${server.address().port}/` }));
  });
}

// The flat benchmark's small chart as drawn: its value axis, x positions and pull points.
function flatChart(page) {
  return page.evaluate((name) => {
    const card = currentView.cards.find((c) => c.benchmark.name === name);
    if (!card?.plot) return null;
    const { plot } = card;
    return {
      y: [plot.scales.y.min, plot.scales.y.max],
      x: Array.from(plot.data[0]),
      pixels: plot.rows.filter((row) => row.kind === 'commit').map((row) => Math.round(plot.valToPos(row.x, 'x'))),
      percent: Array.from(plot.axes[2]._values ?? []),
      pulls: plot.rows.filter((row) => row.kind === 'pull').map((row) => [row.x, plot.data[2][plot.rows.indexOf(row)]]),
    };
  }, FLAT_NAME);
}

describe('the history dashboard on a backfilled history with pull requests', { skip }, () => {
  let folder;
  let history;
  let served;
  let site;
  let browser;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'benchwatch-history-'));
    const store = join(folder, 'history.db');
    history = recordSnappyHistory(binary, folder, store);
    // Served from the repository, as a user runs it: the history in git's order, pull requests
    // at their merge bases.
    served = await startServe(history.repository, store);
    execFileSync(binary, ['site', '--store', store, join(folder, 'site')], { cwd: history.repository });
    site = await startStaticServer(join(folder, 'site'));
    const { chromium } = createRequire(join(nodeModules, 'playwright-core', 'package.json'))('playwright-core');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    served?.server.kill();
    site?.server.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  for (const [label, address] of [['served', () => served.address], ['static', () => site.address]]) {
    it(`draws every chart by the time the page has loaded (${label})`, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${address()}?pkg=${PROJECT}`, { waitUntil: 'load' });
      // No waiting beyond the load event: the points are there, with no request for data made.
      const drawn = await page.$$eval('[data-benchmark-id]', (cards) => cards.map((card) => card.dataset.points ?? null));
      assert.deepEqual(drawn, Array(8).fill(String(COMMITS)));
      assert.doesNotMatch(await page.locator('#status').textContent(), /Loading/);
      await page.close();
    });
  }

  it('shows data in a headless screenshot given 1 s of virtual time', () => {
    const dump = execFileSync(chromiumPath, ['--headless', '--no-sandbox', '--disable-gpu',
      '--virtual-time-budget=1000', '--dump-dom', `${served.address}?pkg=${PROJECT}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60000 });
    const points = [...dump.matchAll(/data-points="(\d+)"/g)].map((match) => match[1]);
    assert.deepEqual(points, Array(8).fill(String(COMMITS)));
  });

  it('scales a flat ±5% series to its median ± 25%, labelled in percent', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.address}?pkg=${PROJECT}`, { waitUntil: 'load' });
    const chart = await flatChart(page);
    assert.deepEqual(chart.y, [750, 1250]);
    assert.deepEqual(chart.percent, ['-20%', '0%', '+20%']);
    await page.close();
  });

  it('spreads commits of one committer date in git\'s order', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.address}?pkg=${PROJECT}`, { waitUntil: 'load' });
    const chart = await flatChart(page);
    const commitX = chart.x.filter(Number.isInteger);
    assert.deepEqual(commitX, [...Array(COMMITS).keys()]);
    // The commits sharing one date are at least 20 px apart, left to right in commit order.
    const shared = SHARED.map((i) => chart.pixels[i]);
    for (let k = 1; k < shared.length; k++) assert.ok(shared[k] - shared[k - 1] >= 20, String(shared));
    // Hovering each shows its own commit.
    const over = page.locator(`[data-benchmark-name="${FLAT_NAME}"] .u-over`);
    const box = await over.boundingBox();
    for (const i of SHARED) {
      await over.hover({ position: { x: chart.pixels[i], y: box.height / 2 } });
      await page.locator('#tooltip').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#tooltip').getAttribute('data-commit'), history.commits[i]);
    }
    await page.close();
  });

  it('keeps the hovered chart\'s tooltip while other charts are drawn again', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.address}?pkg=${PROJECT}`, { waitUntil: 'load' });
    const chart = await flatChart(page);
    const over = page.locator(`[data-benchmark-name="${FLAT_NAME}"] .u-over`);
    const box = await over.boundingBox();
    await over.hover({ position: { x: chart.pixels[SHARED[0]], y: box.height / 2 } });
    await page.locator('#tooltip').waitFor({ state: 'visible' });
    // Every other chart is drawn anew, as cards scrolled into view are while the pointer rests on
    // one, and resized; a new chart starts with no point under its cursor.
    const others = await page.evaluate(async (name) => {
      const cards = currentView.cards.filter((c) => c.plot && c.benchmark.name !== name);
      for (const card of cards) {
        const series = await loadSeries(currentView, card.benchmark, currentView.from, 200);
        card.plot.destroy();
        card.plot = drawChart(card.chartBox, currentView, card.benchmark, series, SMALL_CHART_HEIGHT, false);
        card.plot.setSize({ width: card.plot.width - 10, height: card.plot.height });
      }
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      return cards.length;
    }, FLAT_NAME);
    assert.equal(others, 7);
    assert.equal(await page.locator('#tooltip').isVisible(), true);
    assert.equal(await page.locator('#tooltip').getAttribute('data-commit'), history.commits[SHARED[0]]);
    // Leaving the chart hides it.
    await page.mouse.move(2, 2);
    await page.locator('#tooltip').waitFor({ state: 'hidden' });
    await page.close();
  });

  it('shows pull requests\' runs at their merge bases, their names and messages as text', async () => {
    const problems = [];
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => { problems.push(dialog.message()); dialog.dismiss(); });
    await page.goto(`${served.address}?pkg=${PROJECT}`, { waitUntil: 'load' });
    const chart = await flatChart(page);
    assert.deepEqual(chart.pulls, [[PULLS[0].base + 0.5, PULLS[0].flat], [PULLS[1].base + 0.5, PULLS[1].flat]]);
    const lines = await page.$$eval(`[data-benchmark-name="${FLAT_NAME}"] .pulls li`, (items) => items.map((item) => item.textContent));
    const base = (k) => history.commits[PULLS[k].base].slice(0, 7);
    assert.deepEqual(lines, [
      `#42 ${PULLS[1].branch}: 1.13 µs, +14.1% from its base ${base(1)}`,
      `#41 ${PULLS[0].branch}: 880 ns, -14.6% from its base ${base(0)}`,
    ]);
    // The pull request's message, markup in it, reaches the tooltip as text.
    const over = page.locator(`[data-benchmark-name="${FLAT_NAME}"] .u-over`);
    const box = await over.boundingBox();
    const x = await page.evaluate(({ name, at }) => {
      const card = currentView.cards.find((c) => c.benchmark.name === name);
      return card.plot.valToPos(at, 'x');
    }, { name: FLAT_NAME, at: PULLS[0].base + 0.5 });
    await over.hover({ position: { x, y: box.height / 2 } });
    await page.locator('#tooltip[data-pull="41"]').waitFor();
    const tip = await page.locator('#tooltip').textContent();
    assert.ok(tip.includes(PULLS[0].subject) && tip.includes(PULLS[0].branch), tip);
    assert.equal(await page.locator('#tooltip').getAttribute('data-commit'), history.heads[0]);
    // The large chart lists both runs.
    await page.goto(`${served.address}?pkg=${PROJECT}&bench=${await page.locator(`[data-benchmark-name="${FLAT_NAME}"]`).getAttribute('data-benchmark-id')}`);
    await page.locator('#detail-pulls tbody tr').first().waitFor();
    const rows = await page.$$eval('#detail-pulls tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((cell) => cell.textContent)));
    assert.deepEqual(rows.map((row) => row.slice(0, 3)), [
      [`#42 ${PULLS[1].branch}`, history.heads[1].slice(0, 7), PULLS[1].subject],
      [`#41 ${PULLS[0].branch}`, history.heads[0].slice(0, 7), PULLS[0].subject],
    ]);
    assert.equal(await page.locator('b, i, em, img').count(), 0);
    assert.equal(await page.locator('body script').count(), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('embeds the first screen\'s data in the page with markup escaped', async () => {
    const page = await (await fetch(`${served.address}?pkg=${PROJECT}`)).text();
    const embedded = /<script id="benchwatch-initial" type="application\/json">(.*?)<\/script>/s.exec(page);
    assert.ok(embedded, 'the page carries its data');
    assert.doesNotMatch(embedded[1], /[<>&]/);
    const data = JSON.parse(embedded[1]);
    assert.equal(data.project, PROJECT);
    assert.equal(Object.keys(data.series).length, 8);
    assert.ok(data.commits.subject.length === COMMITS);
    assert.equal(page.match(/<script/g).length, 4);
  });
});
