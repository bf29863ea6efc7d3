import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { riskConfig } from '../../../src/risk/config.js';
import { createRiskGate } from '../../../src/risk/engine.js';
import { cleanReason, killSwitchHandlers, onSignal, watchKillFile, type Disposer } from '../../../src/risk/kill-switch.js';
import { cancel, FakeView, nextState, NOW_MS, place, record } from './helpers.js';

function gate() {
  const clock = new ManualClock(BigInt(NOW_MS) * 1_000_000n);
  return createRiskGate(riskConfig(), new FakeView({ 'ETH-USD': { mark: 10 } }), clock);
}

const disposers: Disposer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const d of disposers.splice(0)) d();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'perpbot-kill-'));
  dirs.push(dir);
  return dir;
}

describe('kill switch: signal', () => {
  it('halts on SIGUSR2 sent to this process; the disposer removes the listener', async () => {
    const g = gate();
    const before = process.listenerCount('SIGUSR2');
    const dispose = onSignal(g);
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    const halted = nextState(g, (s) => s.state === 'HALTED');
    process.kill(process.pid, 'SIGUSR2');
    expect(await halted).toMatchObject({ state: 'HALTED', reason: 'kill switch: signal SIGUSR2' });
    expect(g.check(place({ symbol: 'ETH-USD' }), NOW_MS)).toMatchObject({ ok: false, reason: 'HALTED' });
    expect(g.check(cancel('ETH-USD'), NOW_MS).ok).toBe(true);
    dispose();
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });
});

describe('kill switch: file', () => {
  it('halts while the file exists (its content is the reason) and resumes when it is removed', async () => {
    const g = gate();
    const states = record(g);
    const path = join(await tempDir(), 'KILL');
    disposers.push(watchKillFile(g, path, 10));
    const halted = nextState(g, (s) => s.state === 'HALTED');
    await writeFile(path, 'maintenance window\n');
    expect(await halted).toMatchObject({ state: 'HALTED', reason: `kill file ${path}: maintenance window` });
    const resumed = nextState(g, (s) => s.state === 'ACTIVE');
    await unlink(path);
    expect(await resumed).toMatchObject({ state: 'ACTIVE', reason: `kill file ${path} removed` });
    expect(states.map((s) => s.state)).toEqual(['ACTIVE', 'HALTED', 'ACTIVE']);
  });

  it('a file present at start halts at once; an empty file gets a default reason', async () => {
    const g = gate();
    const path = join(await tempDir(), 'KILL');
    await writeFile(path, '');
    const halted = nextState(g, (s) => s.state === 'HALTED');
    disposers.push(watchKillFile(g, path, 60_000));
    expect(await halted).toMatchObject({ reason: `kill file ${path}: no reason given` });
  });

  it('an absent file never resumes a gate halted by something else', async () => {
    const g = gate();
    g.halt('HTTP kill');
    const path = join(await tempDir(), 'KILL');
    const dispose = watchKillFile(g, path, 5);
    await new Promise((r) => setTimeout(r, 50)); // several polls: nothing may happen, so there is no condition to await
    dispose();
    expect(g.state).toBe('HALTED');
  });
});

describe('kill switch: HTTP handlers', () => {
  it('kill and resume answer the resulting state with the recorded reason', () => {
    const g = gate();
    const http = killSwitchHandlers(g);
    expect(http.kill('fat finger')).toEqual({ state: 'HALTED', reason: 'kill switch (HTTP): fat finger', atMs: NOW_MS });
    expect(g.state).toBe('HALTED');
    expect(http.resume(undefined)).toEqual({ state: 'ACTIVE', reason: 'resume (HTTP): no reason given', atMs: NOW_MS });
  });

  it('reasons are cleaned to one short line', () => {
    expect(cleanReason('  a\nb\tc\u0000 ')).toBe('a b c');
    expect(cleanReason('x'.repeat(500))).toHaveLength(200);
    expect(cleanReason(42)).toBe('no reason given');
  });
});
