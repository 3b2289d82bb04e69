// The benchwatch dashboard. Its whole state lives in the address (?pkg, machine, q, window,
// bench); it reads benchmarks and series from the API of `benchwatch serve` or from the data/
// files of `benchwatch site`, and draws one uPlot chart per benchmark once it scrolls into view.
// `serve` and `site` embed the data of the first screen in the page (#benchwatch-initial), so
// that it draws at once: the charts near the top are drawn as soon as the page runs, without a
// request, and the rest as they scroll into view.
// Names, messages, authors and branches come from untrusted pull requests: they only ever reach
// the DOM as text, and addresses only as http(s) link targets.
'use strict';

const DATA_SOURCE = document.querySelector('meta[name="benchwatch-data"]')?.content === 'static'
  ? 'static' : 'api';
const WINDOW_MONTHS = { '3m': 3, '6m': 6, '1y': 12, all: 0 };
const DEFAULT_WINDOW = 'all';
const MAX_CONCURRENT_FETCHES = 6;
const SMALL_CHART_HEIGHT = 120;
const LARGE_CHART_HEIGHT = 380;
const SHORT_SHA = 7;
const SERIES_FIELDS = ['time', 'value', 'commit', 'subject', 'author', 'url'];

const byId = (id) => document.getElementById(id);

// What the server or site embedded: {projects, project, machine, benchmarks, commits, series}
// (src/serve/api.hpp, page_data_json), or null.
const INITIAL = (() => {
  try {
    const data = JSON.parse(byId('benchwatch-initial')?.textContent ?? 'null');
    return data && typeof data === 'object' && Array.isArray(data.projects?.projects) ? data : null;
  } catch {
    return null;
  }
})();
const initialCommits = new Map((INITIAL?.commits?.index ?? []).map((position, row) => [position, row]));

function isInitial(project, machine) {
  return INITIAL !== null && INITIAL.project === project.name && INITIAL.machine === machine.name;
}

// ---------------------------------------------------------------- the address

function readState() {
  const params = new URLSearchParams(location.search);
  const window = params.get('window');
  return {
    pkg: params.get('pkg') ?? '',
    machine: params.get('machine') ?? '',
    q: params.get('q') ?? '',
    window: window !== null && Object.hasOwn(WINDOW_MONTHS, window) ? window : DEFAULT_WINDOW,
    bench: params.get('bench') ?? '',
  };
}

function addressOf(state) {
  const params = new URLSearchParams();
  if (state.pkg) params.set('pkg', state.pkg);
  if (state.machine) params.set('machine', state.machine);
  if (state.q) params.set('q', state.q);
  if (state.window !== DEFAULT_WINDOW) params.set('window', state.window);
  if (state.bench) params.set('bench', state.bench);
  const query = params.toString();
  return query ? `?${query}` : location.pathname;
}

function navigate(changes, { replace = false } = {}) {
  const address = addressOf({ ...readState(), ...changes });
  if (replace) history.replaceState(null, '', address);
  else history.pushState(null, '', address);
  render();
}

// ---------------------------------------------------------------- data

const responses = new Map();

function fetchJson(url) {
  let response = responses.get(url);
  if (!response) {
    response = fetch(url).then(async (reply) => {
      if (!reply.ok) {
        let reason = `HTTP ${reply.status}`;
        try {
          const body = await reply.json();
          if (typeof body.error === 'string') reason = body.error;
        } catch { /* the status says enough */ }
        throw new Error(`${url}: ${reason}`);
      }
      return reply.json();
    });
    responses.set(url, response);
    response.catch(() => responses.delete(url));
  }
  return response;
}

const enc = encodeURIComponent;

function loadProjects() {
  if (INITIAL) return Promise.resolve(INITIAL.projects);
  return fetchJson(DATA_SOURCE === 'static' ? 'data/projects.json' : 'api/v1/projects');
}

function loadBenchmarks(project, machine) {
  if (isInitial(project, machine)) return Promise.resolve(INITIAL.benchmarks);
  return fetchJson(DATA_SOURCE === 'static'
    ? `data/${enc(project.id)}/${enc(machine.id)}/benchmarks.json`
    : `api/v1/projects/${enc(project.name)}/benchmarks?machine=${enc(machine.name)}`);
}

// The benchmark's series from `from` (ms, or null for all) with at most `points` points.
async function loadSeries(view, benchmark, from, points) {
  const embedded = initialSeries(view, benchmark, from, points);
  if (embedded) return downsample(embedded, points);
  if (DATA_SOURCE === 'api') {
    let url = `api/v1/projects/${enc(view.project.name)}/series/${enc(benchmark.id)}`
      + `?machine=${enc(view.machine.name)}&points=${points}`;
    if (from !== null) url += `&from=${from}`;
    return fetchJson(url);
  }
  const all = await loadStaticSeries(view, benchmark);
  const first = from === null ? 0 : all.time.findIndex((time) => time >= from);
  const inWindow = pick(all, range(first < 0 ? all.time.length : first, all.time.length));
  return downsample(inWindow, points);
}

// The embedded series of `benchmark` joined with the embedded commits, when the page carries one
// that serves: the whole history (the "all" window), with at least `points` points or all of them.
function initialSeries(view, benchmark, from, points) {
  if (from !== null || !isInitial(view.project, view.machine)) return null;
  const series = INITIAL.series?.[benchmark.id];
  if (!series || (series.downsampled && series.value.length < points)) return null;
  const joined = { ...series };
  for (const field of SERIES_FIELDS) {
    if (field === 'value') continue;
    joined[field] = series.index.map((position) => INITIAL.commits[field][initialCommits.get(position)]);
  }
  return joined;
}

