// V8 tiering for a trading process: at tens of ticks a second V8 11's default TurboFan budget leaves most of the
// tick-to-trade path in baseline code for minutes. Invariant: only flags known to the running V8 are set.

import { setFlagsFromString } from 'node:v8';

/**
 * Lowers V8 11's TurboFan interrupt budget (Node 20) to 4 KB of bytecode, so the hot path is optimized within seconds.
 * Later V8s (Node 22+) replaced that flag and tier up through Maglev; they are left as they are.
 */
export function tuneJitForTrading(): void {
  if (Number(process.versions.v8.split('.')[0]) === 11) setFlagsFromString('--interrupt-budget=4096');
}
