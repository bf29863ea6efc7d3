// `perpbot account <type> --user PK`: one of the account queries (the six of v1, three more in the current dialect) or the
// open positions, as titled tables or JSON.
// Invariant: read-only (no key, no signature); the answer is validated before it is printed.

import { stringifyJson } from '../../core/json.js';
import type { CurrentOnlyQueryType } from '../../protocol/current/inbound-account.js';
import { ACCOUNT_QUERY_TYPES, type AccountQueryType } from '../../protocol/v1/account.js';
import { parseCommand, UsageError } from '../args.js';
import { formatTable, type Row } from './table.js';
import { httpClient, VENUE_HELP, VENUE_OPTIONS, venueOf } from './connection.js';

/** Not a venue query type: the open positions of fullAccount. */
const OPEN_POSITIONS = 'open-positions';
const CURRENT_ONLY = ['activityHistory', 'riskHistory', 'feeTier'] as const satisfies readonly CurrentOnlyQueryType[];
const TYPES = [...ACCOUNT_QUERY_TYPES, ...CURRENT_ONLY, OPEN_POSITIONS] as const;

/** What each query lists: the title printed above its table, and the help line. */
const TITLES: Record<(typeof TYPES)[number], string> = {
  fullAccount: 'account: open positions, open orders, collateral, leverage',
  openOrders: 'open orders',
  fills: 'fills, newest first',
  positions: 'closed positions, newest first (open ones: perpbot account open-positions)',
  fundingHistory: 'funding payments, newest first',
  orderHistory: 'terminal orders (filled, cancelled, rejected), newest first',
  activityHistory: 'deposits, withdrawals and transfers, newest first (--dialect current)',
  riskHistory: 'liquidations and auto-deleveraging, newest first (--dialect current)',
  feeTier: 'fee tiers per market (--dialect current; --symbol S for one)',
  'open-positions': 'open positions',
};

export const accountHelp = `perpbot account <${TYPES.join('|')}> --user PK [venue options]

Queries the venue's account endpoint (no signature needed) and prints the rows under a title:
${TYPES.map((t) => `  ${t.padEnd(15)} ${TITLES[t]}`).join('\n')}
  --user PK   the account's base58 public key
  --symbol S  feeTier: one market's tier

${VENUE_HELP}`;

export async function account(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseCommand(argv, { ...VENUE_OPTIONS, user: { type: 'string' }, symbol: { type: 'string' } }, true);
  if (values.help) {
    out(accountHelp);
    return 0;
  }
  const [type, ...extra] = positionals;
  if (!type || !(TYPES as readonly string[]).includes(type)) throw new UsageError(`expected one of ${TYPES.join(', ')}; got ${JSON.stringify(type ?? null)}`);
  if (extra.length) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (!values.user) throw new UsageError('--user is required');
  if (values.symbol !== undefined && type !== 'feeTier') throw new UsageError('--symbol goes with feeTier only');
  const venue = venueOf(values);
  const http = httpClient(venue);
  try {
    if (type === OPEN_POSITIONS) {
      const [row] = await http.account('fullAccount', values.user);
      const positions = (row as FullAccountRow | undefined)?.fullAccount.positions ?? [];
      out(venue.json ? stringifyJson(positions) : `${TITLES[OPEN_POSITIONS]}:\n${formatTable(positions)}`);
      return 0;
    }
    const rows: readonly Record<string, unknown>[] = (CURRENT_ONLY as readonly string[]).includes(type)
      ? await http.currentAccount(type as CurrentOnlyQueryType, values.user, values.symbol)
      : await http.account(type as AccountQueryType, values.user);
    if (venue.json) out(stringifyJson(rows));
    else out(`${TITLES[type as AccountQueryType | CurrentOnlyQueryType]}:\n${render(type, rows)}`);
    return 0;
  } finally {
    http.close();
  }
}

type FullAccountRow = {
  fullAccount: { positions: Row[]; openOrders: Row[]; marginSummary: { positions: Row[] }; settings: { maxLeverage: [string, number][] } };
};

function render(type: string, rows: readonly Record<string, unknown>[]): string {
  if (type !== 'fullAccount') return formatTable(rows.map((r) => Object.values(r)[0] as Row));
  return rows
    .map((r) => {
      const a = (r as FullAccountRow).fullAccount;
      const leverage = a.settings.maxLeverage.map(([symbol, maxLeverage]) => ({ symbol, maxLeverage }));
      return [
        `open positions:\n${formatTable(a.positions)}`,
        `open orders:\n${formatTable(a.openOrders)}`,
        `collateral:\n${formatTable(a.marginSummary.positions)}`,
        `leverage:\n${formatTable(leverage)}`,
      ].join('\n\n');
    })
    .join('\n');
}