// A static site keeps a machine's commits once, in commits.json, and in each series file only
// the indices of its commits and its values; this joins the two into the API's shape.
async function loadStaticSeries(view, benchmark) {
  const folder = `data/${enc(view.project.id)}/${enc(view.machine.id)}`;
  const [commits, series] = await Promise.all([
    fetchJson(`${folder}/commits.json`),
    fetchJson(`${folder}/series/${enc(benchmark.id)}.json`),
  ]);
  const joined = { ...series, value: series.value };
  for (const field of SERIES_FIELDS) {
    if (field !== 'value') joined[field] = series.index.map((i) => commits[field][i]);
  }
  return joined;
}

function range(start, end) {
  return Array.from({ length: end - start }, (_, i) => start + i);
}

function pick(series, indices) {
  const picked = { ...series, total: indices.length, downsampled: false };
  for (const field of [...SERIES_FIELDS, 'index']) picked[field] = indices.map((i) => series[field][i]);
  return picked;
}

// The API's rule: points/2 equal buckets by position, each keeping its smallest and largest
// value in time order (once when they are the same point).
function downsample(series, points) {
  const count = series.time.length;
  if (count <= points) return series;
  const buckets = Math.floor(points / 2);
  const kept = [];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const start = Math.floor((bucket * count) / buckets);
    const end = Math.floor(((bucket + 1) * count) / buckets);
    if (start >= end) continue;
    let lowest = start;
    let highest = start;
    for (let i = start + 1; i < end; i++) {
      if (series.value[i] < series.value[lowest]) lowest = i;
      if (series.value[i] > series.value[highest]) highest = i;
    }
    if (lowest === highest) kept.push(lowest);
    else kept.push(Math.min(lowest, highest), Math.max(lowest, highest));
  }
  return { ...pick(series, kept), total: count, downsampled: true };
}

function windowStart(lastTime, window) {
  const months = WINDOW_MONTHS[window];
  if (!months) return null;
  const start = new Date(lastTime);
  start.setUTCMonth(start.getUTCMonth() - months);
  return start.getTime();
}

// ---------------------------------------------------------------- units and text

// Numbers follow the command line's rule (src/report/format.cpp): 3 significant digits, and the
// unit (ns, µs, ms, s, or an SI prefix of the metric's own) chosen after rounding, so that 999.7 ns
// reads "1.00 µs" and never "1,000 ns".
const TIME_SCALES = [[1, 'ns'], [1e3, 'µs'], [1e6, 'ms'], [1e9, 's']];
const SI_PREFIXES = ['', 'k', 'M', 'G', 'T', 'P'];

// The decimal exponent of a non-negative value once rounded to 3 significant digits.
function roundedExponent(magnitude) {
  if (magnitude === 0 || !Number.isFinite(magnitude)) return 0;
  return Number(magnitude.toExponential(2).split('e')[1]);
}

// The divisor and unit label for a value of `magnitude` in `unit`, chosen after rounding.
function scaleFor(unit, magnitude) {
  const size = Math.abs(magnitude);
  if (unit === 'ns') {
    const found = TIME_SCALES.find(([factor], i) => i === TIME_SCALES.length - 1
      || roundedExponent(size / factor) < 3);
    return { factor: found[0], label: found[1] };
  }
  let prefix = 0;
  while (prefix + 1 < SI_PREFIXES.length && roundedExponent(size / 1000 ** prefix) >= 3) prefix++;
  return { factor: 1000 ** prefix, label: SI_PREFIXES[prefix] + unit };
}

// "121 µs", "30.0 ns", "1.25 GB/s": a value in its unit as the command line writes it.
function formatValue(value, unit) {
  if (!Number.isFinite(value)) return `${value} ${unit}`.trim();
  const { factor, label } = scaleFor(unit, value);
  const magnitude = Math.abs(value) / factor;
  const decimals = magnitude === 0 ? 0 : Math.max(0, 2 - roundedExponent(magnitude));
  const sign = value < 0 ? '-' : '';
  return `${sign}${magnitude.toFixed(decimals)} ${label}`.trim();
}

// The decimals that tell ticks `increment` apart: 0.25 needs 2, 5 needs none.
function decimalsOf(increment) {
  for (let decimals = 0; decimals < 9; decimals++) {
    const scaled = increment * 10 ** decimals;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return decimals;
  }
  return 9;
}

// A value axis's labels: one unit for the whole axis, chosen for its largest tick as
// formatValue() chooses it (so ticks up to 1000 ns read "1.00 µs"), with 3 significant digits
// of that tick, or more where the ticks are closer than that tells apart.
function axisLabels(unit, splits, increment) {
  const largest = splits.reduce((max, v) => Math.max(max, Math.abs(v)), 0);
  const { factor, label } = scaleFor(unit, largest);
  let decimals = largest === 0 ? 0 : Math.max(0, 2 - roundedExponent(largest / factor));
  if (increment > 0) decimals = Math.max(decimals, decimalsOf(increment / factor));
  return splits.map((v) => `${(v / factor).toFixed(decimals)} ${label}`.trim());
}

function formatPercent(fraction) {
  const sign = fraction > 0 ? '+' : '';
  return `${sign}${(fraction * 100).toFixed(1)}%`;
}

