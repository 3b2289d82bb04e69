#!/usr/bin/env node
// Load test of `benchwatch serve`'s API: --clients concurrent keep-alive clients, each in a closed
// loop (a new request as soon as the previous reply has been read whole), issuing what pages do:
// mostly one benchmark's series with points=300 over a 3-month, 6-month, 1-year or whole window,
// sometimes the project's benchmark list, now and then /api/v1/projects. The first --warmup
// seconds are not counted. Latency is from writing the request to the reply's last byte, as this
// client sees it (so it includes the client's own event-loop delays, on the same machine).
//
//   node bench/dashboard/load.mjs --url http://127.0.0.1:PORT [--clients 50] [--seconds 20]
//        [--warmup 3] [--project NAME] [--seed 1] [--server-pid PID]
//
// Prints the counts, requests/s and p50/p90/p99/max latency in all and per kind of request, and
// the CPU time per request of this client and (with --server-pid, from /proc/PID/stat) of the
// server, to tell a slow server from a saturated machine; exits 1 when any reply was not 200.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({
  options: {
    url: { type: 'string' },
    clients: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    project: { type: 'string' },
    seed: { type: 'string', default: '1' },
    'server-pid': { type: 'string' },
  },
});
if (!options.url) {
  console.error('load: --url BASE is required, e.g. --url http://127.0.0.1:8080');
  process.exit(2);
}
const base = new URL(options.url);
const clientCount = Number.parseInt(options.clients, 10);
const measuredMs = Number.parseFloat(options.seconds) * 1000;
const warmupMs = Number.parseFloat(options.warmup) * 1000;

const agent = new http.Agent({ keepAlive: true, maxSockets: clientCount, maxFreeSockets: clientCount });

let seed = Number.parseInt(options.seed, 10) >>> 0 || 1;
function random() {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 4294967296;
}

