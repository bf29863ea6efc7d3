// `perpbot agent add|remove PK`: authorize or revoke an agent wallet that may sign for the account.
// Invariant: only the account's own key may do this (the venue refuses an agent).

import { parseCommand, UsageError } from '../args.js';
import { agentAction } from './actions.js';
import { submitAction, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const agentHelp = `perpbot agent add|remove PK [venue options]

Authorizes (add) or revokes (remove) the agent key PK for the account of --key.

${VENUE_HELP}`;

export function agent(argv: string[], out: (line: string) => void): Promise<number> | number {
  const { values, positionals } = parseCommand(argv, VENUE_OPTIONS, true);
  if (values.help) {
    out(agentHelp);
    return 0;
  }
  const [verb, pk, ...extra] = positionals;
  if ((verb !== 'add' && verb !== 'remove') || !pk || extra.length) throw new UsageError('expected add PK or remove PK');
  const venue = venueOf(values);
  return submitAction(venue, { actions: agentAction(venue.dialect, pk, verb === 'remove') }, out);
}