function formatDate(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

function firstLine(text) {
  return (text ?? '').split('\n', 1)[0];
}

function safeLink(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
}

// An element with class and text; children are appended as nodes, strings as text.
function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// What the badge was decided by, in words (docs/dashboard.md, "The badge").
function describeTrend(benchmark) {
  const change = typeof benchmark.trend_change === 'number' ? formatPercent(benchmark.trend_change) : '?';
  const threshold = typeof benchmark.threshold === 'number' ? formatPercent(benchmark.threshold) : '?';
  if (benchmark.trend_reason === 'latest run') {
    return `the latest run is ${change} from its level, beyond the ${threshold} a report would flag`;
  }
  if (benchmark.trend_reason === 'recent step') {
    return `a step of ${change} began in the last 20 runs`;
  }
  if (benchmark.threshold > 0) {
    return `the latest run is ${change} from its level, within ${threshold}, and no step began in the last 20 runs`;
  }
  return 'no judgement of the latest run, and no step in the last 20 runs';
}

function trendBadge(benchmark) {
  const trend = ['regressed', 'improved', 'stable'].includes(benchmark.trend)
    ? benchmark.trend : 'stable';
  const badge = el('span', `badge trend ${trend}`, trend);
  badge.title = describeTrend(benchmark);
  badge.dataset.reason = benchmark.trend_reason ?? '';
  return badge;
}

function badgesOf(benchmark) {
  const badges = [trendBadge(benchmark)];
  if (benchmark.retired) {
    const retired = el('span', 'badge retired', 'retired');
    retired.title = 'the latest run no longer has this benchmark';
    badges.push(retired);
  }
  return badges;
}

// ---------------------------------------------------------------- charts

function environmentChangeAt(view, time) {
  return view.environmentChanges.find((change) => change.time === time);
}

function describeChange(change) {
  const shown = (value) => (value === undefined || value === null || value === '' ? '(not recorded)' : value);
  return (change.changes ?? []).map((c) => `${c.key}: ${shown(c.from)} → ${shown(c.to)}`).join(', ');
}

// Draws a vertical line across the plot at history position `position` in the current stroke
// style, when it lies inside the plot's x range; returns whether it did.
function verticalLine(plot, position) {
  if (position < plot.scales.x.min || position > plot.scales.x.max) return false;
  const { ctx, bbox } = plot;
  const x = Math.round(plot.valToPos(position, 'x', true));
  ctx.beginPath();
  ctx.moveTo(x, bbox.top);
  ctx.lineTo(x, bbox.top + bbox.height);
  ctx.stroke();
  return true;
}

// Draws a dashed vertical line at each environment change inside the plot's x range.
function environmentMarkers(view) {
  return {
    hooks: {
      draw: [(plot) => {
        const { ctx } = plot;
        ctx.save();
        ctx.strokeStyle = '#d97706';
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        for (const change of view.environmentChanges) verticalLine(plot, change.index);
        ctx.restore();
      }],
    },
  };
}

// "step +12.3% (worse) from abc1234 to def5678": what a step marker's tooltip says.
function describeStep(benchmark, step) {
  const worse = (step.change > 0) === (benchmark.direction !== 'bigger');
  return `step ${formatPercent(step.change)} (${worse ? 'worse' : 'better'}) from `
    + `${step.before_commit.slice(0, SHORT_SHA)} to ${step.commit.slice(0, SHORT_SHA)}`;
}

// Marks each step of the benchmark inside the plot's x range with a dotted purple line and a
// triangle at the bottom of the plot whose tooltip gives the step's size and commits.
function stepMarkers(benchmark) {
  const steps = benchmark.steps ?? [];
  let triangles = [];
  return {
    hooks: {
      draw: [(plot) => {
        const { ctx } = plot;
        for (const triangle of triangles) triangle.remove();
        triangles = [];
        ctx.save();
        ctx.strokeStyle = '#7c3aed';
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        ctx.setLineDash([2 * devicePixelRatio, 2 * devicePixelRatio]);
        for (const step of steps) {
          if (!verticalLine(plot, step.index)) continue;
          const triangle = el('span', 'step-marker', '▲');
          triangle.title = describeStep(benchmark, step);
          triangle.dataset.commit = step.commit;
          triangle.style.left = `${plot.valToPos(step.index, 'x')}px`;
          plot.over.append(triangle);
          triangles.push(triangle);
        }
        ctx.restore();
      }],
    },
  };
}

// "suite event: 59 of 79 benchmarks stepped, median -36.6%, from abc1234 to def5678": what a
// suite event marker's tooltip says, with the environment keys that changed there.
function describeSuiteEvent(event) {
  const keys = describeChange(event);
  return `suite event: ${event.benchmarks} of ${event.measured} benchmarks stepped, median `
    + `${formatPercent(event.change)}, from ${event.before_commit.slice(0, SHORT_SHA)} to `
    + `${event.commit.slice(0, SHORT_SHA)}; environment: ${keys || 'no recorded key changed'}`;
}

// Marks each step of much of the suite at one commit (a machine, driver or toolchain change,
// shown once for the machine instead of as a step of every benchmark) with a dash-dotted teal
// line across every chart and a diamond whose tooltip says how many stepped and by how much.
function suiteEventMarkers(view) {
  let diamonds = [];
  return {
    hooks: {
      draw: [(plot) => {
        const { ctx } = plot;
        for (const diamond of diamonds) diamond.remove();
        diamonds = [];
        ctx.save();
        ctx.strokeStyle = '#0f766e';
        ctx.lineWidth = Math.max(1.5, 1.5 * devicePixelRatio);
        ctx.setLineDash([6 * devicePixelRatio, 2 * devicePixelRatio, 1 * devicePixelRatio, 2 * devicePixelRatio]);
        for (const event of view.suiteEvents) {
          if (!verticalLine(plot, event.index)) continue;
          const diamond = el('span', 'suite-event-marker', '◆');
          diamond.title = describeSuiteEvent(event);
          diamond.dataset.commit = event.commit;
          diamond.style.left = `${plot.valToPos(event.index, 'x')}px`;
          plot.over.append(diamond);
          diamonds.push(diamond);
        }
        ctx.restore();
      }],
    },
  };
}

const tooltip = () => byId('tooltip');

function fillPointDetails(target, view, series, index, withLink) {
  const commit = series.commit[index] ?? '';
  const header = el('div', 'tip-head', el('code', 'sha', commit.slice(0, SHORT_SHA)), ` · ${formatDate(series.time[index])}`);
  const link = withLink ? safeLink(series.url[index]) : null;
  if (link) {
    const anchor = el('a', null, 'open the commit');
    anchor.href = link;
    anchor.target = '_blank';
    anchor.rel = 'noopener noreferrer';
    header.append(' · ', anchor);
  }
  const parts = [
    header,
    el('div', 'tip-subject', firstLine(series.subject[index])),
    el('div', 'tip-author', series.author[index]),
    el('div', 'tip-value', formatValue(series.value[index], series.unit)),
  ];
  const change = environmentChangeAt(view, series.time[index]);
  if (change) parts.push(el('div', 'tip-env', `environment changed: ${describeChange(change)}`));
  target.replaceChildren(...parts);
  target.dataset.commit = commit;
  delete target.dataset.pull;
}

// "#41 fix/x" or "branch fix/x": how a pull request's run is named.
function pullName(pull) {
  const number = Number.isInteger(pull.pull_request) ? `#${pull.pull_request} ` : '';
  return `${number}${pull.branch}`;
}

// "880 ns, -12.0% from its base a98afc5": a pull request head's value beside its base's.
function describePullValue(pull, unit) {
  const value = formatValue(pull.value, unit);
  const base = typeof pull.base_commit === 'string' ? pull.base_commit.slice(0, SHORT_SHA) : null;
  if (typeof pull.change === 'number' && base) return `${value}, ${formatPercent(pull.change)} from its base ${base}`;
  if (base) return `${value} (its base ${base} has no value)`;
  return `${value} (its base is unknown)`;
}

function fillPullDetails(target, series, pull) {
  target.replaceChildren(
    el('div', 'tip-head', el('span', 'tip-pull', 'pull request '), pullName(pull), ' · ',
      el('code', 'sha', String(pull.head ?? '').slice(0, SHORT_SHA))),
    el('div', 'tip-subject', firstLine(pull.subject)),
    el('div', 'tip-author', pull.author),
    el('div', 'tip-value', describePullValue(pull, series.unit)));
  target.dataset.commit = pull.head ?? '';
  target.dataset.pull = String(pull.pull_request ?? '');
}

// The point under the cursor: a default-branch commit's or a pull request's.
function fillRowDetails(target, view, series, row, withLink) {
  if (row.kind === 'pull') fillPullDetails(target, series, series.pulls[row.at]);
  else fillPointDetails(target, view, series, row.at, withLink);
}

// The chart whose point #tooltip shows, or null: every chart redraws its cursor when it is drawn
// or resized, and only the chart that showed the tooltip may hide it.
let tooltipOwner = null;

// Shows #tooltip beside the hovered point with its commit, subject, author and value.
function hoverTooltip(view, series, rows) {
  const hide = (plot) => {
    if (tooltipOwner !== plot) return;
    tooltipOwner = null;
    tooltip().hidden = true;
  };
  return {
    hooks: {
      init: [(plot) => { plot.over.addEventListener('mouseleave', () => hide(plot)); }],
      destroy: [hide],
      setCursor: [(plot) => {
        const index = plot.cursor.idx;
        if (index === null || index === undefined || plot.cursor.left < 0) {
          hide(plot);
          return;
        }
        tooltipOwner = plot;
        const tip = tooltip();
        fillRowDetails(tip, view, series, rows[index], false);
        const y = box0(plot, index);
        tip.hidden = false;
        const box = plot.over.getBoundingClientRect();
        const x = box.left + plot.valToPos(plot.data[0][index], 'x');
        const width = tip.offsetWidth;
        const left = x + 14 + width > innerWidth ? x - 14 - width : x + 14;
        tip.style.left = `${Math.max(4, left)}px`;
        tip.style.top = `${Math.max(4, Math.min(y + 14, innerHeight - tip.offsetHeight - 4))}px`;
      }],
    },
  };
}

// The page's y (px) of the point at `index`, of whichever series has it.
function box0(plot, index) {
  const value = plot.data[1][index] ?? plot.data[2]?.[index];
  return plot.over.getBoundingClientRect().top + plot.valToPos(value, 'y');
}

// What a chart draws: x by history position (chartRows), the default branch's values and the
// pull requests' heads as two series, and the rows saying which point each x is.
function plotData(series) {
  const rows = chartRows(series);
  return {
    rows,
    data: [
      rows.map((row) => row.x),
      rows.map((row) => (row.kind === 'commit' ? series.value[row.at] : null)),
      rows.map((row) => (row.kind === 'pull' ? series.pulls[row.at].value : null)),
    ],
  };
}

// The width of a value axis: `least` pixels, or more when its longest label needs them (counts
// read "2.02 kinstr", longer than any time's "121 µs"), at about the font's width of a character.
function valueAxisSize(least, large) {
  const perCharacter = large ? 7 : 6;
  return (_, values) => {
    const longest = Math.max(0, ...(values ?? []).map((value) => String(value).length));
    return Math.max(least, longest * perCharacter + 14);
  };
}

function chartOptions(view, benchmark, series, rows, width, height, large) {
  const font = large ? '12px system-ui, sans-serif' : '10px system-ui, sans-serif';
  const grid = { stroke: '#e5e7eb', width: 1 };
  const times = view.commitTimes;
  // The value axis covers the median ± 25% at least (± 1% for a counted metric, chart-rules.js);
  // the percentages on the right are of that median.
  const values = [...series.value, ...(series.pulls ?? []).map((pull) => pull.value)];
  const [low, high] = valueAxisRange(values, axisHalfSpan(benchmark.metric));
  const reference = median(series.value);
  const xRange = large
    ? (_, min, max) => [min - 0.5, max + 0.5]
    : (_, min, max) => [Math.min(min, view.indexRange[0]) - 0.5, Math.max(max, view.indexRange[1]) + 0.5];
  const axisSpace = large ? 40 : 30;
  return {
    width,
    height,
    legend: { show: false },
    cursor: {
      drag: { x: large, y: false, setScale: large },
      points: { size: large ? 8 : 6, fill: '#1d4ed8' },
    },
    scales: {
      x: { time: false, range: xRange },
      y: { range: () => [low, high] },
    },
    axes: [
      { font, size: large ? 32 : 24, space: large ? 90 : 70, grid, ticks: { stroke: '#d1d5db', size: 3 },
        incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000],
        values: (_, splits) => commitDateLabels(splits, times) },
      { font, size: valueAxisSize(large ? 76 : 58, large), space: axisSpace, grid, ticks: { stroke: '#d1d5db', size: 3 },
        values: (_, splits, _axis, _space, increment) => axisLabels(series.unit, splits, increment) },
      { side: 1, scale: 'y', font, size: large ? 48 : 40, grid: { show: false },
        ticks: { stroke: '#d1d5db', size: 3 }, stroke: '#6b7280',
        splits: () => percentTicks(low, high, reference, Math.max(1, Math.floor((height - 30) / axisSpace))),
        values: (_, splits) => splits.map((value) => relativeLabel(value, reference)) },
    ],
    series: [
      {},
      { label: 'default branch', stroke: '#2563eb', width: large ? 1.5 : 1.25, spanGaps: true,
        points: { show: series.value.length <= (large ? 300 : 60), size: 3, fill: '#2563eb' } },
      { label: 'pull requests', stroke: '#ea580c', width: 0, paths: () => null,
        points: { show: true, size: large ? 9 : 7, width: 2, stroke: '#ea580c', fill: '#fff' } },
    ],
    plugins: [environmentMarkers(view), suiteEventMarkers(view), stepMarkers(benchmark),
      hoverTooltip(view, series, rows)],
  };
}

