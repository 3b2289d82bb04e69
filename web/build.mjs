// Writes the dashboard's page into --out (index.html and assets/), with uPlot taken from the
// npm packages in --modules. No bundling: the page is plain modern JavaScript and CSS.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { out: { type: 'string' }, modules: { type: 'string' } } });
const here = dirname(fileURLToPath(import.meta.url));
const out = values.out ?? join(here, 'dist');
const modules = values.modules ?? join(here, 'node_modules');

// `benchwatch site` swaps this exact line for content="static"; without it the site would
// read from an API that a static host does not have.
const dataSourceLine = '<meta name="benchwatch-data" content="api">';
const page = readFileSync(join(here, 'src', 'index.html'), 'utf8');
if (!page.includes(dataSourceLine)) {
  throw new Error(`web/src/index.html: the line ${dataSourceLine} is missing; benchwatch site needs it`);
}
// serve and site fill this line with the data of the page's first screen (src/serve/api.hpp).
const initialDataLine = '<script id="benchwatch-initial" type="application/json">null</script>';
if (!page.includes(initialDataLine)) {
  throw new Error(`web/src/index.html: the line ${initialDataLine} is missing; benchwatch serve and site fill it`);
}

const files = [
  [join(here, 'src', 'index.html'), 'index.html'],
  [join(here, 'src', 'chart-rules.js'), 'assets/chart-rules.js'],
  [join(here, 'src', 'app.js'), 'assets/app.js'],
  [join(here, 'src', 'app.css'), 'assets/app.css'],
  [join(modules, 'uplot', 'dist', 'uPlot.iife.min.js'), 'assets/uPlot.iife.min.js'],
  [join(modules, 'uplot', 'dist', 'uPlot.min.css'), 'assets/uPlot.min.css'],
];
mkdirSync(join(out, 'assets'), { recursive: true });
for (const [source, target] of files) copyFileSync(source, join(out, target));
