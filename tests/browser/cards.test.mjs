// The dashboard's cards could waste their titles on a prefix every benchmark shares, write a value
// otherwise than the command line does ("120.7 µs" for its "121 µs"), label an axis "1,000 ns",
// call a benchmark with one run "typical change 0.0%", leave the later of commits that share a
// second outside a chart's value range, or, opened from disk, say only "Failed to fetch": this
// test records a small Go-like history with the real benchwatch and checks the page in headless
// Chromium, served and as a static site opened as a file.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const binary = process.env.BENCHWATCH_BINARY;
const nodeModules = process.env.BENCHWATCH_NODE_MODULES;
const chromiumPath = '/usr/bin/chromium';

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
  throw new Error(`the dashboard cards browser test cannot run: ${skip}`);
}
if (skip) console.log(`# skipping the dashboard cards browser test: ${skip}`);

// Six commits of BenchmarkGet (about 120.7 µs) and BenchmarkPut (just under 1000 ns, so that the
// axis reaches 1000 ns), and BenchmarkLater, measured only at the last commit.
const GET = [120700, 120650, 120720, 120690, 120710, 120700];
const PUT = [960, 975, 990, 999, 985, 970];
const LATER = 5000;
const FIRST_DATE = '2026-03-01T10:00:00Z';
const STACK_DATE = '2026-03-02T10:00:00Z';

function googleBenchmarkFile(rows) {
  return JSON.stringify({
    context: { library_build_type: 'release' },
    benchmarks: rows.map(([name, time]) => ({
      name, run_type: 'iteration', iterations: 10, real_time: time, cpu_time: time, time_unit: 'ns',
    })),
  });
}