function drawChart(container, view, benchmark, series, height, large) {
  const width = Math.max(200, container.clientWidth);
  const { rows, data } = plotData(series);
  const options = chartOptions(view, benchmark, series, rows, width, height, large);
  container.replaceChildren();
  const plot = new uPlot(options, data, container);
  plot.rows = rows;
  return plot;
}

// ---------------------------------------------------------------- the list of cards

const pending = [];
let fetchesRunning = 0;

// Runs queued loads, at most MAX_CONCURRENT_FETCHES at once, skipping cards scrolled away.
function pumpLoads() {
  while (fetchesRunning < MAX_CONCURRENT_FETCHES && pending.length) {
    const card = pending.shift();
    if (card.view !== currentView || !card.inView) {
      card.state = 'idle';
      continue;
    }
    fetchesRunning++;
    loadCard(card).finally(() => {
      fetchesRunning--;
      pumpLoads();
    });
  }
}

async function loadCard(card) {
  card.state = 'loading';
  const { view } = card;
  const points = Math.max(2, Math.round(card.chartBox.clientWidth));
  try {
    const series = await loadSeries(view, card.benchmark, view.from, points);
    if (view !== currentView) return;
    if (!series.time.length) {
      card.chartBox.replaceChildren(el('p', 'empty', 'no runs in this window'));
    } else {
      card.plot = drawChart(card.chartBox, view, card.benchmark, series, SMALL_CHART_HEIGHT, false);
      card.element.dataset.points = String(series.time.length);
      card.pulls?.remove();
      card.pulls = pullList(series);
      if (card.pulls) card.element.append(card.pulls);
    }
    card.state = 'drawn';
  } catch (error) {
    if (view !== currentView) return;
    card.chartBox.replaceChildren(el('p', 'error', `could not load: ${error.message}`));
    card.state = 'failed';
  }
}

