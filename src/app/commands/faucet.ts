// `perpbot faucet`: ask a test venue for collateral (testnet and the local venue only).
// Invariant: one signed faucet action, sent once; the credited account defaults to the key's own.

import { parseCommand, UsageError } from '../args.js';
import { faucetAction } from './actions.js';
import { positiveNumber, submitAction, VENUE_HELP, VENUE_OPTIONS, venueOf, loadKey } from './connection.js';

export const faucetHelp = `perpbot faucet [--user PK] [--amount USD] [venue options]

Requests test collateral for --user (default: the key's account).

${VENUE_HELP}`;

export function faucet(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(argv, { ...VENUE_OPTIONS, user: { type: 'string' }, amount: { type: 'string' } }, true);
  if (values.help) {
    out(faucetHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const venue = venueOf(values);
  const user = values.user ?? loadKey(venue).publicKey;
  const amount = values.amount === undefined ? undefined : positiveNumber('--amount', values.amount);
  return submitAction(venue, { actions: faucetAction(venue.dialect, user, amount) }, out);
}