function benchwatch(cwd, ...args) {
  try {
    return execFileSync(binary, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(`benchwatch ${args.join(' ')} failed: ${error.stderr || error.message}`);
  }
}

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

// git with its author and committer dates set to `date`.
function gitAt(cwd, date, ...args) {
  const env = { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  return execFileSync('git', args, { cwd, encoding: 'utf8', env }).trim();
}

// Starts `benchwatch serve` on a free port and resolves with its address from the first line.
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

// Each card's title, full name (its tooltip) and meta line, by full name.
async function cards(page) {
  return page.$$eval('[data-benchmark-id]', (elements) => Object.fromEntries(elements.map((card) => {
    const name = card.querySelector('.name');
    return [card.dataset.benchmarkName,
      { title: name.textContent, tooltip: name.title, meta: card.querySelector('.card-meta').textContent }];
  })));
}

// The labels uPlot drew on the value axis of the named benchmark's small chart.
async function axisLabelsOf(page, name) {
  await page.locator(`[data-benchmark-name="${name}"] canvas`).waitFor();
  // The plot labels its axis once it has laid out its data, which a loaded machine can delay
  // past the canvas' appearance: the labels are taken once two reads 100 ms apart agree.
  let previous = null;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const labels = await page.evaluate((wanted) => {
      const card = currentView.cards.find((c) => c.benchmark.name === wanted);
      const values = card && card.plot && card.plot.axes[1]._values;
      return values ? Array.from(values) : null;
    }, name);
    if (labels && labels.length > 0 && JSON.stringify(labels) === JSON.stringify(previous)) {
      return labels;
    }
    previous = labels;
    await page.waitForTimeout(100);
  }
  return previous ?? [];
}

describe('the dashboard cards', { skip }, () => {
  let folder;
  let store;
  let served;
  let browser;
  let commandLineLatest;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'benchwatch-cards-'));
    store = join(folder, 'history.db');
    const repository = join(folder, 'repo');
    mkdirSync(repository);
    git(repository, 'init', '--quiet', '--initial-branch=main');
    const results = join(folder, 'results.json');
    for (let i = 0; i < GET.length; i++) {
      writeFileSync(join(repository, 'file.txt'), `${i}\n`);
      git(repository, 'add', 'file.txt');
      // The first commit a day before the others, which share one committer date as a rebased
      // stack does: each point must still get its own place on the time axis, or the chart
      // leaves all but the first of the stack out of its value range.
      gitAt(repository, i === 0 ? FIRST_DATE : STACK_DATE, '-c', 'user.name=A. Person',
        '-c', 'user.email=a@example.com', 'commit', '--quiet', '-m', `change ${i}`);
      const rows = [['BenchmarkGet', GET[i]], ['BenchmarkPut', PUT[i]]];
      if (i === GET.length - 1) rows.push(['BenchmarkLater', LATER]);
      writeFileSync(results, googleBenchmarkFile(rows));
      benchwatch(folder, 'record', '--store', store, '--project', 'go', '--machine', 'm1',
        '--repo', repository, '--commit', git(repository, 'rev-parse', 'HEAD'), '--branch', 'main',
        results);
    }
    commandLineLatest = benchwatch(folder, 'history', '--store', store, '--project', 'go',
      '--machine', 'm1', 'BenchmarkGet');
    served = await startServe(folder, store);
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
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('titles cards without the prefix every benchmark shares, the full name on hover', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.address}?pkg=go`);
    await page.locator('[data-benchmark-name="BenchmarkLater"]').waitFor();
    const shown = await cards(page);
    assert.deepEqual(Object.keys(shown).sort(), ['BenchmarkGet', 'BenchmarkLater', 'BenchmarkPut']);
    for (const [name, card] of Object.entries(shown)) {
      assert.equal(card.title, name.slice('Benchmark'.length), name);
      assert.equal(card.tooltip, name);
    }
    assert.match(await page.locator('.group h2').textContent(), /all start with Benchmark/);
    // The search still matches the full name.
    await page.locator('#search').fill('benchmarkput');
    await page.waitForFunction(() => document.querySelectorAll('[data-benchmark-id]:not([hidden])').length === 1);
    await page.close();
  });

  it('writes values as the command line does, and axes switch units at 1000', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.address}?pkg=go`);
    await page.locator('[data-benchmark-name="BenchmarkGet"]').waitFor();
    const shown = await cards(page);
    // `benchwatch history` says "latest 121 µs"; so does the card.
    assert.match(commandLineLatest, /latest 121 µs/);
    assert.match(shown.BenchmarkGet.meta, /^latest 121 µs · /);
    assert.match(shown.BenchmarkPut.meta, /^latest 970 ns · /);
    for (const name of ['BenchmarkGet', 'BenchmarkPut']) {
      const labels = await axisLabelsOf(page, name);
      assert.ok(labels.length >= 2, `${name}: ${labels}`);
      const units = new Set(labels.map((label) => label.split(' ')[1]));
      assert.equal(units.size, 1, `${name}: one unit on the axis: ${labels}`);
      for (const label of labels) {
        assert.match(label, /^\d+(\.\d+)? (ns|µs)$/, `${name}: ${labels}`);
        const [number, unit] = label.split(' ');
        assert.ok(unit !== 'ns' || Number(number) < 1000, `${name}: ${labels}`);
      }
      // Ticks are told apart, however close.
      assert.equal(new Set(labels).size, labels.length, `${name}: ${labels}`);
    }
    // Put's values reach 999 ns, so its axis runs to 1000 ns or more: in µs.
    const putLabels = await axisLabelsOf(page, 'BenchmarkPut');
    assert.ok(putLabels.every((label) => label.endsWith(' µs')), `BenchmarkPut: ${putLabels}`);
    await page.close();
  });

  it('says a benchmark with one run has no history yet', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.address}?pkg=go`);
    await page.locator('[data-benchmark-name="BenchmarkLater"]').waitFor();
    const { meta } = (await cards(page)).BenchmarkLater;
    assert.match(meta, /one run, no history yet/);
    assert.doesNotMatch(meta, /typical change/);
    assert.match((await cards(page)).BenchmarkGet.meta, /typical change \d+\.\d%/);
    await page.close();
  });

  it('says how to open a static site that was opened as a file', async () => {
    const out = join(folder, 'site');
    benchwatch(folder, 'site', '--store', store, out);
    const page = await browser.newPage();
    await page.goto(pathToFileURL(join(out, 'index.html')).href);
    await page.waitForFunction(() => document.getElementById('status').textContent !== '');
    const status = await page.locator('#status').textContent();
    assert.match(status, /over HTTP/);
    assert.match(status, /python3 -m http\.server/);
    assert.match(status, /benchwatch serve/);
    assert.doesNotMatch(status, /Failed to fetch/);
    await page.close();
  });
});
