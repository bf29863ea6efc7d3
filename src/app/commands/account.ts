// `perpbot account <type> --user PK`: one of the six account queries, as tables or JSON.
// Invariant: read-only (no key, no signature); the answer is validated before it is printed.

import { stringifyJson } from '../../core/json.js';
import { ACCOUNT_QUERY_TYPES, type AccountQueryType } from '../../protocol/v1/account.js';
import { parseCommand, UsageError } from '../args.js';
import { formatTable, type Row } from './table.js';
import { httpClient, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

export const accountHelp = `perpbot account <${ACCOUNT_QUERY_TYPES.join('|')}> --user PK [venue options]

Queries the venue's account endpoint (no signature needed) and prints the rows.
  --user PK   the account's base58 public key

${VENUE_HELP}`;

export async function account(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseCommand(argv, { ...VENUE_OPTIONS, user: { type: 'string' } }, true);
  if (values.help) {
    out(accountHelp);
    return 0;
  }
  const [type, ...extra] = positionals;
  if (!type || !(ACCOUNT_QUERY_TYPES as readonly string[]).includes(type)) throw new UsageError(`expected one of ${ACCOUNT_QUERY_TYPES.join(', ')}; got ${JSON.stringify(type ?? null)}`);
  if (extra.length) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (!values.user) throw new UsageError('--user is required');
  const venue = venueOf(values);
  const http = httpClient(venue);
  try {
    const rows = await http.account(type as AccountQueryType, values.user);
    if (venue.json) out(stringifyJson(rows));
    else out(render(type as AccountQueryType, rows));
    return 0;
  } finally {
    http.close();
  }
}

function render(type: AccountQueryType, rows: readonly Record<string, unknown>[]): string {
  if (type !== 'fullAccount') return formatTable(rows.map((r) => Object.values(r)[0] as Row));
  return rows
    .map((r) => {
      const a = (r as { fullAccount: { positions: Row[]; openOrders: Row[]; marginSummary: { positions: Row[] }; settings: { maxLeverage: [string, number][] } } }).fullAccount;
      const leverage = a.settings.maxLeverage.map(([symbol, maxLeverage]) => ({ symbol, maxLeverage }));
      return [
        `positions:\n${formatTable(a.positions)}`,
        `open orders:\n${formatTable(a.openOrders)}`,
        `collateral:\n${formatTable(a.marginSummary.positions)}`,
        `leverage:\n${formatTable(leverage)}`,
      ].join('\n\n');
    })
    .join('\n');
}