// GETs `path`; resolves to { status, bytes, body? } once the whole reply has been read.
function get(path, keepBody = false) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: base.hostname, port: base.port, path, agent }, (reply) => {
      const chunks = [];
      let bytes = 0;
      reply.on('data', (chunk) => {
        bytes += chunk.length;
        if (keepBody) chunks.push(chunk);
      });
      reply.on('end', () => resolve({ status: reply.statusCode, bytes, body: keepBody ? Buffer.concat(chunks).toString() : null }));
      reply.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function getJson(path) {
  const reply = await get(path, true);
  if (reply.status !== 200) throw new Error(`load: GET ${path} answered ${reply.status}: ${reply.body}`);
  return JSON.parse(reply.body);
}

const enc = encodeURIComponent;
const { projects } = await getJson('/api/v1/projects');
const project = options.project ? projects.find((p) => p.name === options.project) : projects[0];
if (!project) {
  console.error(`load: no project ${options.project ?? ''} in /api/v1/projects (${projects.map((p) => p.name).join(', ')})`);
  process.exit(2);
}
const listPath = `/api/v1/projects/${enc(project.name)}/benchmarks?machine=${enc(project.default_machine)}`;
const listing = await getJson(listPath);
const ids = listing.benchmarks.map((b) => b.id);

// The page's rule: a window starts `months` calendar months before the project's latest run.
const WINDOW_MONTHS = { '3m': 3, '6m': 6, '1y': 12, all: 0 };
function windowStart(months) {
  const start = new Date(listing.last_time);
  start.setUTCMonth(start.getUTCMonth() - months);
  return start.getTime();
}
const windows = Object.entries(WINDOW_MONTHS).map(([name, months]) => ({ name, from: months ? windowStart(months) : null }));

// A page view lists the benchmarks once and then loads a series per visible chart, so series
// dominate: 93% series, 5% lists, 2% projects.
function nextRequest() {
  const r = random();
  if (r < 0.02) return { kind: 'projects', path: '/api/v1/projects' };
  if (r < 0.07) return { kind: 'benchmarks', path: listPath };
  const window = windows[Math.floor(random() * windows.length)];
  const id = ids[Math.floor(random() * ids.length)];
  let path = `/api/v1/projects/${enc(project.name)}/series/${id}?machine=${enc(project.default_machine)}&points=300`;
  if (window.from !== null) path += `&from=${window.from}`;
  return { kind: `series ${window.name}`, path };
}

// The server's user + system CPU time in ms, from /proc/PID/stat (fields 14 and 15, in clock ticks
// of 100 Hz on Linux); null without --server-pid.
function serverCpuMs() {
  if (!options['server-pid']) return null;
  const stat = fs.readFileSync(`/proc/${options['server-pid']}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
const cpuMs = (usage) => (usage.user + usage.system) / 1000;
let clientCpuAtStart = null;
let serverCpuAtStart = null;
let loadAverageAtStart = null;
setTimeout(() => {
  clientCpuAtStart = cpuMs(process.cpuUsage());
  serverCpuAtStart = serverCpuMs();
  loadAverageAtStart = os.loadavg()[0];
}, warmupMs);

const samples = new Map(); // kind → latencies in ms
let failures = 0;
let bytesRead = 0;
const failureExamples = [];
const started = performance.now();
const measureFrom = started + warmupMs;
const stopAt = measureFrom + measuredMs;

async function client() {
  while (performance.now() < stopAt) {
    const { kind, path } = nextRequest();
    const sent = performance.now();
    let status;
    let bytes = 0;
    try {
      ({ status, bytes } = await get(path));
    } catch (error) {
      status = error.code ?? 'error';
    }
    const done = performance.now();
    if (sent < measureFrom || done > stopAt) continue;
    if (!samples.has(kind)) samples.set(kind, []);
    samples.get(kind).push(done - sent);
    bytesRead += bytes;
    if (status !== 200) {
      failures++;
      if (failureExamples.length < 5) failureExamples.push(`${status} ${path}`);
    }
  }
}

await Promise.all(Array.from({ length: clientCount }, client));
const clientCpu = cpuMs(process.cpuUsage()) - clientCpuAtStart;
const serverCpu = options['server-pid'] ? serverCpuMs() - serverCpuAtStart : null;
const loadAverageAtEnd = os.loadavg()[0];
agent.destroy();

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const fmt = (ms) => ms.toFixed(1).padStart(7);
function line(label, latencies) {
  const sorted = Float64Array.from(latencies).sort();
  return `${label.padEnd(14)} ${String(sorted.length).padStart(7)} ${fmt(percentile(sorted, 50))} ${fmt(percentile(sorted, 90))} ${fmt(percentile(sorted, 99))} ${fmt(sorted[sorted.length - 1])}`;
}

const all = [...samples.values()].flat();
const seconds = measuredMs / 1000;
console.log(`load: ${clientCount} keep-alive clients for ${seconds} s after ${warmupMs / 1000} s of warm-up, project ${project.name} (${ids.length} benchmarks, ${listing.runs} runs)`);
console.log(`requests ${all.length}, ${(all.length / seconds).toFixed(0)} requests/s, ${(bytesRead / seconds / 1048576).toFixed(1)} MiB/s read, non-200 ${failures}`);
console.log(`${'kind'.padEnd(14)} ${'count'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p90 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)}`);
for (const kind of [...samples.keys()].sort()) console.log(line(kind, samples.get(kind)));
console.log(line('all', all));
const perRequest = (ms) => `${((ms / all.length) * 1000).toFixed(0)} µs`;
console.log(`CPU per request: client ${perRequest(clientCpu)}`
  + (serverCpu === null ? '' : `, server ${perRequest(serverCpu)}`)
  + `; CPU busy: client ${((clientCpu / measuredMs) * 100).toFixed(0)}%`
  + (serverCpu === null ? '' : `, server ${((serverCpu / measuredMs) * 100).toFixed(0)}%`)
  + ` of one core; load average ${loadAverageAtStart.toFixed(2)} → ${loadAverageAtEnd.toFixed(2)}`);
for (const example of failureExamples) console.log(`failed: ${example}`);
process.exit(failures > 0 ? 1 : 0);
