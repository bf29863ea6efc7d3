import { describe, expect, it } from 'vitest';
import { durationMs, oneOf, required, seedOf, UsageError } from '../../../src/app/args.js';
import { backtest } from '../../../src/app/commands/backtest.js';
import { record } from '../../../src/app/commands/record.js';
import { parseSweepArgs, parseMergeArgs } from '../../../src/app/commands/sweep.js';

const usage = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error('no UsageError');
};

describe('command-line options', () => {
  it('required names the option and what it takes, and passes a given value through', () => {
    expect(usage(() => required('config', undefined))).toBe('--config FILE is required');
    expect(usage(() => required('out', undefined, 'DIR'))).toBe('--out DIR is required');
    expect(required('config', 'a.yaml')).toBe('a.yaml');
  });

  it('seedOf defaults to 1 and refuses what is not a non-negative integer', () => {
    expect(seedOf(undefined)).toBe(1);
    expect(seedOf('42')).toBe(42);
    for (const bad of ['-1', '1.5', 'x', '1e20']) expect(usage(() => seedOf(bad))).toBe(`--seed must be a non-negative integer, got ${JSON.stringify(bad)}`);
  });

  it('oneOf and durationMs', () => {
    expect(oneOf('metric', undefined, ['a', 'b'], 'a')).toBe('a');
    expect(usage(() => oneOf('metric', 'c', ['a', 'b'], 'a'))).toBe('--metric must be one of a, b; got "c"');
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('1.5h')).toBe(5_400_000);
    expect(durationMs('10')).toBeUndefined();
  });

  it('the backtest, sweep and record commands name the missing option', async () => {
    await expect(backtest(['--config', 'c.yaml'], () => {})).rejects.toThrow('--data FILE is required');
    await expect(backtest(['--data', 'd.rec'], () => {})).rejects.toThrow('--config FILE is required');
    await expect(backtest(['--data', 'd.rec', '--config', 'c.yaml', '--seed=-2'], () => {})).rejects.toThrow('--seed must be a non-negative integer, got "-2"');
    expect(usage(() => parseSweepArgs(['--grid', 'g.yaml', '--data', 'd.rec']))).toBe('--config FILE is required');
    expect(usage(() => parseSweepArgs(['--config', 'c.yaml', '--data', 'd.rec']))).toBe('--grid FILE is required');
    expect(usage(() => parseSweepArgs(['--config', 'c.yaml', '--grid', 'g.yaml']))).toBe('--data FILE is required');
    expect(usage(() => parseMergeArgs(['a', 'b']))).toBe('--out DIR is required');
    await expect(record(['--synthetic', '--duration', '1m'], () => {})).rejects.toThrow('--out FILE is required');
  });
});
