import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/app/args.js';
import { parseSince, report } from '../../../../src/app/commands/report.js';
import { Journal, JournalError, type FillRecord } from '../../../../src/store/index.js';

const ACCOUNT = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
const HOUR_MS = 3_600_000;

function fill(orderId: string, side: 'buy' | 'sell', size: number, price: number, feeUsd: number, agoMs: number): FillRecord {
  return {
    account: ACCOUNT,
    strategy: 'mm',
    symbol: 'ETH-USD',
    orderId,
    side,
    price,
    size,
    feeUsd,
    maker: true,
    timeNs: BigInt(Date.now() - agoMs) * 1_000_000n,
  };
}

/** mm on ETH-USD: bought 1 @2000 (fee 1) two hours ago, sold 1 @2010 (fee 1) and was paid 0.5 funding half an hour ago. */
function scriptedJournal(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'perpbot-report-')), 'perpbot.sqlite');
  const journal = Journal.open(path);
  journal.recordFill(fill('o1', 'buy', 1, 2000, 1, 2 * HOUR_MS));
  journal.recordFill(fill('o2', 'sell', 1, 2010, 1, HOUR_MS / 2));
  journal.recordFunding({ account: ACCOUNT, symbol: 'ETH-USD', amountUsd: 0.5, rate: 0.0001, timeNs: BigInt(Date.now() - HOUR_MS / 2 - 1000) * 1_000_000n });
  for (const [orderId, side, agoMs] of [
    ['o1', 'buy', 2 * HOUR_MS],
    ['o2', 'sell', HOUR_MS / 2],
    ['o3', 'sell', HOUR_MS / 4],
  ] as const) {
    journal.recordOrder({
      account: ACCOUNT,
      strategy: 'mm',
      symbol: 'ETH-USD',
      orderId,
      side,
      price: 2000,
      size: 1,
      filledSize: 0,
      status: 'placed',
      atNs: BigInt(Date.now() - agoMs) * 1_000_000n,
    });
  }
  journal.close();
  return path;
}

async function run(argv: string[]): Promise<{ status: number; lines: string[] }> {
  const lines: string[] = [];
  const status = await report(argv, (line) => lines.push(...line.split('\n')));
  return { status, lines };
}

