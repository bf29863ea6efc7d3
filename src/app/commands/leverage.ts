// `perpbot leverage SYMBOL X`: set the account's maximum leverage for one market (the venue clamps it).
// Invariant: one signed updateUserSettings action, sent once.

import { parseCommand, UsageError } from '../args.js';
import { leverageAction } from './actions.js';
import { positiveNumber, submitAction, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const leverageHelp = `perpbot leverage SYMBOL X [--account PK] [venue options]

Sets the maximum leverage of SYMBOL to X (the venue clamps it to 1..50 and the market's maximum).

${VENUE_HELP}`;

export function leverage(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(argv, { ...VENUE_OPTIONS, account: { type: 'string' } }, true);
  if (values.help) {
    out(leverageHelp);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('expected SYMBOL X');
  const venue = venueOf(values);
  const [symbol, x] = positionals as [string, string];
  return submitAction(venue, { actions: leverageAction(venue.dialect, symbol, positiveNumber('X', x)), account: values.account }, out);
}
