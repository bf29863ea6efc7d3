// Runs sweep points on worker threads (node:worker_threads), each worker backtesting one point at a time.
// Invariants: every point is sent once and reported once through onResult (in finishing order); the first failed point
// or stop ends every worker (a point still running is dropped, never reported).

import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Summary } from '../../backtest/results.js';
import { ERROR_CODES, type ErrorCode, PerpbotError } from '../../core/errors.js';
import { type GridPoint, pointLabel } from './grid.js';
import type { SweepInput } from './point.js';

/** A worker's answer for one point. */
export type WorkerAnswer = { index: number; summary: Summary } | { index: number; error: { message: string; code?: ErrorCode } };

const EXT = extname(fileURLToPath(import.meta.url));
const WORKER_URL = new URL(`./worker${EXT}`, import.meta.url);

/** A worker thread running worker.ts; from TypeScript source (tests, tsx) it first registers tsx's hooks in the thread. */
function startWorker(input: SweepInput): Worker {
  if (EXT !== '.ts') return new Worker(WORKER_URL, { workerData: input });
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(boot, { eval: true, workerData: input });
}

export interface PoolOptions {
  /** Worker threads (at most one per point). */
  workers: number;
  /** Aborting ends the workers at once; runPoints then resolves 'stopped'. */
  signal?: AbortSignal;
  onResult(point: GridPoint, summary: Summary): void;
}

/** Backtests `points` on `opts.workers` threads; rejects with the first point's error (its code kept, its point named). */
export function runPoints(input: SweepInput, points: readonly GridPoint[], opts: PoolOptions): Promise<'done' | 'stopped'> {
  const queue = [...points];
  const byIndex = new Map(points.map((p) => [p.index, p]));
  const workers: Worker[] = [];
  return new Promise((resolve, reject) => {
    let ended = false;
    let idle = 0;
    const end = (outcome: 'done' | 'stopped' | Error) => {
      if (ended) return;
      ended = true;
      opts.signal?.removeEventListener('abort', stop);
      void Promise.all(workers.map((w) => w.terminate())).then(() => (outcome instanceof Error ? reject(outcome) : resolve(outcome)));
    };
    const stop = () => end('stopped');
    const feed = (w: Worker) => {
      const next = queue.shift();
      if (next !== undefined) w.postMessage(next);
      else if (++idle === workers.length) end('done');
    };
    if (opts.signal?.aborted || points.length === 0) return resolve(opts.signal?.aborted ? 'stopped' : 'done');
    opts.signal?.addEventListener('abort', stop, { once: true });
    for (let i = 0; i < Math.max(1, Math.min(opts.workers, points.length)); i++) {
      const w = startWorker(input);
      workers.push(w);
      w.on('message', (answer: WorkerAnswer) => {
        if (ended) return;
        const point = byIndex.get(answer.index)!;
        if ('error' in answer) {
          const code = answer.error.code !== undefined && ERROR_CODES.includes(answer.error.code) ? answer.error.code : undefined;
          const message = `grid point ${point.index} (${pointLabel(input.grid, point)}): ${answer.error.message}`;
          end(code ? new PerpbotError(code, message) : new Error(message));
          return;
        }
        opts.onResult(point, answer.summary);
        feed(w);
      });
      w.on('error', (e) => end(e));
      w.on('exit', (code) => end(new Error(`a sweep worker exited (code ${code}) before the sweep ended`)));
    }
    for (const w of workers) feed(w);
  });
}
