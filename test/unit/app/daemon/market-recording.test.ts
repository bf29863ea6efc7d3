// The daemon's record: section: its path is taken from the config file's directory, its symbols are checked, and an
// existing recording is never overwritten (the next free name is used).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDaemonConfig } from '../../../../src/app/config/index.js';
import { freePath } from '../../../../src/app/daemon/market-recording.js';

const MINIMAL = ['accounts:', '  - name: main', '    keyFile: main.key', 'strategies:', '  - module: market-maker', ''].join('\n');

describe('record: in the daemon config', () => {
  it('is absent by default; out is resolved from the config directory; symbols are symbols', () => {
    expect(parseDaemonConfig(MINIMAL, 'a.yaml', { baseDir: '/etc/perpbot', env: {} }).record).toBeUndefined();
    const withRecord = `${MINIMAL}record: {out: data/md.rec, symbols: [BTC-USD]}\n`;
    expect(parseDaemonConfig(withRecord, 'a.yaml', { baseDir: '/etc/perpbot', env: {} }).record).toEqual({
      out: '/etc/perpbot/data/md.rec',
      symbols: ['BTC-USD'],
    });
    expect(() => parseDaemonConfig(`${MINIMAL}record: {out: md.rec, symbols: [btc]}\n`, 'a.yaml', { baseDir: '/', env: {} })).toThrow(/record\.symbols\[0\]/);
    expect(() => parseDaemonConfig(`${MINIMAL}record: {symbols: [BTC-USD]}\n`, 'a.yaml', { baseDir: '/', env: {} })).toThrow(/record\.out/);
  });

  it('freePath keeps a free name and numbers a taken one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-free-path-'));
    const path = join(dir, 'market.rec');
    expect(freePath(path)).toBe(path);
    writeFileSync(path, '');
    writeFileSync(join(dir, 'market-1.rec'), '');
    expect(freePath(path)).toBe(join(dir, 'market-2.rec'));
  });
});
