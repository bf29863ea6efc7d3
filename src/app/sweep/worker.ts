// The body of a sweep worker thread (pool.ts starts it): backtests the points it is sent, one at a time, and answers
// each with its summary or its error. Invariant: one answer per point, in the order the points came.

import { parentPort, workerData } from 'node:worker_threads';
import { PerpbotError } from '../../core/errors.js';
import type { GridPoint } from './grid.js';
import { runPoint, type SweepInput } from './point.js';
import type { WorkerAnswer } from './pool.js';

const input = workerData as SweepInput;
const port = parentPort!;
let chain = Promise.resolve();
port.on('message', (point: GridPoint) => {
  chain = chain.then(async () => {
    let answer: WorkerAnswer;
    try {
      answer = { index: point.index, summary: await runPoint(input, point) };
    } catch (e) {
      answer = { index: point.index, error: { message: e instanceof Error ? e.message : String(e), ...(e instanceof PerpbotError && { code: e.code }) } };
    }
    port.postMessage(answer);
  });
});
