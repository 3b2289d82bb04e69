// The dashboard could miss or misfile benchmarks, lose a search, window or open chart on reload,
// run a benchmark's name as HTML, serve files outside the page, lose a step's or a suite event's
// marker, show a badge that disagrees with what `compare` and `history --changes` say, or behave
// differently as a static site: this test drives the real benchwatch binary and headless Chromium through each.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const binary = process.env.BENCHWATCH_BINARY;
const nodeModules = process.env.BENCHWATCH_NODE_MODULES;
const sharedData = process.env.BENCHWATCH_SHARED_DATA
  || fileURLToPath(new URL('../../../shared/data', import.meta.url));
const screenshots = process.env.BENCHWATCH_SCREENSHOTS ?? join(tmpdir(), 'benchwatch-screenshots');
const historyFile = sharedData ? join(sharedData, 'metal-gh-pages-data.js') : '';
const chromiumPath = '/usr/bin/chromium';

function reasonToSkip() {
  if (!historyFile || !existsSync(historyFile)) {
    return `no metal-gh-pages-data.js in ${sharedData} (set BENCHWATCH_SHARED_DATA to its folder)`;
  }
  if (!binary || !existsSync(binary)) return 'BENCHWATCH_BINARY does not name the built benchwatch';
  if (!nodeModules || !existsSync(join(nodeModules, 'playwright-core'))) {
    return 'BENCHWATCH_NODE_MODULES does not hold playwright-core (the build installs it)';
  }
  if (!existsSync(chromiumPath)) return `${chromiumPath} is missing: apt-get install chromium`;
  return false;
}
const skip = reasonToSkip();
// scripts/test installs Chromium and builds the rest: there, only a missing history may skip.
if (skip && process.env.BENCHWATCH_REQUIRE_BROWSER === '1' && existsSync(historyFile)) {
  throw new Error(`the dashboard browser test cannot run: ${skip}`);
}
if (skip) console.log(`# skipping the dashboard browser test: ${skip}`);

// ------------------------------------------------------------ what the history says, independently

const XSS_NAME = '<img src=x onerror=alert(1)>';
// git drops < and > from names, so the author shows an entity that HTML would decode.
const XSS_AUTHOR = 'Mallory &amp; Eve';
const XSS_SUBJECT = '<script>alert(3)</script> speed up';
// In the xss project: run only by the first commit, so retired at the second.
const RETIRED_NAME = 'old/gone';
const SEARCH = 'CopyTo';
// In the steps project: 10 ms for six commits, then 12 ms for six (a step needs five runs a
// side, and six against six all tied passes the rank test: p = 0.0013).
const STEP_NAME = 'sleep/step';
// In the counted project: instructions of one iteration, as `run --instrument callgrind` records
// them, 2,000 for six commits and 2,020 (+1%) for six.
const COUNTED_NAME = 'parse/small';
// The committer dates of the dated project's commits.
const DATED_COMMITS = ['2016-03-01T12:00:00Z', '2020-06-15T12:00:00Z', '2024-01-10T12:00:00Z'];

function readHistory() {
  const text = readFileSync(historyFile, 'utf8');
  const runs = JSON.parse(text.slice(text.indexOf('{'))).entries['Metal Benchmarks'];
  const names = new Set(runs.flatMap((run) => run.benches.map((bench) => bench.name)));
  const latest = new Set(runs.at(-1).benches.map((bench) => bench.name));
  const runsOf = (name) => runs.filter((run) => run.benches.some((bench) => bench.name === name));
  return {
    names: [...names].sort(),
    retired: [...names].filter((name) => !latest.has(name)).sort(),
    matching: (query) => [...names].filter((name) => name.toLowerCase().includes(query.toLowerCase())).sort(),
    runsOf,
    commits: runs.map((run) => run.commit.id),
  };
}

// ------------------------------------------------------------ processes and servers

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

const mediaTypes = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

// Serves `root` under /site/, as GitHub Pages serves a project's pages under /REPO/.
function startStaticServer(root) {
  const server = http.createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
    const relative = path.startsWith('/site/') ? normalize(path.slice('/site/'.length)) : null;
    let file = relative === null ? null : join(root, relative === '.' ? '' : relative);
    if (file && file.endsWith(sep)) file += 'index.html';
    if (file === root) file = join(root, 'index.html');
    if (!file || !file.startsWith(root + sep) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': mediaTypes[extname(file)] ?? 'application/octet-stream' });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, address: `http://127.0.0.1:${server.address().port}/site/` }));
  });
}

