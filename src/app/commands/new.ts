// `perpbot new strategy NAME [--dir DIR]`: writes a starting strategy, its vitest test and a config that runs it on the local venue.
// Invariants: never overwrites a file (all three are checked before any is written); the files import only `perpbot` and `perpbot/testing`.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseCommand, UsageError } from '../args.js';

export const newHelp = `perpbot new strategy NAME [--dir DIR]

Writes DIR/NAME.ts (a strategy: one bid and one ask around the mid), DIR/NAME.test.ts (its test, run
with vitest on scripted books in virtual time) and DIR/NAME.yaml (a daemon config that runs it on the
embedded local venue). NAME: lower-case words joined by dashes (my-strategy). DIR defaults to strategies.
Refuses to overwrite any existing file. Then:
  npx vitest run DIR/NAME.test.ts
  npx perpbot run --config DIR/NAME.yaml`;

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;

function strategySource(name: string): string {
  return `// ${name}: one bid and one ask, offsetUsd away from the mid, re-quoted when the book changes.
import { map } from 'rxjs';
import { defineStrategy, mid, roundToTick, schema as s, stamp, symbolSchema } from 'perpbot';

export default defineStrategy({
  name: '${name}',
  params: s.object({ symbol: symbolSchema, size: s.number({ gt: 0 }), offsetUsd: s.number({ gt: 0 }) }, { strict: true }),
  symbols: (p) => [p.symbol],
  orderSizes: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  create(ctx, p) {
    const { tickSizeUsd } = ctx.rules(p.symbol);
    return ctx.market.book$(p.symbol).pipe(
      map((book) => {
        const m = mid(book);
        const quotes =
          m === undefined
            ? []
            : [
                { side: 'buy' as const, price: roundToTick(m - p.offsetUsd, tickSizeUsd, 'down'), size: p.size },
                { side: 'sell' as const, price: roundToTick(m + p.offsetUsd, tickSizeUsd, 'up'), size: p.size },
              ];
        return { kind: 'quoteSet' as const, symbol: p.symbol, quotes, ...stamp(book) };
      }),
    );
  },
});
`;
}

function testSource(name: string): string {
  return `import { testStrategy } from 'perpbot/testing';
import { describe, expect, it } from 'vitest';
import strategy from './${name}.js';

describe('${name}', () => {
  it('quotes offsetUsd around the mid, on the tick', () => {
    const t = testStrategy(strategy, { symbol: 'BTC-USD', size: 0.001, offsetUsd: 50 });
    t.book('BTC-USD', [[99_990, 1]], [[100_010.05, 1]]);
    expect(t.quotes('BTC-USD')).toEqual([
      { side: 'buy', price: 99_950, size: 0.001 },
      { side: 'sell', price: 100_050.1, size: 0.001 },
    ]);
  });

  it('pulls its quotes when a side of the book is empty', () => {
    const t = testStrategy(strategy, { symbol: 'BTC-USD', size: 0.001, offsetUsd: 50 });
    t.book('BTC-USD', [[99_990, 1]], []);
    expect(t.quotes('BTC-USD')).toEqual([]);
    expect(t.status.state).toBe('running');
  });
});
`;
}

function configSource(name: string): string {
  return `# Runs ${name} on the embedded local venue (paper trading): npx perpbot run --config <this file>
# Every key is documented in perpbot's config/default.yaml; relative paths start from this file's directory.
venue:
  mode: local
accounts:
  - name: main
    keyFile: ./data/main.key # created on first run (mode 0600)
    createKey: true
    faucetUsd: 100000 # test collateral, USD
journal:
  path: ./data/${name}.sqlite
telemetry:
  port: 0 # metrics on a free port (the banner prints it)
strategies:
  - module: ./${name}.ts
    params:
      symbol: BTC-USD
      size: 0.001 # BTC per quote
      offsetUsd: 50 # distance of each quote from the mid, USD
`;
}

export function newCommand(argv: string[], out: (line: string) => void): number {
  const { values, positionals } = parseCommand(argv, { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, true);
  if (values.help) {
    out(newHelp);
    return 0;
  }
  const [kind, name, ...extra] = positionals;
  if (kind !== 'strategy') throw new UsageError(`expected "new strategy NAME", got ${JSON.stringify(kind ?? '')}`);
  if (name === undefined) throw new UsageError('missing NAME (lower-case words joined by dashes, e.g. my-strategy)');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (!NAME.test(name) || name.length > MAX_NAME_LENGTH)
    throw new UsageError(`NAME must be lower-case words joined by dashes (a-z, 0-9), at most ${MAX_NAME_LENGTH} characters; got ${JSON.stringify(name)}`);
  if (values.dir === '') throw new UsageError('--dir needs a directory');
  const dir = values.dir ?? 'strategies';
  const files: ReadonlyArray<readonly [string, string]> = [
    [join(dir, `${name}.ts`), strategySource(name)],
    [join(dir, `${name}.test.ts`), testSource(name)],
    [join(dir, `${name}.yaml`), configSource(name)],
  ];
  const existing = files.map(([file]) => file).filter((file) => existsSync(file));
  if (existing.length > 0) throw new UsageError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; refusing to overwrite`);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of files) writeFileSync(file, text, { flag: 'wx' });
  for (const [file] of files) out(`wrote ${relative(process.cwd(), file) || file}`);
  out(`test it:  npx vitest run ${join(dir, `${name}.test.ts`)}`);
  out(`run it:   npx perpbot run --config ${join(dir, `${name}.yaml`)}`);
  return 0;
}
