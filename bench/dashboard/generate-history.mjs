#!/usr/bin/env node
// Writes a synthetic github-action-benchmark history (a data.js, `window.BENCHMARK_DATA = {...}`)
// for the dashboard's performance goals: N benchmarks × M default-branch runs, deterministic for a
// seed. The values behave like real ones: log-normal noise of a few percent per benchmark, rare
// heavy-tail outliers, step changes in some benchmarks, one suite-wide shift (a toolchain upgrade),
// ~5% of the benchmarks retired before the last runs and a few added late; runs are commits a few
// hours apart with plausible subjects and authors.
//
//   node bench/dashboard/generate-history.mjs --out history.js [--benchmarks 500] [--runs 5000]
//        [--seed 1]
//
// Prints the file's size and the counts; `benchwatch import` refuses files over 256 MiB, so it
// exits 1 when the file is larger than that.

import fs from 'node:fs';
import { parseArgs } from 'node:util';

const IMPORT_LIMIT_BYTES = 256 * 1024 * 1024;

const { values: options } = parseArgs({
  options: {
    out: { type: 'string' },
    benchmarks: { type: 'string', default: '500' },
    runs: { type: 'string', default: '5000' },
    seed: { type: 'string', default: '1' },
  },
});
if (!options.out) {
  console.error('generate-history: --out FILE is required (the data.js to write)');
  process.exit(2);
}
const benchmarkCount = Number.parseInt(options.benchmarks, 10);
const runCount = Number.parseInt(options.runs, 10);
const seed = Number.parseInt(options.seed, 10);
if (!(benchmarkCount > 0) || !(runCount > 1) || !Number.isFinite(seed)) {
  console.error('generate-history: --benchmarks must be ≥ 1, --runs ≥ 2 and --seed an integer');
  process.exit(2);
}