// Whether every name has a word boundary at `at`: after a separator ("array/|copy") or where a
// capital follows a small letter or digit ("Benchmark|Get").
function wordBoundaryAt(names, at) {
  return names.every((name) => /[/._:\- ]/.test(name[at - 1])
    || (/[a-z0-9]/.test(name[at - 1]) && /[A-Z]/.test(name[at])));
}

// The start that every one of `names` shares, cut back to a word boundary and never the whole of
// a name ("Benchmark" of BenchmarkGet and BenchmarkGetAll); '' for fewer than two names.
function sharedPrefix(names) {
  if (names.length < 2) return '';
  let end = Math.min(...names.map((name) => name.length)) - 1;
  for (const name of names) {
    let same = 0;
    while (same < end && name[same] === names[0][same]) same++;
    end = same;
  }
  while (end > 0 && !wordBoundaryAt(names, end)) end--;
  return names[0].slice(0, end);
}

function buildCard(view, benchmark, prefix) {
  // The title leaves out what every card of its group starts with; the full name is its tooltip,
  // the large chart's title and what the search matches.
  const name = el('a', 'name', benchmark.name.slice(prefix.length));
  name.title = benchmark.name;
  name.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate({ bench: benchmark.id });
  });
  const latest = `latest ${formatValue(benchmark.latest, benchmark.unit)}`;
  const metric = benchmark.metric && benchmark.metric !== 'time' ? ` · ${benchmark.metric}` : '';
  let typical = '';
  if (typeof benchmark.typical_change === 'number') {
    typical = ` · typical change ${(benchmark.typical_change * 100).toFixed(1)}%`;
  } else if (benchmark.points === 1) {
    typical = ' · one run, no history yet';
  }
  // The smallest change a pull request's report would flag on this benchmark now.
  const detectable = typeof benchmark.detectable_change === 'number'
    ? ` · flags changes beyond ${(benchmark.detectable_change * 100).toFixed(1)}%` : '';
  const chartBox = el('div', 'chart', el('p', 'empty', 'loading…'));
  chartBox.setAttribute('role', 'img');
  chartBox.setAttribute('aria-label', `history of ${benchmark.name}`);
  chartBox.addEventListener('click', () => navigate({ bench: benchmark.id }));
  const element = el('article', benchmark.retired ? 'card retired' : 'card',
    el('header', 'card-head', name, ...badgesOf(benchmark)),
    el('div', 'card-meta', latest + metric + typical + detectable),
    chartBox);
  element.dataset.benchmarkId = benchmark.id;
  element.dataset.benchmarkName = benchmark.name;
  element.dataset.trend = benchmark.trend;
  const card = { view, benchmark, element, chartBox, name, state: 'idle', inView: false, plot: null };
  view.cardsByElement.set(element, card);
  return card;
}

