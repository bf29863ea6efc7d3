// Benchmark runner: `npm run bench` runs every bench/<name>.js, `npm run bench -- NAME` one, and
// `npm run bench -- --against REF NAME...` the named ones against commit REF in the same invocation (support/against.ts).
// Each bench runs in its own process so JIT state and GC pressure do not leak between them.

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchAgainst } from './support/against.js';
import { startFlags } from './support/daemon-process.js';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js' && f !== 'lib.js')
  .map((f) => f.slice(0, -3))
  .sort();
const args = process.argv.slice(2);
const against = args[0] === '--against' ? args[1] : undefined;
if (args[0] === '--against' && (against === undefined || args.length < 3)) {
  process.stderr.write('usage: npm run bench -- --against REF NAME...\n');
  process.exit(2);
}
const wanted = against === undefined ? args : args.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  process.stderr.write(`unknown bench ${unknown.join(', ')}; available: ${available.join(', ')}\n`);
  process.exit(2);
}
/** Benches of the daemon's own hot path run under `npm start`'s node flags: they measure the runtime users run. */
const UNDER_START_FLAGS = new Set(['tick-to-trade']);
const flagsOf = (name: string) => (UNDER_START_FLAGS.has(name) ? startFlags() : []);
if (against !== undefined) {
  benchAgainst(join(here, '../..'), here, against, wanted, flagsOf);
  process.exit(0);
}
let failed = 0;
for (const name of wanted.length ? wanted : available) {
  const r = spawnSync(process.execPath, [...flagsOf(name), join(here, `${name}.js`)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
