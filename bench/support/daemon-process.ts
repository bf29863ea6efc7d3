// Runs `perpbot run` (the built CLI) as a child process for end-to-end tests and the memory bench: output lines,
// banner facts, exit. Invariant: the caller kills every child it started (kill() is idempotent).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package root: the nearest folder above this file holding package.json (works from bench/ and dist/bench/). */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = packageRoot(import.meta.dirname);
const CLI = join(ROOT, 'dist/src/cli.js');
/** The node flags of `npm start` (`node --flag … dist/src/cli.js run …`), so tests and benches run what users run. */
export function startFlags(): string[] {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/).slice(1);
  return words.slice(
    0,
    words.findIndex((w) => !w.startsWith('--')),
  );
}

export interface DaemonProcess {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  /** Resolves with the first stdout line matching `re` (rejects on exit or after `timeoutMs`). */
  line(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
  kill(): void;
}

export function startDaemonProcess(args: string[], env: NodeJS.ProcessEnv): DaemonProcess {
  const child = spawn(process.execPath, [...startFlags(), CLI, 'run', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? -1)));
  const lines = (sink: string[], onLine?: (line: string) => void) => {
    let rest = '';
    return (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop()!;
      for (const l of parts) {
        sink.push(l);
        onLine?.(l);
      }
    };
  };
  child.stdout!.on(
    'data',
    lines(stdout, (l) => {
      for (const w of [...waiters]) {
        const m = l.match(w.re);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    }),
  );
  child.stderr!.on('data', lines(stderr));
  return {
    child,
    stdout,
    stderr,
    exited,
    line(re, timeoutMs = 30_000) {
      for (const l of stdout) {
        const m = l.match(re);
        if (m) return Promise.resolve(m);
      }
      return new Promise((res, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line ${re} within ${timeoutMs} ms; stdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`)),
          timeoutMs,
        );
        waiters.push({ re, resolve: (m) => (clearTimeout(timer), res(m)) });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`exited (${code}) before printing ${re}; stdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`));
        });
      });
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Polls `url` until it answers `status` (bounded). */
export async function waitForStatus(url: string, status: number, timeoutMs = 30_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url);
      if (r.status === status) return r;
      last = `${r.status} ${await r.text()}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
}

/** The value of the first sample of `name` whose labels include every `labels` pair, in Prometheus text. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