let currentView = null;
const observer = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const card = currentView?.cardsByElement.get(entry.target);
    if (!card) continue;
    card.inView = entry.isIntersecting;
    if (card.inView && card.state === 'idle') {
      card.state = 'queued';
      pending.push(card);
    }
  }
  pumpLoads();
}, { rootMargin: '300px 0px' });

// Queues the cards on or near the screen at once: with the page's embedded data they are drawn
// before the page has finished loading, not a frame later when the observer first reports.
function queueShownCards(view) {
  const reach = innerHeight + 300;
  for (const card of view.cards) {
    if (card.state !== 'idle' || card.element.hidden) continue;
    const box = card.element.getBoundingClientRect();
    if (box.height === 0 || box.bottom < -300 || box.top > reach) continue;
    card.inView = true;
    card.state = 'queued';
    pending.push(card);
  }
  pumpLoads();
}

function dropView() {
  if (!currentView) return;
  for (const card of currentView.cards) {
    observer.unobserve(card.element);
    card.plot?.destroy();
  }
  pending.length = 0;
  currentView = null;
}

function buildView(project, machine, window, listing) {
  dropView();
  const view = {
    key: viewKey(project, machine, window),
    project,
    machine,
    window,
    listing,
    from: windowStart(listing.last_time ?? machine.last_time, window),
    indexRange: null,
    commitTimes: listing.commit_times ?? [],
    environmentChanges: listing.environment_changes ?? [],
    suiteEvents: listing.suite_events ?? [],
    cards: [],
    cardsByElement: new Map(),
    groups: [],
  };
  // The history positions the window shows: from the first commit at or after its start.
  const lastIndex = Math.max(0, view.commitTimes.length - 1);
  const firstIndex = view.from === null ? 0 : view.commitTimes.findIndex((time) => time >= view.from);
  view.indexRange = [firstIndex < 0 ? lastIndex : firstIndex, lastIndex];
  currentView = view;
  const byCategory = new Map();
  for (const benchmark of listing.benchmarks) {
    if (!byCategory.has(benchmark.category)) byCategory.set(benchmark.category, []);
    byCategory.get(benchmark.category).push(benchmark);
  }
  for (const [category, benchmarks] of byCategory) {
    const prefix = sharedPrefix(benchmarks.map((benchmark) => benchmark.name));
    const count = el('span', 'count');
    const cards = el('div', 'cards');
    const heading = el('h2', null, category || 'Benchmarks', ' ', count);
    if (prefix) heading.append(' ', el('span', 'prefix', `all start with ${prefix}`));
    const section = el('section', 'group', heading, cards);
    section.dataset.category = category;
    section.dataset.prefix = prefix;
    const group = { section, cards, count, members: [] };
    view.groups.push(group);
    for (const benchmark of benchmarks) {
      const card = buildCard(view, benchmark, prefix);
      group.members.push(card);
      group.cards.append(card.element);
      view.cards.push(card);
    }
  }
  byId('groups').replaceChildren(...view.groups.map((group) => group.section));
  for (const card of view.cards) observer.observe(card.element);
  return view;
}

