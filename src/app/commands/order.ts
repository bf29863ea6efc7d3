// `perpbot order place|cancel|cancel-all`: sign one order action with a durable nonce and submit it once.
// Invariant: every argument is validated (by the codec) before anything is signed; outcomes are never retried.

import type { OrderSpec } from '../../core/intent.js';
import { TIFS } from '../../core/types.js';
import { oneOf, parseCommand, UsageError } from '../args.js';
import { cancelAction, cancelAllAction, placeAction } from './actions.js';
import { positiveNumber, submitAction, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const orderHelp = `perpbot order place SYMBOL buy|sell SIZE [--price PX] [--tif GTC|IOC|ALO] [--reduce-only] [--cloid HASH]
perpbot order place SYMBOL buy|sell SIZE --trigger PX [--limit PX] [--take-profit] [--reduce-only] [--cloid HASH]
perpbot order cancel SYMBOL ORDER_ID
perpbot order cancel-all [SYMBOL...]

place: a limit order at --price (default time in force GTC), or a market order without --price (its price is 0.0).
  --trigger PX   a conditional order, parked until the mark price reaches PX: then a market order, or a GTC limit
                 order at --limit PX (stop-limit). A stop by default (a sell fires at or below PX, a buy at or above);
  --take-profit  the other way (a sell fires at or above PX, a buy at or below). The current dialect takes
                 conditional orders only with --reduce-only.
cancel-all without symbols cancels every open order of the account.
  --account PK   the traded account when the key is one of its agents (default: the key's own)

${VENUE_HELP}`;

type TriggerOptions = { trigger?: string; limit?: string; 'take-profit'?: boolean; price?: string; tif?: string };

/** A plain order: the trigger-only options are refused. */
function plainOrder(spec: OrderSpec, values: TriggerOptions): OrderSpec {
  if (values.limit !== undefined) throw new UsageError('--limit is the limit price of a trigger order (with --trigger); a plain limit order takes --price');
  if (values['take-profit']) throw new UsageError('--take-profit needs --trigger PX');
  return spec;
}

/** A stop or take-profit at --trigger: a market order when fired (price 0.0), or a stop-limit at --limit. */
function triggerOrder(spec: OrderSpec, values: TriggerOptions): OrderSpec {
  if (values.price !== undefined)
    throw new UsageError('a trigger order fires as a market order, whose price is 0.0 (specification): drop --price, or give --limit PX for a stop-limit');
  if (values.tif !== undefined && values.tif !== 'GTC')
    throw new UsageError(`a trigger order waits parked until fired: --tif must be GTC; got ${JSON.stringify(values.tif)}`);
  return {
    ...spec,
    ...(values.limit !== undefined && { price: positiveNumber('--limit', values.limit) }),
    trigger: { kind: values['take-profit'] ? 'takeProfit' : 'stop', triggerPrice: positiveNumber('--trigger', values.trigger) },
  };
}

export function order(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(
    argv,
    {
      ...VENUE_OPTIONS,
      price: { type: 'string' },
      tif: { type: 'string' },
      'reduce-only': { type: 'boolean' },
      trigger: { type: 'string' },
      limit: { type: 'string' },
      'take-profit': { type: 'boolean' },
      cloid: { type: 'string' },
      account: { type: 'string' },
    },
    true,
  );
  if (values.help) {
    out(orderHelp);
    return 0;
  }
  const venue = venueOf(values);
  const [verb, ...args] = positionals;
  const submit = (actions: unknown) => submitAction(venue, { actions, account: values.account }, out);
  switch (verb) {
    case 'place': {
      if (args.length !== 3) throw new UsageError('place takes SYMBOL buy|sell SIZE');
      const [symbol, side, size] = args as [string, string, string];
      if (side !== 'buy' && side !== 'sell') throw new UsageError(`side must be buy or sell; got ${JSON.stringify(side)}`);
      if (values.cloid !== undefined && venue.dialect === 'current') throw new UsageError('--cloid is not part of the current dialect');
      const spec: OrderSpec = {
        symbol,
        side,
        size: positiveNumber('SIZE', size),
        ...(values.price !== undefined && { price: positiveNumber('--price', values.price) }),
        tif: oneOf('tif', values.tif, TIFS, 'GTC'),
        reduceOnly: values['reduce-only'] ?? false,
      };
      return submit(placeAction(venue.dialect, values.trigger === undefined ? plainOrder(spec, values) : triggerOrder(spec, values), values.cloid));
    }
    case 'cancel':
      if (args.length !== 2) throw new UsageError('cancel takes SYMBOL ORDER_ID');
      return submit(cancelAction(venue.dialect, args[0]!, args[1]!));
    case 'cancel-all':
      return submit(cancelAllAction(venue.dialect, args));
    default:
      throw new UsageError(`expected place, cancel or cancel-all; got ${JSON.stringify(verb ?? null)}`);
  }
}
