// Runs the built command line (dist/src/cli.js; npm test's pretest builds it) as a child process, as a user would.
// Invariant: the child's output is returned whole, with its exit status.

import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/src/cli.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Working directory (default: the repository). */
  cwd?: string;
  /** Added to the parent's environment. */
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin. */
  input?: string;
}

/** Runs `perpbot ARGS...` to its end. */
export function perpbotSync(args: string[], opts: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], { input: opts.input, encoding: 'utf8', cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `perpbot ARGS...` in the background; `onStderr` sees the stderr so far and may signal the child. */
export function perpbotChild(
  args: string[],
  opts: Omit<CliOptions, 'input'> = {},
  onStderr: (text: string, kill: (signal: NodeJS.Signals) => void) => void = () => {},
): Promise<CliRun> {
  const p = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env } });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d: Buffer) => (stdout += d));
  p.stderr.on('data', (d: Buffer) => {
    stderr += d;
    onStderr(stderr, (s) => p.kill(s));
  });
  return new Promise((done) => p.on('close', (status) => done({ status, stdout, stderr })));
}