// Sends a request with the path exactly as written (fetch would resolve the dots away).
function rawRequest(address, method, path) {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, method, path }, (response) => {
      let body = '';
      response.on('data', (chunk) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

// ------------------------------------------------------------ page helpers

// Polls `read` until it deep-equals `expected` (10 s at most), then asserts the last reading.
async function eventually(read, expected, what) {
  let actual;
  for (let attempt = 0; attempt < 100; attempt++) {
    actual = await read();
    try {
      assert.deepEqual(actual, expected);
      return;
    } catch { /* not yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(actual, expected, what);
}

const shownNames = (page) => page.$$eval('[data-benchmark-id]:not([hidden])',
  (cards) => cards.map((card) => card.dataset.benchmarkName).sort());
const pressedWindow = (page) => page.$$eval('#windows button[aria-pressed="true"]',
  (buttons) => buttons.map((button) => button.dataset.window));
const query = (page, key) => new URL(page.url()).searchParams.get(key);

async function hoverLastPoint(page, card) {
  const over = card.locator('.u-over');
  await over.waitFor();
  const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width - 0.5, box.y + box.height / 2);
  await page.locator('#tooltip').waitFor({ state: 'visible' });
}

async function screenshot(page, name) {
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`) });
}

// The checks both the served and the static dashboard must pass; `label` names screenshots.
// What the command line says about the Metal.jl history, which the cards must agree with: the
// verdict of `benchwatch compare` on the latest commit (judged against the commit before it,
// as a pull request would be) and the trusted steps and suite events of `history --changes`.
function commandLineJudgement(folder, store, history) {
  const latest = history.commits.at(-1);
  const report = JSON.parse(benchwatch(folder, 'compare', '--store', store, '--project', 'metal',
    '--machine', 'm1', '--head', latest, '--format', 'json'));
  const verdicts = new Map(report.benchmarks.map((b) => [b.name, b.verdict]));
  const changes = JSON.parse(benchwatch(folder, 'history', '--changes', '--format', 'json',
    '--store', store, '--project', 'metal', '--machine', 'm1'));
  const recent = new Set(history.commits.slice(-20));
  // Each benchmark's latest own step (not a suite event's) when it began in the last 20 runs.
  const recentSteps = new Map();
  for (const step of changes.steps) {
    if (recent.has(step.after_commit)) recentSteps.set(step.benchmark, step);
  }
  return { verdicts, recentSteps, events: changes.events };
}

// The badge the command line's judgement implies: a flag of the latest run first, else a recent
// step by its direction (all of Metal.jl's benchmarks are times), else stable.
function expectedBadge(judgement, name) {
  const verdict = judgement.verdicts.get(name);
  if (verdict === 'slower') return ['regressed', 'latest run'];
  if (verdict === 'faster') return ['improved', 'latest run'];
  const step = judgement.recentSteps.get(name);
  if (step) return [step.ratio > 1 ? 'regressed' : 'improved', 'recent step'];
  return ['stable', ''];
}

async function checkDashboard(browser, base, history, stepCommits, judgement, label) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    dialog.dismiss();
  });

  // Every benchmark of the history has a card, and only those the last run lacks are retired.
  await page.goto(`${base}?pkg=metal`);
  await eventually(() => shownNames(page), history.names, 'one card per benchmark of the history');
  assert.equal(history.names.length, 79);
  assert.deepEqual(await page.$$eval('[data-benchmark-id].retired',
    (cards) => cards.map((card) => card.dataset.benchmarkName).sort()), history.retired);
  // Every card's badge says what `compare` on the latest commit and `history --changes` say.
  const badges = await page.$$eval('[data-benchmark-id]', (cards) => cards.map((card) => {
    const badge = card.querySelector('.badge.trend');
    return [card.dataset.benchmarkName, badge.textContent, badge.dataset.reason];
  }));
  assert.equal(badges.length, 79);
  for (const [name, trend, reason] of badges) {
    assert.deepEqual([trend, reason], expectedBadge(judgement, name), name);
  }
  // Metal.jl's latest commit is flagged on one benchmark, and some steps are recent: both rules
  // are exercised, not only "stable".
  assert.ok(badges.some(([, , reason]) => reason === 'latest run'));
  assert.ok(badges.some(([, , reason]) => reason === 'recent step'));
  // Each card says the smallest change the report would flag: at least its category's minimum
  // (3%, latency 5%).
  for (const meta of await page.$$eval('[data-benchmark-id] .card-meta', (metas) => metas.map((m) => m.textContent))) {
    const detectable = meta.match(/flags changes beyond (\d+\.\d)%/);
    assert.ok(detectable && Number(detectable[1]) >= 3, meta);
  }
  assert.equal(await page.locator('#project').inputValue(), 'metal');
  await page.locator('[data-benchmark-id] canvas').first().waitFor();
  // The suite event is drawn once per chart as its own marker, saying what the command line says.
  assert.equal(judgement.events.length, 1);
  const [event] = judgement.events;
  const diamond = page.locator('[data-benchmark-id]').first().locator('.suite-event-marker');
  await diamond.waitFor();
  assert.equal(await diamond.count(), 1);
  assert.equal(await diamond.getAttribute('data-commit'), event.after_commit);
  assert.equal(await diamond.getAttribute('title'),
    `suite event: ${event.benchmarks} of ${event.measured} benchmarks stepped, median `
    + `${((event.median_ratio - 1) * 100).toFixed(1)}%, from ${event.before_commit.slice(0, 7)} to `
    + `${event.after_commit.slice(0, 7)}; environment: no recorded key changed`);
  await screenshot(page, `${label}-overview`);

  // Hovering the right end of a chart shows one of that benchmark's latest commits, with its
  // subject and author (its last runs are hours apart, a few to a pixel).
  const firstCard = page.locator('[data-benchmark-id]').first();
  const firstName = await firstCard.getAttribute('data-benchmark-name');
  await hoverLastPoint(page, firstCard);
  const hoveredSha = await page.locator('#tooltip').getAttribute('data-commit');
  const hoveredRun = history.runsOf(firstName).slice(-10).find((run) => run.commit.id === hoveredSha);
  assert.ok(hoveredRun, `the tooltip's commit ${hoveredSha} is one of the last runs of ${firstName}`);
  const tip = await page.locator('#tooltip').textContent();
  assert.ok(tip.includes(hoveredSha.slice(0, 7)), tip);
  assert.ok(tip.includes(hoveredRun.commit.message.split('\n')[0]), tip);
  assert.ok(tip.includes(hoveredRun.commit.author.name), tip);

  // The search narrows the cards, ignoring case, and lives in the address.
  await page.locator('#search').fill(SEARCH);
  await eventually(() => shownNames(page), history.matching(SEARCH), `cards matching "${SEARCH}"`);
  assert.equal(history.matching(SEARCH).length, 6);
  assert.equal(query(page, 'q'), SEARCH);
  // Every matching card draws its chart (they all fit on the screen).
  await eventually(() => page.locator('[data-benchmark-id]:not([hidden]) canvas').count(), 6,
    'a chart on each matching card');
  await screenshot(page, `${label}-search`);

  // A window button changes the address; reloading keeps search and window; back undoes it.
  await page.locator('#windows button[data-window="6m"]').click();
  await eventually(() => query(page, 'window'), '6m', 'the window in the address');
  await page.reload();
  await eventually(() => shownNames(page), history.matching(SEARCH), 'the search after a reload');
  assert.equal(await page.locator('#search').inputValue(), SEARCH);
  assert.deepEqual(await pressedWindow(page), ['6m']);
  await page.goBack();
  await eventually(() => pressedWindow(page), ['all'], 'the window after going back');
  assert.equal(query(page, 'q'), SEARCH);

  // A click opens the large chart, linked from the address, with every point's commit linked.
  const card = page.locator('[data-benchmark-id]:not([hidden])').first();
  const benchmarkId = await card.getAttribute('data-benchmark-id');
  const benchmarkName = await card.getAttribute('data-benchmark-name');
  await card.locator('.chart canvas').waitFor();
  await card.locator('.chart').click();
  await eventually(() => query(page, 'bench'), benchmarkId, 'the open chart in the address');
  await page.locator('#detail-chart canvas').waitFor();
  assert.equal(await page.locator('#detail-title').textContent(), benchmarkName);
  const links = await page.$$eval('#detail-table a', (anchors) => anchors.map((a) => a.href));
  assert.equal(links.length, history.runsOf(benchmarkName).length);
  for (const link of links) assert.match(link, /^https:\/\/github\.com\/JuliaGPU\/Metal\.jl\/commit\/[0-9a-f]{40}$/);
  await screenshot(page, `${label}-large-chart`);
  await page.reload();
  await page.locator('#detail-chart canvas').waitFor();
  await page.keyboard.press('Escape');
  await eventually(() => query(page, 'bench'), null, 'closing the large chart');
  assert.ok(await page.locator('#detail').isHidden());

  // A benchmark, author and message made of HTML stay text: no element, no script, no dialog.
  await page.goto(`${base}?pkg=xss`);
  await eventually(() => shownNames(page), [XSS_NAME, RETIRED_NAME].sort(), 'the xss project');
  assert.equal(await page.locator('#project').inputValue(), 'xss');
  assert.deepEqual(await page.$$eval('[data-benchmark-id].retired',
    (cards) => cards.map((card) => card.dataset.benchmarkName)), [RETIRED_NAME]);
  const xssCard = page.locator('[data-benchmark-id]:not(.retired)');
  assert.equal(await xssCard.locator('.name').textContent(), XSS_NAME);
  await hoverLastPoint(page, xssCard);
  const xssTip = await page.locator('#tooltip').textContent();
  assert.ok(xssTip.includes(XSS_SUBJECT) && xssTip.includes(XSS_AUTHOR), xssTip);
  // The second run's toolchain differs from the first's, and the point says so.
  assert.ok(xssTip.includes('environment changed: toolchain: 1.0 → 1.1'), xssTip);
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(await page.locator('body script').count(), 0);
  // The benchmark whose level rose 20% at its seventh commit has one step marker, saying so.
  await page.goto(`${base}?pkg=steps`);
  await eventually(() => shownNames(page), [STEP_NAME], 'the steps project');
  const marker = page.locator('[data-benchmark-id] .step-marker');
  await marker.waitFor();
  assert.equal(await marker.count(), 1);
  assert.equal(await marker.getAttribute('title'),
    `step +20.0% (worse) from ${stepCommits[5].slice(0, 7)} to ${stepCommits[6].slice(0, 7)}`);
  assert.equal(await marker.getAttribute('data-commit'), stepCommits[6]);
  // It began within the last 20 runs: regressed, by that step.
  const stepBadge = page.locator('[data-benchmark-id] .badge.trend');
  assert.equal(await stepBadge.textContent(), 'regressed');
  assert.equal(await stepBadge.getAttribute('data-reason'), 'recent step');
  await screenshot(page, `${label}-step`);

  await page.waitForTimeout(300);
  assert.deepEqual(problems, []);
  await page.close();
}

// A new page whose charts' texts, as drawn on their canvases, collect in window.drawnTexts.
async function pageRecordingDrawnTexts(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript(() => {
    window.drawnTexts = [];
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      window.drawnTexts.push(String(text));
      return fillText.call(this, text, ...rest);
    };
  });
  return page;
}

// The counted project's card: the metric and its unit named, one step marker of +1%, and a value
// axis of ± 1% around the median (its percentage labels within ± 2%), where a times' axis of ± 25%
// would have drawn the step as a line's width.
async function checkCountedSeries(browser, base, commits) {
  const page = await pageRecordingDrawnTexts(browser);
  await page.goto(`${base}?pkg=counted`);
  const card = page.locator('[data-benchmark-id]');
  await card.locator('canvas').first().waitFor();
  assert.equal(await card.count(), 1);
  const meta = await card.locator('.card-meta').textContent();
  assert.ok(meta.startsWith('latest 2.02 kinstr · instructions'), meta);
  const marker = card.locator('.step-marker');
  await marker.waitFor();
  assert.equal(await marker.getAttribute('title'),
    `step +1.0% (worse) from ${commits[5].slice(0, 7)} to ${commits[6].slice(0, 7)}`);
  const percents = () => page.evaluate(() => window.drawnTexts.filter((text) => /^[+-]?[\d.]+%$/.test(text)));
  await eventually(async () => (await percents()).length > 0, true, 'the percentage axis is drawn');
  const labels = await percents();
  assert.ok(labels.every((label) => Math.abs(parseFloat(label)) <= 2), labels.join(', '));
  assert.ok(labels.some((label) => label !== '0%'), labels.join(', '));
  await screenshot(page, 'counted-step');
  await page.close();
}

// The dated project's chart: its status gives the commits' first and last dates, and its time
// axis is labelled in months of years, as a span of eight years is, not in the hours and minutes
// of the one afternoon the commits were recorded in.
async function checkCommitDates(browser, base) {
  const page = await pageRecordingDrawnTexts(browser);
  await page.goto(`${base}?pkg=dated`);
  await page.locator('[data-benchmark-id] canvas').first().waitFor();
  await eventually(async () => (await page.locator('#status').textContent()).split('. ')[0],
    'dated on m1: 3 runs from 2016-03-01 to 2024-01-10', 'the status names the commits\' dates');
  const ticks = () => page.evaluate(() => window.drawnTexts.filter((text) => /^[A-Z][a-z]{2} \d{4}$|^\d\d:\d\d$|^[A-Z][a-z]{2} \d{1,2}$/.test(text)));
  await eventually(async () => (await ticks()).length > 0, true, 'the time axis is drawn');
  const labels = await ticks();
  assert.ok(labels.every((label) => /^[A-Z][a-z]{2} (201[6-9]|202[0-4])$/.test(label)), labels.join(', '));
  await screenshot(page, 'dated-axis');
  await page.close();
}

// ------------------------------------------------------------ the test

describe('the history dashboard', { skip }, () => {
  const history = skip ? null : readHistory();
  let folder;
  let served;
  let site;
  let browser;
  const stepCommits = [];
  const countedCommits = [];
  let judgement;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'benchwatch-dashboard-'));
    const store = join(folder, 'history.db');
    benchwatch(folder, 'import', 'github-action-benchmark', '--store', store,
      '--project', 'metal', '--machine', 'm1', historyFile);

    // Two commits whose author and message are HTML, each with a run of an HTML-named benchmark,
    // the first also of RETIRED_NAME, and each with its own toolchain version.
    const repository = join(folder, 'xss');
    mkdirSync(repository);
    git(repository, 'init', '--quiet', '--initial-branch=main');
    const results = join(folder, 'hyperfine.json');
    for (const [index, mean] of [0.01, 0.012].entries()) {
      writeFileSync(join(repository, 'file.txt'), `${index}\n`);
      git(repository, 'add', 'file.txt');
      git(repository, '-c', `user.name=${XSS_AUTHOR}`, '-c', 'user.email=x@example.com',
        'commit', '--quiet', '-m', XSS_SUBJECT);
      const commands = index === 0 ? [XSS_NAME, RETIRED_NAME] : [XSS_NAME];
      writeFileSync(results, JSON.stringify({ results: commands.map((command) => ({
        command, mean, stddev: 0.001, median: mean, user: mean, system: 0,
        min: mean * 0.9, max: mean * 1.1, times: [mean, mean * 0.9, mean * 1.1] })) }));
      benchwatch(folder, 'record', '--store', store, '--project', 'xss', '--machine', 'm1',
        '--repo', repository, '--commit', git(repository, 'rev-parse', 'HEAD'), '--branch', 'main',
        '--env', `toolchain=1.${index}`, results);
    }

    // Twelve commits of one benchmark, the last six 20% slower: one step, before the seventh.
    const steps = join(folder, 'steps');
    mkdirSync(steps);
    git(steps, 'init', '--quiet', '--initial-branch=main');
    for (const [index, mean] of [...Array(6).fill(0.01), ...Array(6).fill(0.012)].entries()) {
      writeFileSync(join(steps, 'file.txt'), `${index}\n`);
      git(steps, 'add', 'file.txt');
      git(steps, '-c', 'user.name=A. Person', '-c', 'user.email=a@example.com',
        'commit', '--quiet', '-m', `change ${index}`);
      stepCommits.push(git(steps, 'rev-parse', 'HEAD'));
      writeFileSync(results, JSON.stringify({ results: [{
        command: STEP_NAME, mean, stddev: 0, median: mean, user: mean, system: 0,
        min: mean, max: mean, times: [mean, mean, mean] }] }));
      benchwatch(folder, 'record', '--store', store, '--project', 'steps', '--machine', 'm1',
        '--repo', steps, '--commit', stepCommits.at(-1), '--branch', 'main', results);
    }

    // Twelve commits of one counted benchmark, the last six 1% more instructions (Bencher's
    // format, as iai-callgrind writes it; read as the instrument's metric).
    const counted = join(folder, 'counted');
    mkdirSync(counted);
    git(counted, 'init', '--quiet', '--initial-branch=main');
    for (const [index, value] of [...Array(6).fill(2000), ...Array(6).fill(2020)].entries()) {
      writeFileSync(join(counted, 'file.txt'), `${index}\n`);
      git(counted, 'add', 'file.txt');
      git(counted, '-c', 'user.name=A. Person', '-c', 'user.email=a@example.com',
        'commit', '--quiet', '-m', `counted ${index}`);
      countedCommits.push(git(counted, 'rev-parse', 'HEAD'));
      const bmf = join(folder, 'counted.json');
      writeFileSync(bmf, JSON.stringify({ [COUNTED_NAME]: { instructions: { value } } }));
      benchwatch(folder, 'record', '--store', store, '--project', 'counted', '--machine', 'm1',
        '--repo', counted, '--commit', countedCommits.at(-1), '--branch', 'main', bmf);
    }

    // Three commits eight years apart, all recorded within a second: drawn at their commits' dates.
    const dated = join(folder, 'dated');
    mkdirSync(dated);
    git(dated, 'init', '--quiet', '--initial-branch=main');
    for (const [index, date] of DATED_COMMITS.entries()) {
      writeFileSync(join(dated, 'file.txt'), `${index}\n`);
      git(dated, 'add', 'file.txt');
      execFileSync('git', ['-c', 'user.name=A. Person', '-c', 'user.email=a@example.com',
        'commit', '--quiet', '-m', `dated ${index}`], {
        cwd: dated, env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
      writeFileSync(results, JSON.stringify({ results: [{
        command: 'dated', mean: 0.01, stddev: 0, median: 0.01, user: 0.01, system: 0,
        min: 0.01, max: 0.01, times: [0.01, 0.01, 0.01] }] }));
      benchwatch(folder, 'record', '--store', store, '--project', 'dated', '--machine', 'm1',
        '--repo', dated, '--branch', 'main', results);
    }

    judgement = commandLineJudgement(folder, store, history);
    served = await startServe(folder, store);
    const out = join(folder, 'site');
    benchwatch(folder, 'site', '--store', store, out);
    site = await startStaticServer(out);

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

  it('refuses paths outside the page, unknown routes and writes', async () => {
    for (const path of ['/../etc/passwd', '/assets/../../x', '/api/v1/nope', '/api/v1/projects/nope/benchmarks']) {
      assert.equal((await rawRequest(served.address, 'GET', path)).status, 404, path);
    }
    const encoded = await rawRequest(served.address, 'GET', '/assets/%2e%2e/%2e%2e/etc/passwd');
    assert.ok(encoded.status >= 400 && !encoded.body.includes('root:'), `encoded dots: ${encoded.status}`);
    const post = await rawRequest(served.address, 'POST', '/api/v1/projects');
    assert.ok(post.status >= 300, `POST /api/v1/projects answered ${post.status}`);
    assert.equal((await rawRequest(served.address, 'GET', '/')).status, 200);
  });

  it('shows, searches, links and escapes the history when served', async () => {
    await checkDashboard(browser, served.address, history, stepCommits, judgement, 'served');
  });

  it('draws a counted metric\'s 1% step on an axis of its own scale, with its marker', async () => {
    await checkCountedSeries(browser, served.address, countedCommits);
  });

  it('places each point at its commit\'s date, served and static', async () => {
    await checkCommitDates(browser, served.address);
    await checkCommitDates(browser, site.address);
  });

  it('does the same as a static site under a sub-path', async () => {
    const page = readFileSync(join(folder, 'site', 'index.html'), 'utf8');
    assert.ok(page.includes('<meta name="benchwatch-data" content="static">'));
    await checkDashboard(browser, site.address, history, stepCommits, judgement, 'static');
  });
});