function viewKey(project, machine, window) {
  return JSON.stringify([project.name, machine.name, window]);
}

function applySearch(view, state) {
  const needle = state.q.trim().toLowerCase();
  let shown = 0;
  for (const group of view.groups) {
    let shownInGroup = 0;
    for (const card of group.members) {
      const match = !needle || card.benchmark.name.toLowerCase().includes(needle);
      card.element.hidden = !match;
      card.name.href = addressOf({ ...state, bench: card.benchmark.id });
      if (match) shownInGroup++;
    }
    group.section.hidden = shownInGroup === 0;
    group.count.textContent = `(${shownInGroup})`;
    shown += shownInGroup;
  }
  const total = view.cards.length;
  const runs = view.listing.runs ?? view.machine.runs;
  const span = view.listing.first_time
    ? ` from ${formatDate(view.listing.first_time)} to ${formatDate(view.listing.last_time)}` : '';
  const summary = `${view.project.name} on ${view.machine.name}: ${runs} runs${span}. `;
  const matched = needle ? `${shown} of ${total} benchmarks match “${state.q.trim()}”.`
    : `${total} ${total === 1 ? 'benchmark' : 'benchmarks'}.`;
  setStatus(summary + matched);
}

// ---------------------------------------------------------------- the large chart

let detail = null;

function closeDetail() {
  detail?.plot?.destroy();
  detail = null;
  byId('detail').hidden = true;
  document.body.classList.remove('detail-open');
}

async function showDetail(view, state) {
  const benchmark = view.listing.benchmarks.find((b) => b.id === state.bench);
  if (!benchmark) {
    closeDetail();
    setStatus(`No benchmark with id ${state.bench} in ${view.project.name} on ${view.machine.name}.`);
    return;
  }
  const key = JSON.stringify([view.key, benchmark.id]);
  byId('detail-close').href = addressOf({ ...state, bench: '' });
  if (detail?.key === key) return;
  closeDetail();
  detail = { key, plot: null, series: null };
  const current = detail;
  byId('detail').hidden = false;
  document.body.classList.add('detail-open');
  byId('detail-title').textContent = benchmark.name;
  byId('detail-badges').replaceChildren(...badgesOf(benchmark));
  byId('detail-point').replaceChildren();
  byId('detail-table').tBodies[0].replaceChildren();
  byId('detail-pulls').replaceChildren();
  const chartBox = byId('detail-chart');
  chartBox.replaceChildren(el('p', 'empty', 'loading…'));
  try {
    const points = Math.max(2, Math.round(chartBox.clientWidth));
    const series = await loadSeries(view, benchmark, view.from, points);
    if (detail !== current) return;
    current.series = series;
    if (!series.time.length) {
      chartBox.replaceChildren(el('p', 'empty', 'no runs in this window'));
      return;
    }
    current.plot = drawChart(chartBox, view, benchmark, series, LARGE_CHART_HEIGHT, true);
    // A click (not the end of a zooming drag) pins the point below and opens its commit.
    let pressedAt = null;
    current.plot.over.addEventListener('mousedown', (event) => { pressedAt = [event.clientX, event.clientY]; });
    current.plot.over.addEventListener('click', (event) => {
      const index = current.plot.cursor.idx;
      const dragged = pressedAt && Math.hypot(event.clientX - pressedAt[0], event.clientY - pressedAt[1]) > 3;
      if (index === null || index === undefined || dragged) return;
      const row = current.plot.rows[index];
      fillRowDetails(byId('detail-point'), view, series, row, true);
      const link = safeLink(row.kind === 'pull' ? series.pulls[row.at].url : series.url[row.at]);
      if (link) window.open(link, '_blank', 'noopener,noreferrer');
    });
    fillTable(series);
    fillPullTable(byId('detail-pulls'), series);
  } catch (error) {
    if (detail === current) chartBox.replaceChildren(el('p', 'error', `could not load: ${error.message}`));
  }
}

// The pull requests' runs of the series, newest first: name, head, subject, author and value
// beside its base's.
function fillPullTable(target, series) {
  const pulls = series.pulls ?? [];
  if (!pulls.length) {
    target.replaceChildren();
    return;
  }
  const rows = pulls.map((pull) => {
    const row = el('tr', null,
      el('td', 'pull-name', pullName(pull)),
      el('td', null, el('code', null, String(pull.head ?? '').slice(0, SHORT_SHA))),
      el('td', 'subject', firstLine(pull.subject)),
      el('td', null, pull.author),
      el('td', 'number', describePullValue(pull, series.unit)));
    row.dataset.commit = pull.head ?? '';
    return row;
  });
  target.replaceChildren(
    el('h3', null, `Pull-request runs (${pulls.length})`),
    el('table', 'pulls-table',
      el('thead', null, el('tr', null, el('th', null, 'pull request'), el('th', null, 'head'),
        el('th', null, 'subject'), el('th', null, 'author'), el('th', null, 'value'))),
      el('tbody', null, ...rows)));
}

// The newest pull requests' runs of a card's benchmark, at most three, one line each.
function pullList(series) {
  const pulls = series.pulls ?? [];
  if (!pulls.length) return null;
  const items = pulls.slice(0, 3).map((pull) => {
    const item = el('li', null, el('span', 'pull-name', pullName(pull)), ': ',
      describePullValue(pull, series.unit));
    item.title = firstLine(pull.subject);
    item.dataset.commit = pull.head ?? '';
    return item;
  });
  const more = pulls.length > 3 ? el('li', 'more', `and ${pulls.length - 3} more in the large chart`) : null;
  return el('ul', 'pulls', ...items, more);
}

