// The checks of a config against the venue's markets, on loaded strategies: declarations a plugin gets wrong are problems
// of its module; sizes off the lot grid are judged after rounding.
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { marketRuleFindings } from '../../../../src/app/config/checks.js';
import { defineStrategy, schema as s } from '../../../../src/strategy/api.js';
import { loadStrategy, type LoadedStrategy } from '../../../../src/strategy/loader.js';

const markets = new Map([['BTC-USD', { symbol: 'BTC-USD', tickSizeUsd: 0.1, lotSizeBase: 0.0001, minNotionalUsd: 10, maxLeverage: 50 }]]);

function loaded(orderSizes: (p: unknown) => unknown): LoadedStrategy {
  const definition = defineStrategy({ name: 'odd', params: s.object({}), symbols: () => ['BTC-USD'], orderSizes: orderSizes as never, create: () => EMPTY });
  return { name: 'odd', module: 'odd', file: 'odd.ts', definition: definition as LoadedStrategy['definition'], params: {}, symbols: ['BTC-USD'] };
}

describe('marketRuleFindings', () => {
  it('defineStrategy refuses declarations that are not functions', () => {
    expect(() => defineStrategy({ name: 'odd', params: s.object({}), orderSizes: [] as never, create: () => EMPTY })).toThrow(
      'strategy odd: orderSizes must be a function of the params',
    );
    expect(() => defineStrategy({ name: 'odd', params: s.object({}), maxPositions: 1 as never, create: () => EMPTY })).toThrow(
      'strategy odd: maxPositions must be a function of the params',
    );
  });

  it('reports a declaration that throws or returns a malformed list as a problem of the module', () => {
    const found = marketRuleFindings(
      [
        loaded(() => {
          throw new Error('boom');
        }),
        loaded(() => [{ symbol: 'BTC-USD', size: -1, key: 'size' }]),
      ],
      markets,
    );
    expect(found.errors).toEqual([
      { field: 'strategies[0].module', message: 'odd: orderSizes(params) threw: boom' },
      {
        field: 'strategies[1].module',
        message: 'odd: orderSizes(params) must return [{symbol, size > 0, key}], got [{"symbol":"BTC-USD","size":-1,"key":"size"}]',
      },
    ]);
  });

  it('checks the minimum notional only with mids, on the lot grid, and warns when a market has no mid', async () => {
    const mm = await loadStrategy({ module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.00019, maxPosition: 0.01 } });
    expect(marketRuleFindings([mm], markets)).toEqual({ errors: [], warnings: [] });
    expect(marketRuleFindings([mm], markets, new Map([['BTC-USD', 90_000]])).errors).toEqual([
      {
        field: 'strategies[0].params.size',
        message:
          '0.00019 (0.0001 on the lot grid) × mid 90000 = 9.00 USD is below the minimum notional 10 USD of BTC-USD: the venue refuses such orders (a size of at least 0.0002 is needed)',
      },
    ]);
    expect(marketRuleFindings([mm], markets, new Map())).toEqual({
      errors: [],
      warnings: [
        { field: 'strategies[0].params.size', message: "the venue's BTC-USD book has no bid or no ask: the minimum notional (10 USD) is not checked" },
      ],
    });
  });
});