// mulberry32: small, fast and good enough for synthetic data; the same seed gives the same file.
function makeRandom(initial) {
  let state = initial >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = makeRandom(seed * 2654435761 + 12345);
const between = (low, high) => low + (high - low) * random();
const pick = (list) => list[Math.floor(random() * list.length)];
function gaussian() {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
const hex = (length) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

// ---------------------------------------------------------------- benchmarks

const GROUPS = {
  array: ['copy', 'construct', 'broadcast', 'reshape', 'permutedims'],
  kernel: ['launch', 'compile', 'occupancy', 'shared'],
  reduce: ['sum', 'mapreduce', 'argmax', 'scan'],
  linalg: ['gemm', 'gemv', 'lu', 'qr', 'norm'],
  memory: ['alloc', 'free', 'pool', 'transfer'],
  latency: ['precompile', 'ttfp', 'import', 'load'],
  sort: ['quicksort', 'mergesort', 'radix', 'partial'],
  random: ['rand', 'randn', 'shuffle'],
  io: ['read', 'write', 'mmap', 'parse'],
  fft: ['plan', 'forward', 'inverse', 'real'],
};
const ELEMENT_TYPES = ['Float32', 'Float64', 'Int32', 'Int64', 'Float16', 'ComplexF32', 'UInt8'];
const SIZES = ['16', '256', '4096', '65536', '1048576', '1024x1024', '64x64x64', '8192'];

function uniqueNames(count) {
  const names = new Set();
  const groups = Object.keys(GROUPS);
  while (names.size < count) {
    const group = groups[names.size % groups.length];
    const sub = pick(GROUPS[group]);
    const leaf = random() < 0.7 ? `${pick(ELEMENT_TYPES)}_${pick(SIZES)}` : pick(['cold', 'warm', 'inplace', 'views', 'strided']);
    const name = `${group}/${sub}/${leaf}`;
    names.add(names.has(name) ? `${name}_${names.size}` : name);
  }
  return [...names].sort();
}

const RETIRED_SHARE = 0.05;
const LATE_SHARE = 0.03;
const suiteShiftRun = Math.floor(runCount * 0.62);
const SUITE_SHIFT_FACTOR = 1.035; // a toolchain upgrade that slows everything by ~3.5%

const benchmarks = uniqueNames(benchmarkCount).map((name) => {
  const steps = [];
  const stepCount = random() < 0.25 ? (random() < 0.3 ? 2 : 1) : 0;
  for (let i = 0; i < stepCount; i++) {
    steps.push({ run: Math.floor(between(0.05, 0.98) * runCount), factor: pick([0.6, 0.8, 0.9, 1.1, 1.25, 1.5, 2]) });
  }
  steps.sort((a, b) => a.run - b.run);
  const retired = random() < RETIRED_SHARE;
  const late = !retired && random() < LATE_SHARE;
  return {
    name,
    base: Math.exp(between(Math.log(20), Math.log(5e9))), // 20 ns to 5 s, log-uniform
    sigma: between(0.005, 0.05), // log-normal noise, 0.5% to 5%
    outlierChance: between(0, 0.01),
    steps,
    stepCount,
    firstRun: late ? Math.floor(between(0.3, 0.9) * runCount) : 0,
    lastRun: retired ? Math.floor(between(0.5, 0.995) * runCount) : runCount - 1,
  };
});

// ---------------------------------------------------------------- commits

const AUTHORS = [
  'Tim Besard', 'Christian Guinard', 'Valentin Churavy', 'Anna Lindqvist', 'Kenji Watanabe',
  'Priya Raman', 'Jonas Müller', 'Sofia Moreno', 'Oluwaseun Adeyemi', 'Mei Chen', 'dependabot[bot]',
  'github-actions[bot]',
];
const VERBS = ['Fix', 'Add', 'Speed up', 'Refactor', 'Simplify', 'Document', 'Test', 'Avoid', 'Support', 'Rework'];
const OBJECTS = [
  'the copy kernel', 'broadcast of views', 'argument conversion', 'the memory pool',
  'kernel launch overhead', 'precompilation workload', 'reduction over dims', 'the FFT plan cache',
  'strided arrays', 'error messages for invalid launches', 'Float16 support', 'the sort kernels',
  'device-side RNG', 'unsafe_wrap of host memory', 'the CI matrix',
];
function commitMessage(run) {
  if (random() < 0.06) return `Bump ${pick(['actions/checkout', 'LLVM', 'GPUArrays', 'KernelAbstractions'])} to v${1 + Math.floor(random() * 9)}.${Math.floor(random() * 20)} (#${900 + run})`;
  const subject = `${pick(VERBS)} ${pick(OBJECTS)}`;
  if (random() < 0.5) return `${subject} (#${900 + run})`;
  return `${subject}\n\nThe previous version ${pick(['allocated on every call', 'missed a synchronization', 'recompiled too often', 'ignored the stride'])}.\n\nCo-authored-by: ${pick(AUTHORS)}`;
}

// ---------------------------------------------------------------- writing

const REPO_URL = 'https://github.com/example/gpu-bench';
const DAY_MS = 86400_000;
const commitTimes = new Array(runCount);
{
  let time = Date.UTC(2024, 0, 8, 9, 0, 0) - Math.round(runCount * 4.5 * 3600_000);
  time = Math.max(time, Date.UTC(2020, 0, 1));
  for (let run = 0; run < runCount; run++) {
    time += Math.round(between(1, 8) * 3600_000); // one run every 1 to 8 hours, 4.5 on average
    commitTimes[run] = time;
  }
}
const lastUpdate = commitTimes[runCount - 1] + DAY_MS;

function formatValue(value) {
  return Number(value.toPrecision(6)).toString();
}

const fd = fs.openSync(options.out, 'w');
let buffer = '';
let bytesWritten = 0;
function write(text) {
  buffer += text;
  if (buffer.length > 1 << 20) flush();
}
function flush() {
  bytesWritten += fs.writeSync(fd, buffer);
  buffer = '';
}

write(`window.BENCHMARK_DATA = {\n  "lastUpdate": ${lastUpdate},\n  "repoUrl": ${JSON.stringify(REPO_URL)},\n  "entries": {\n    "Benchmarks": [\n`);
let resultCount = 0;
const levels = benchmarks.map(() => 1);
for (let run = 0; run < runCount; run++) {
  const id = hex(40);
  const commit = {
    author: { name: pick(AUTHORS) },
    id,
    message: commitMessage(run),
    timestamp: new Date(commitTimes[run]).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    url: `${REPO_URL}/commit/${id}`,
  };
  const benches = [];
  const shift = run >= suiteShiftRun ? SUITE_SHIFT_FACTOR : 1;
  benchmarks.forEach((benchmark, index) => {
    while (benchmark.steps.length && benchmark.steps[0].run === run) levels[index] *= benchmark.steps.shift().factor;
    if (run < benchmark.firstRun || run > benchmark.lastRun) return;
    let value = benchmark.base * levels[index] * shift * Math.exp(benchmark.sigma * gaussian());
    if (random() < benchmark.outlierChance) value *= between(1.3, 6); // a noisy neighbour, a GC pause
    benches.push(`{"name":${JSON.stringify(benchmark.name)},"value":${formatValue(value)},"unit":"ns"}`);
  });
  resultCount += benches.length;
  const date = commitTimes[run] + Math.round(between(10, 50) * 60_000);
  write(`      {"commit":${JSON.stringify(commit)},"date":${date},"tool":"customSmallerIsBetter","benches":[\n        ${benches.join(',\n        ')}\n      ]}${run + 1 < runCount ? ',' : ''}\n`);
}
write('    ]\n  }\n}\n');
flush();
fs.closeSync(fd);

const retired = benchmarks.filter((b) => b.lastRun < runCount - 1).length;
const late = benchmarks.filter((b) => b.firstRun > 0).length;
const stepped = benchmarks.filter((b) => b.stepCount > 0).length;
const days = (commitTimes[runCount - 1] - commitTimes[0]) / DAY_MS;
console.log(`wrote ${options.out}: ${(bytesWritten / 1048576).toFixed(1)} MiB, ${benchmarkCount} benchmarks × ${runCount} runs`
  + ` (${resultCount} results; ${retired} retired, ${late} added late; ${stepped} with step changes; suite-wide ×${SUITE_SHIFT_FACTOR} from run ${suiteShiftRun};`
  + ` ${days.toFixed(0)} days from ${new Date(commitTimes[0]).toISOString().slice(0, 10)})`);
if (bytesWritten > IMPORT_LIMIT_BYTES) {
  console.error(`generate-history: ${options.out} is ${bytesWritten} bytes, over import's 256 MiB limit; use fewer --runs or --benchmarks`);
  process.exit(1);
}
