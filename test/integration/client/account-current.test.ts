// `perpbot account` for the current generation's own query types against the local venue in that dialect: activityHistory,
// riskHistory and feeTier as tables or JSON; the v1 dialect refuses them before sending anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/app/args.js';
import { account } from '../../../src/app/commands/account.js';
import { ConfigError } from '../../../src/core/errors.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';

const OWNER = Keypair.generate().publicKey;
let venue: Venue;
const args = (...extra: string[]) => ['--user', OWNER, '--url', venue.url, '--ws-url', venue.wsUrl, '--dialect', 'current', ...extra];

beforeAll(async () => {
  venue = await startVenue({ port: 0, flow: false, dialect: 'current' });
  venue.engine.faucet(OWNER, 2500);
});
afterAll(() => venue.close());

describe('perpbot account: the current dialect query types', () => {
  it('activityHistory as a table, feeTier of one market as JSON, riskHistory empty', async () => {
    const lines: string[] = [];
    expect(await account(['activityHistory', ...args()], (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(/^deposits, withdrawals and transfers, newest first.*:\nactivityType\s+status\s+from\s+to\s+symbol\s+amount/);
    expect(lines[0]).toMatch(new RegExp(`\\ndeposit\\s+completed\\s+${OWNER}\\s+USDC\\s+2500\\s`));
    expect(await account(['feeTier', ...args('--symbol', 'ETH-USD', '--json')], (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[1]!)).toEqual([{ feeTier: expect.objectContaining({ scopeInstrument: 'ETH-USD', tierIndex: 0 }) }]);
    expect(await account(['riskHistory', ...args('--json')], (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines[2]!)).toEqual([]);
  });

  it('the v1 dialect refuses them naming the dialect; --symbol goes with feeTier only', async () => {
    await expect(account(['activityHistory', ...args().slice(0, -2)], () => {})).rejects.toThrow(ConfigError);
    await expect(account(['activityHistory', ...args().slice(0, -2)], () => {})).rejects.toThrow(
      /dialect: activityHistory is a query of the current dialect only/,
    );
    await expect(account(['fills', ...args('--symbol', 'BTC-USD')], () => {})).rejects.toThrow(UsageError);
  });
});
