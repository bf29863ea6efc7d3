// The local venue's YAML settings for the oracle bounds and the market flow's depth: the documented
// example loads, each key reaches the engine or the flow, and a bad value names its key and line.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockLine, venueConfigSchema, venueOptions } from '../../../src/app/venue-config.js';
import { loadYamlFile } from '../../../src/app/yaml-config.js';
import { ConfigErrors } from '../../../src/core/errors.js';

const ROOT = resolve(import.meta.dirname, '../../..');

function load(text: string) {
  const file = join(mkdtempSync(join(tmpdir(), 'perpbot-venue-config-')), 'venue.yaml');
  writeFileSync(file, text);
  return loadYamlFile(file, venueConfigSchema);
}

describe('venue config: oracle bounds', () => {
  it('config/venue.example.yaml documents the defaults, and each key reaches the engine', () => {
    const example = venueOptions(loadYamlFile(join(ROOT, 'config/venue.example.yaml'), venueConfigSchema));
    expect(example.engine).toMatchObject({ oracleMaxMove: 1, oracleMaxSkewNs: 300_000_000_000n });
    expect(venueOptions(load('oracleMaxMove: 0.2\noracleMaxSkewSeconds: 5\n')).engine).toMatchObject({ oracleMaxMove: 0.2, oracleMaxSkewNs: 5_000_000_000n });
  });

  it('a bad value names its key and line', () => {
    expect(() => load('seed: 1\noracleMaxMove: 0\n')).toThrow(ConfigErrors);
    expect(() => load('seed: 1\noracleMaxMove: 0\n')).toThrow(/oracleMaxMove \(line 2\)/);
    expect(() => load('oracleMaxSkewSeconds: 0.5\n')).toThrow(/oracleMaxSkewSeconds \(line 1\)/);
  });
});

describe('venue config: market flow depth', () => {
  it('config/venue.example.yaml documents the defaults, and the keys reach the flow', () => {
    const example = venueOptions(loadYamlFile(join(ROOT, 'config/venue.example.yaml'), venueConfigSchema));
    expect(example.flow).toMatchObject({ makers: 2, levels: 5, depthUsd: 1_000_000, levelSpacingBps: 2 });
    expect(venueOptions(load('flow:\n  depthUsd: 5000000\n  levelSpacingBps: 1.5\n')).flow).toEqual({ depthUsd: 5_000_000, levelSpacingBps: 1.5 });
  });

  it('a bad value names its key and line', () => {
    expect(() => load('flow:\n  makers: 2\n  depthUsd: 0\n')).toThrow(/flow\.depthUsd \(line 3\)/);
    expect(() => load('flow:\n  levelSpacingBps: -1\n')).toThrow(/flow\.levelSpacingBps \(line 2\)/);
  });
});

describe('perpbot venue --log-blocks', () => {
  it("prints a block's timestamp, shuffle seed, transactions (account prefix @ nonce) and execution order", () => {
    const line = blockLine({
      timestampNs: 1_700_000_000_000_000_123n,
      seed: 1_700_000_000_000_000_123n,
      transactions: [
        { account: 'AAAAAAAAzzzz', nonce: 5n, actions: 2 },
        { account: 'BBBBBBBByyyy', nonce: 9n, actions: 1 },
      ],
      order: [
        [1, 0],
        [0, 1],
        [0, 0],
      ],
    });
    expect(line).toBe('block 1700000000000000123 seed 1700000000000000123: 2 transactions [AAAAAAAA@5 BBBBBBBB@9], order 1.0 0.1 0.0');
  });
});
