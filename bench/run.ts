// Benchmark runner: `npm run bench` runs every bench/<name>.js, `npm run bench -- NAME` one.
// Each bench runs in its own process so JIT state and GC pressure do not leak between them.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFlags } from './support/daemon-process.js';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js' && f !== 'lib.js')
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  process.stderr.write(`unknown bench ${unknown.join(', ')}; available: ${available.join(', ')}\n`);
  process.exit(2);
}
/** Benches of the daemon's own hot path run under `npm start`'s node flags: they measure the runtime users run. */
const UNDER_START_FLAGS = new Set(['tick-to-trade']);
let failed = 0;
for (const name of wanted.length ? wanted : available) {
  const flags = UNDER_START_FLAGS.has(name) ? startFlags() : [];
  const r = spawnSync(process.execPath, [...flags, join(here, `${name}.js`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
