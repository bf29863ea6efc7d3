// `perpbot order place|cancel|cancel-all`: sign one order action with a durable nonce and submit it once.
// Invariant: every argument is validated (by the codec) before anything is signed; outcomes are never retried.

import { TIFS } from '../../core/types.js';
import { oneOf, parseCommand, UsageError } from '../args.js';
import { cancelAction, cancelAllAction, placeAction } from './actions.js';
import { positiveNumber, submitAction, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const orderHelp = `perpbot order place SYMBOL buy|sell SIZE [--price PX] [--tif GTC|IOC|ALO] [--reduce-only] [--cloid HASH]
perpbot order cancel SYMBOL ORDER_ID
perpbot order cancel-all [SYMBOL...]

place: a limit order at --price (default time in force GTC), or a market order without --price.
cancel-all without symbols cancels every open order of the account.
  --account PK   the traded account when the key is one of its agents (default: the key's own)

${VENUE_HELP}`;

export function order(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(
    argv,
    {
      ...VENUE_OPTIONS,
      price: { type: 'string' },
      tif: { type: 'string' },
      'reduce-only': { type: 'boolean' },
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
      return submit(
        placeAction(
          venue.dialect,
          {
            symbol,
            side,
            size: positiveNumber('SIZE', size),
            ...(values.price !== undefined && { price: positiveNumber('--price', values.price) }),
            tif: oneOf('tif', values.tif, TIFS, 'GTC'),
            reduceOnly: values['reduce-only'] ?? false,
          },
          values.cloid,
        ),
      );
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
