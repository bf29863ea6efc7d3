// Kill-switch inputs for the risk gate: a process signal, a kill file, and handlers for HTTP endpoints.
// Invariants: each input only calls gate.halt / gate.resume (all I/O lives here, none in the engine);
// every watcher returns a disposer that removes exactly what it installed.

import { readFile } from 'node:fs/promises';
import { take } from 'rxjs';
import type { RiskGate, TradingStateChange } from './types.js';

export type Disposer = () => void;

/** Longest reason text kept from a kill file or an HTTP body, characters. */
export const MAX_REASON_LENGTH = 200;

/** One line of printable text, at most MAX_REASON_LENGTH characters; `fallback` when empty. */
export function cleanReason(raw: unknown, fallback = 'no reason given'): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  const text = typeof raw === 'string' ? raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim() : '';
  return text === '' ? fallback : text.slice(0, MAX_REASON_LENGTH);
}

/** Halts the gate whenever the process receives `signal` (the listener also stops the signal's default action). */
export function onSignal(gate: RiskGate, signal: NodeJS.Signals = 'SIGUSR2'): Disposer {
  const handler = () => gate.halt(`kill switch: signal ${signal}`);
  process.on(signal, handler);
  return () => {
    process.off(signal, handler);
  };
}

/**
 * Polls `path` every `pollMs`: while the file exists the gate is halted with the file's content as the
 * reason (an unreadable file halts too); when a file it saw is removed, the gate resumes. A file absent
 * from the start changes nothing. The first poll runs at once; the timer does not keep the process alive.
 */
export function watchKillFile(gate: RiskGate, path: string, pollMs = 1_000): Disposer {
  let present = false;
  let lastReason: string | undefined;
  let busy = false;
  let disposed = false;

  const poll = async (): Promise<void> => {
    if (busy || disposed) return;
    busy = true;
    let reason: string | undefined;
    try {
      reason = `kill file ${path}: ${cleanReason(await readFile(path, 'utf8'))}`;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      reason = code === 'ENOENT' || code === 'ENOTDIR' ? undefined : `kill file ${path}: unreadable (${code ?? String(e)})`;
    } finally {
      busy = false;
    }
    if (disposed) return;
    if (reason !== undefined) {
      if (!present || reason !== lastReason) gate.halt(reason);
      present = true;
      lastReason = reason;
    } else if (present) {
      present = false;
      lastReason = undefined;
      gate.resume(`kill file ${path} removed`);
    }
  };

  void poll();
  const timer = setInterval(() => void poll(), pollMs);
  timer.unref();
  return () => {
    disposed = true;
    clearInterval(timer);
  };
}

export interface KillSwitchHandlers {
  /** For POST /kill: halts with `reason` (any value; cleaned to one short line); answers the state after it. */
  kill(reason: unknown): TradingStateChange;
  /** For POST /resume. */
  resume(reason: unknown): TradingStateChange;
}

/** The gate's current state with the reason and time it was set. */
export function tradingState(gate: RiskGate): TradingStateChange {
  let out: TradingStateChange | undefined;
  gate.state$.pipe(take(1)).subscribe((s) => (out = s));
  return out ?? { state: gate.state, reason: 'unknown', atMs: 0 };
}

/** The daemon's HTTP endpoints call these (the HTTP layer itself lives in the app). */
export function killSwitchHandlers(gate: RiskGate): KillSwitchHandlers {
  const current = () => tradingState(gate);
  return {
    kill(reason) {
      gate.halt(`kill switch (HTTP): ${cleanReason(reason)}`);
      return current();
    },
    resume(reason) {
      gate.resume(`resume (HTTP): ${cleanReason(reason)}`);
      return current();
    },
  };
}
