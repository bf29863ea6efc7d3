// Follows "Your own strategy in 15 minutes" (strategies/README.md) as written: perpbot packed, installed into a new project,
// `perpbot new strategy`, the generated test under vitest, the generated config under `perpbot run` on the local venue.
// Deviations, each forced by this machine: the checkout step packs this checkout as built by `npm test`'s pretest (its `npm ci` would
// replace the node_modules running this test), and npm skips install scripts with the checkout's build of better-sqlite3 (the
// same version) copied in, because its prebuilt binary cannot be downloaded here and compiling it takes minutes.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../../support/until.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SECTION = '## Your own strategy in 15 minutes';

/** The fenced blocks (info string, body) of the tutorial section, in order. */
function tutorialBlocks(): Array<{ lang: string; body: string }> {
  const text = readFileSync(join(ROOT, 'strategies/README.md'), 'utf8');
  const start = text.indexOf(SECTION);
  expect(start, `strategies/README.md has the section "${SECTION}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + SECTION.length);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

const { FORCE_COLOR: _color, ...inherited } = process.env;
const ENV = {
  ...inherited,
  NO_COLOR: '1',
  npm_config_prefer_offline: 'true',
  npm_config_ignore_scripts: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  PERPBOT_CONTROL_TOKEN: '',
};

// stdin is /dev/null: on a socket (node's default pipes) with SHLVL below 2, Debian's bash reads /etc/bash.bashrc, which fails under -u.
function bash(script: string, cwd: string): { status: number | null; out: string } {
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: ENV, encoding: 'utf8', timeout: 240_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const work = mkdtempSync(join(tmpdir(), 'perpbot-tutorial-'));
let daemon: ChildProcess | undefined;
afterAll(() => {
  if (daemon?.pid && daemon.exitCode === null && daemon.signalCode === null) process.kill(-daemon.pid, 'SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('strategies/README.md: your own strategy in 15 minutes', () => {
  it('runs as written, from the package to a strategy trading the local venue', { timeout: 300_000 }, async () => {
    const blocks = tutorialBlocks();
    const shell = blocks.filter((b) => b.lang === 'sh');
    expect(shell.map((b) => b.body.split('\n')[0])).toEqual([
      '# in the perpbot checkout',
      'mkdir my-bot && cd my-bot',
      'npx vitest run',
      'npx perpbot run --config strategies/my-first.yaml',
    ]);
    const [checkout, project, test, run] = shell as [(typeof shell)[0], (typeof shell)[0], (typeof shell)[0], (typeof shell)[0]];

    expect(checkout.body).toBe('# in the perpbot checkout\nnpm ci\nnpm pack --pack-destination ..\n');
    expect(existsSync(join(ROOT, 'dist/src/testing/index.d.ts')), 'dist/ is built (npm run build)').toBe(true);
    const packed = bash(`npm pack --ignore-scripts --pack-destination ${JSON.stringify(work)}`, ROOT);
    expect(packed.status, packed.out).toBe(0);

    const made = bash(`${project.body}pwd`, work);
    expect(made.status, made.out).toBe(0);
    const dir = made.out.trim().split('\n').at(-1)!;
    expect(dir).toBe(join(work, 'my-bot'));
    expect(made.out).toContain('wrote strategies/my-first.ts');

    const template = blocks.find((b) => b.lang === 'ts')!.body;
    expect(readFileSync(join(dir, 'strategies/my-first.ts'), 'utf8')).toBe(template);

    const tested = bash(test.body, dir);
    expect(tested.status, tested.out).toBe(0);
    expect(tested.out).toMatch(/Tests\s+2 passed/);

    const sqlite = 'node_modules/better-sqlite3';
    expect(JSON.parse(readFileSync(join(dir, sqlite, 'package.json'), 'utf8')).version).toBe(
      JSON.parse(readFileSync(join(ROOT, sqlite, 'package.json'), 'utf8')).version,
    );
    cpSync(join(ROOT, sqlite, 'build/Release/better_sqlite3.node'), join(dir, sqlite, 'build/Release/better_sqlite3.node'));

    let out = '';
    const child = spawn('bash', ['-c', run.body], { cwd: dir, env: ENV, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    daemon = child;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<string>((done) => child.on('exit', (code, signal) => done(`${code} ${signal}`)));
    const status = /^status main: .*(?:orders [1-9]\d* open|fills [1-9]).*\| my-first running \| ACTIVE$/m;
    await until(() => status.test(out) || child.exitCode !== null, 'a status line with orders or fills', 60_000, 200);
    expect(out).toMatch(status);
    expect(out).toContain('strategy  my-first on main (running)');
    process.kill(-child.pid!, 'SIGINT'); // Ctrl-C: the terminal signals the whole foreground group
    // npm exec ends by the signal it forwarded, once the daemon it waits for has stopped.
    expect(['0 null', 'null SIGINT'], out).toContain(await exited);
    expect(out).toMatch(/"strategy":"my-first".*"msg":"strategy stopped"/);
    expect(out).toMatch(/"leftOpen":0,"timedOut":false,"msg":"daemon stopped"/);
  });
});