function fillTable(series) {
  const rows = [];
  for (let i = series.time.length - 1; i >= 0; i--) {
    const sha = el('code', null, series.commit[i].slice(0, SHORT_SHA));
    const link = safeLink(series.url[i]);
    let commitCell = sha;
    if (link) {
      commitCell = el('a', null, sha);
      commitCell.href = link;
      commitCell.target = '_blank';
      commitCell.rel = 'noopener noreferrer';
    }
    const row = el('tr', null,
      el('td', null, formatDate(series.time[i])),
      el('td', null, commitCell),
      el('td', 'subject', firstLine(series.subject[i])),
      el('td', null, series.author[i]),
      el('td', 'number', formatValue(series.value[i], series.unit)));
    row.dataset.commit = series.commit[i];
    rows.push(row);
  }
  byId('detail-table').tBodies[0].replaceChildren(...rows);
  const caption = series.downsampled
    ? `${series.time.length} of ${series.total} runs shown (the smallest and largest of each stretch)`
    : `${series.time.length} runs`;
  byId('detail-point').replaceChildren(el('p', 'hint', caption));
}

// ---------------------------------------------------------------- controls

function setStatus(text) {
  byId('status').textContent = text;
}

function fillSelect(select, names, chosen) {
  select.replaceChildren(...names.map((name) => {
    const option = el('option', null, name);
    option.value = name;
    return option;
  }));
  select.value = chosen;
}

function syncControls(state, project, machine) {
  const search = byId('search');
  if (search.value !== state.q && document.activeElement !== search) search.value = state.q;
  for (const button of byId('windows').querySelectorAll('button')) {
    button.setAttribute('aria-pressed', String(button.dataset.window === state.window));
  }
  fillSelect(byId('project'), projects.map((p) => p.name), project?.name ?? '');
  const machines = project?.machines ?? [];
  byId('machine-picker').hidden = machines.length < 2;
  fillSelect(byId('machine'), machines.map((m) => m.name), machine?.name ?? '');
}

function bindControls() {
  byId('project').addEventListener('change', (event) => {
    navigate({ pkg: event.target.value, machine: '', bench: '' });
  });
  byId('machine').addEventListener('change', (event) => {
    navigate({ machine: event.target.value, bench: '' });
  });
  byId('search').addEventListener('input', (event) => {
    navigate({ q: event.target.value }, { replace: true });
  });
  byId('windows').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-window]');
    if (button) navigate({ window: button.dataset.window });
  });
  byId('detail-close').addEventListener('click', (event) => {
    event.preventDefault();
    navigate({ bench: '' });
  });
  byId('detail').addEventListener('click', (event) => {
    if (event.target === byId('detail')) navigate({ bench: '' });
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && readState().bench) navigate({ bench: '' });
  });
  let resizeTimer = 0;
  addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const card of currentView?.cards ?? []) {
        card.plot?.setSize({ width: card.chartBox.clientWidth, height: SMALL_CHART_HEIGHT });
      }
      const box = byId('detail-chart');
      detail?.plot?.setSize({ width: box.clientWidth, height: LARGE_CHART_HEIGHT });
    }, 150);
  });
  addEventListener('popstate', render);
}

// ---------------------------------------------------------------- rendering a state

let projects = [];
let renderCount = 0;

async function render() {
  const render = ++renderCount;
  const state = readState();
  const project = state.pkg ? projects.find((p) => p.name === state.pkg) : projects[0];
  const machineName = state.machine || project?.default_machine;
  const machine = project?.machines.find((m) => m.name === machineName) ?? null;
  syncControls(state, project, machine);
  if (!projects.length) return fail('This store has no runs yet.');
  if (!project) return fail(`No project named “${state.pkg}”; pick one above.`);
  if (!machine) return fail(`${project.name} has no runs on a machine named “${machineName}”.`);
  let view = currentView;
  if (view?.key !== viewKey(project, machine, state.window)) {
    if (view?.project !== project || view?.machine !== machine) {
      setStatus(`Loading ${project.name}…`);
    }
    let listing;
    try {
      listing = await loadBenchmarks(project, machine);
    } catch (error) {
      if (render === renderCount) fail(`Could not load the benchmarks: ${error.message}`);
      return;
    }
    if (render !== renderCount) return;
    view = buildView(project, machine, state.window, listing);
  }
  document.title = `${project.name} · benchwatch`;
  applySearch(view, state);
  queueShownCards(view);
  if (state.bench) await showDetail(view, state);
  else closeDetail();
}

function fail(message) {
  dropView();
  closeDetail();
  byId('groups').replaceChildren();
  setStatus(message);
}

// What a page opened from disk says: browsers refuse fetch() on file:// addresses, so a static
// site must be served over HTTP.
const FILE_MESSAGE = 'This page cannot read its data when opened as a file: browsers refuse to '
  + 'fetch files for a page opened from disk. Serve the folder over HTTP instead, e.g. run '
  + '`python3 -m http.server` in it and open http://localhost:8000/, or use `benchwatch serve`.';

async function start() {
  bindControls();
  if (location.protocol === 'file:') {
    setStatus(FILE_MESSAGE);
    return;
  }
  try {
    projects = (await loadProjects()).projects ?? [];
  } catch (error) {
    setStatus(`Could not load the projects: ${error.message}`);
    return;
  }
  await render();
}

start();
