import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig } from '../../../src/app/config/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const builtins = readdirSync(join(ROOT, 'strategies'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''));

describe('config/examples/<strategy>.yaml', () => {
  it.each(builtins)('%s has an example config that check-config accepts, running that strategy', async (name) => {
    const path = join(ROOT, 'config/examples', `${name}.yaml`);
    expect(existsSync(path)).toBe(true);
    const { config, strategies } = await checkDaemonConfig(path, {});
    expect(config.venue.mode).toBe('local');
    expect(strategies.map((s) => s.definition.name)).toEqual([name]);
  });
});