describe('perpbot report', () => {
  it('prints a row per strategy and symbol and a total', async () => {
    const { status, lines } = await run(['--journal', scriptedJournal()]);
    expect(status).toBe(0);
    const [header, mm, total, ...rest] = lines;
    expect(header!.split(/\s+/)).toEqual([
      'strategy',
      'symbol',
      'fills',
      'volumeUsd',
      'buySize',
      'sellSize',
      'feesUsd',
      'fundingUsd',
      'realizedPnlUsd',
      'netPnlUsd',
      'ordersPlaced',
      'ordersFilled',
      'fillRatio',
    ]);
    expect(mm!.split(/\s+/)).toEqual(['mm', 'ETH-USD', '2', '4010.0000', '1', '1', '2.0000', '0.5000', '10.0000', '8.5000', '3', '2', '66.7%']);
    expect(total!.split(/\s+/)).toEqual(['total', '2', '4010.0000', '2.0000', '0.5000', '10.0000', '8.5000', '3', '2', '66.7%']);
    expect(rest).toEqual([]);
  });

  it('--json prints the rows, the total and the unresolved batch count; --since drops older activity', async () => {
    const { lines } = await run(['--journal', scriptedJournal(), '--json', '--since', '1h']);
    const doc = JSON.parse(lines.join('\n')) as { sinceMs: number; rows: Record<string, unknown>[]; total: Record<string, unknown>; unresolvedBatches: number };
    expect(Math.abs(doc.sinceMs - (Date.now() - HOUR_MS))).toBeLessThan(60_000);
    expect(doc.rows).toEqual([
      {
        strategy: 'mm',
        symbol: 'ETH-USD',
        fills: 1,
        volumeUsd: 2010,
        buySize: 0,
        sellSize: 1,
        feesUsd: 1,
        fundingUsd: 0.5,
        realizedPnlUsd: 10,
        netPnlUsd: 9.5,
        ordersPlaced: 2,
        ordersFilled: 1,
        fillRatio: 0.5,
      },
    ]);
    expect(doc.total).toMatchObject({ strategy: 'total', netPnlUsd: 9.5, fillRatio: 0.5 });
    expect(doc.unresolvedBatches).toBe(0);
  });

  it('reads a journal another process holds open, and reports its unresolved batches', async () => {
    const path = scriptedJournal();
    const writer = Journal.open(path);
    try {
      writer.recordBatch({
        signer: ACCOUNT,
        account: ACCOUNT,
        nonceNs: 7n,
        path: '/order',
        message: new Uint8Array([1]),
        signature: 's',
        body: '{}',
        orderIds: ['o9'],
        atNs: 7n,
      });
      const { lines } = await run(['--journal', path, '--since', '2026-01-01T00:00:00Z']);
      expect(lines[0]).toBe('since 2026-01-01T00:00:00.000Z');
      expect(lines.at(-1)).toBe('unresolved batches: 1 (resolved against the venue when the bot next starts)');
    } finally {
      writer.close();
    }
  });

  it('--config reads the journal named by a daemon config (journal.path, relative to the config file)', async () => {
    const path = scriptedJournal();
    const config = join(dirname(path), 'daemon.yaml');
    writeFileSync(
      config,
      ['accounts: [{name: main, keyFile: main.key}]', 'strategies: [{module: market-maker}]', 'journal: {path: perpbot.sqlite}', ''].join('\n'),
    );
    const { status, lines } = await run(['--config', config, '--json']);
    expect(status).toBe(0);
    expect((JSON.parse(lines.join('')) as { rows: { strategy: string }[] }).rows.map((r) => r.strategy)).toEqual(['mm']);
    await expect(run(['--config', config, '--journal', path])).rejects.toThrow(UsageError);
  });

  it('prints (none) for an empty window', async () => {
    const { lines } = await run(['--journal', scriptedJournal(), '--since', '1m']);
    expect(lines.slice(1)).toEqual(['(none)']);
  });

  it('fails on a missing journal without creating it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpbot-report-')), 'absent.sqlite');
    await expect(run(['--journal', path])).rejects.toThrow(JournalError);
    await expect(run(['--journal', path])).rejects.toThrow(`no journal at ${path}`);
    expect(existsSync(path)).toBe(false);
  });

  it('--html writes the charts page of the journal to --out, from a journal another process holds open', async () => {
    const path = scriptedJournal();
    const writer = Journal.open(path);
    try {
      const out = join(dirname(path), 'page.html');
      const { status, lines } = await run(['--journal', path, '--html', '--out', out]);
      expect(status).toBe(0);
      expect(lines).toEqual([`wrote ${out}`]);
      const html = readFileSync(out, 'utf8');
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain('<h1>Journal perpbot.sqlite</h1>');
      expect(html).toContain('2 of 3 orders had a fill (66.7%)');
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    } finally {
      writer.close();
    }
  });

  it('--html refuses --since, --json, and --out without --html', async () => {
    const path = scriptedJournal();
    await expect(run(['--journal', path, '--html', '--since', '1h'])).rejects.toThrow('--html reports the whole journal');
    await expect(run(['--journal', path, '--html', '--json'])).rejects.toThrow(UsageError);
    await expect(run(['--journal', path, '--out', 'x.html'])).rejects.toThrow('--out goes with --html');
  });

  it('rejects malformed options as usage errors', async () => {
    await expect(run(['--since', 'yesterday'])).rejects.toThrow(UsageError);
    await expect(run(['extra'])).rejects.toThrow(UsageError);
    await expect(run(['--frobnicate'])).rejects.toThrow(UsageError);
  });
});

describe('parseSince', () => {
  it('reads durations back from now and ISO times', () => {
    const now = Date.UTC(2026, 10, 2);
    expect(parseSince('90s', now)).toBe(now - 90_000);
    expect(parseSince('30m', now)).toBe(now - 1_800_000);
    expect(parseSince('24h', now)).toBe(now - 86_400_000);
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('1.5h', now)).toBe(now - 5_400_000);
    expect(parseSince('2026-11-01T00:00:00Z', now)).toBe(Date.UTC(2026, 10, 1));
    expect(parseSince('2026-11-01', now)).toBe(Date.UTC(2026, 10, 1));
    expect(() => parseSince('7 days', now)).toThrow(UsageError);
    expect(() => parseSince('2026-13-45', now)).toThrow(UsageError);
  });
});
