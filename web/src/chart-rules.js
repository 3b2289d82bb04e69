// The dashboard's chart rules as pure functions of their arguments: the value axis's range and
// its percentage ticks, where each point sits on the commit axis and how its dates are labelled.
// app.js draws with them; tests/browser/history.test.mjs checks them with exact numbers in Node.
'use strict';

// The value axis always covers the median ± this fraction of it, so that noise of a few percent
// stays a few percent of the chart's height.
const AXIS_HALF_SPAN = 0.25;
// The same for the metrics an instrument counts (instructions, estimated cycles), which repeat to
// the instruction between runs and are judged from 0.2%: at ± 25% such a change would be a line's
// width.
const COUNTED_AXIS_HALF_SPAN = 0.01;
const COUNTED_METRICS = ['instructions', 'estimated_cycles'];
// A point beyond that span gets this fraction of the axis' span as room beyond it.
const AXIS_EDGE_ROOM = 0.05;
// The fractions of the median that percentage ticks step by, smallest first.
const PERCENT_STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100];

// The median of the finite numbers in `values`; NaN when there are none.
function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// The least half-span of the value axis of `metric`: COUNTED_AXIS_HALF_SPAN for a counted metric,
// else AXIS_HALF_SPAN. Example: axisHalfSpan('instructions') → 0.01.
function axisHalfSpan(metric) {
  return COUNTED_METRICS.includes(metric) ? COUNTED_AXIS_HALF_SPAN : AXIS_HALF_SPAN;
}

// The value axis' [low, high] for `values` (docs/dashboard.md, "The value axis"): at least the
// median ± `halfSpan` (25% unless given), widened to every point with 5% of the span as room
// beyond the outermost ones, and from 0 when that leaves the axis' low end below a quarter of its
// high end. Medians of 0 or
// below (metrics that are not times) get the points' own range with 5% room.
// Example: valueAxisRange([950, 1050, 1000]) → [750, 1250].
function valueAxisRange(values, halfSpan = AXIS_HALF_SPAN) {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return [0, 1];
  const smallest = Math.min(...finite);
  const largest = Math.max(...finite);
  const middle = median(finite);
  if (!(middle > 0)) {
    const room = (largest - smallest) * AXIS_EDGE_ROOM || Math.abs(middle) * halfSpan || 1;
    return [smallest - room, largest + room];
  }
  let low = Math.min(smallest, middle * (1 - halfSpan));
  let high = Math.max(largest, middle * (1 + halfSpan));
  const room = (high - low) * AXIS_EDGE_ROOM;
  if (smallest < middle * (1 - halfSpan)) low = smallest >= 0 ? Math.max(0, low - room) : low - room;
  if (largest > middle * (1 + halfSpan)) high += room;
  if (smallest >= 0 && low < high / 4) low = 0;
  return [low, high];
}

// Ticks at whole steps of `reference` (1%, 2%, 5%, 10%, 20%, 25%, 50%, 100%, …) inside
// [low, high], the smallest step that gives at most `most` ticks (at least 1).
// Example: percentTicks(750, 1250, 1000, 3) → [800, 1000, 1200].
function percentTicks(low, high, reference, most) {
  if (!(reference > 0) || !(high > low)) return [];
  const wanted = Math.max(1, most);
  for (const step of PERCENT_STEPS) {
    const first = Math.ceil((low / reference - 1) / step - 1e-9);
    const last = Math.floor((high / reference - 1) / step + 1e-9);
    if (last - first + 1 > wanted) continue;
    const ticks = [];
    for (let k = first; k <= last; k++) ticks.push(reference * (1 + k * step));
    return ticks;
  }
  return [];
}

// "+20%", "-5%", "0%": `value` relative to `reference`, in whole percent where that tells the
// ticks apart, else with one decimal.
function relativeLabel(value, reference) {
  const percent = (value / reference - 1) * 100;
  const rounded = Math.abs(percent - Math.round(percent)) < 1e-6 ? Math.round(percent) : percent;
  const text = Number.isInteger(rounded) ? String(Math.abs(rounded)) : Math.abs(rounded).toFixed(1);
  if (rounded === 0) return '0%';
  return `${rounded > 0 ? '+' : '-'}${text}%`;
}

// Where a chart draws each point: a default-branch point at its commit's position in the history
// (series.index), so that commits of one date are spread in git's order, and a pull request's
// head just after its base commit (base + 0.5, several of one base spread between base and
// base + 1). Rows come sorted by x: {x, kind: 'commit' | 'pull', at} where `at` indexes the
// series' points or series.pulls. Pull requests without a base or a value are left out.
function chartRows(series) {
  const rows = series.index.map((x, at) => ({ x, kind: 'commit', at }));
  const byBase = new Map();
  (series.pulls ?? []).forEach((pull, at) => {
    if (!Number.isInteger(pull.base_index) || !Number.isFinite(pull.value)) return;
    if (!byBase.has(pull.base_index)) byBase.set(pull.base_index, []);
    byBase.get(pull.base_index).push(at);
  });
  for (const [base, pulls] of byBase) {
    // Oldest first, left to right (series.pulls are newest first).
    pulls.reverse().forEach((at, k) => {
      rows.push({ x: base + (pulls.length === 1 ? 0.5 : (k + 1) / (pulls.length + 1)), kind: 'pull', at });
    });
  }
  return rows.sort((a, b) => a.x - b.x);
}

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// The labels of commit-axis ticks at history positions `positions` (whole numbers), whose
// commits' times (ms) are `times` (all of the history's, by position): "Mar 2025" when the ticks
// span 60 days or more, "Mar 14" for a day or more, else "Mar 14 09:30" (UTC); a label equal to
// the one before it is left blank, so that commits of one day carry one label.
function commitDateLabels(positions, times) {
  const shown = positions.map((p) => times[p]);
  const known = shown.filter(Number.isFinite);
  const span = known.length ? Math.max(...known) - Math.min(...known) : 0;
  const day = 86400000;
  let previous = null;
  return shown.map((time) => {
    if (!Number.isFinite(time)) return '';
    const date = new Date(time);
    const month = MONTH_NAMES[date.getUTCMonth()];
    let label;
    if (span >= 60 * day) label = `${month} ${date.getUTCFullYear()}`;
    else if (span >= day) label = `${month} ${date.getUTCDate()}`;
    else {
      const hours = String(date.getUTCHours()).padStart(2, '0');
      const minutes = String(date.getUTCMinutes()).padStart(2, '0');
      label = `${month} ${date.getUTCDate()} ${hours}:${minutes}`;
    }
    const blank = label === previous;
    previous = label;
    return blank ? '' : label;
  });
}
