import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fromBacktest, fromJournal, renderReport } from '../../../src/report/index.js';
import { Journal } from '../../../src/store/index.js';
import { cleanups } from '../../support/cleanups.js';
import { smallBacktest } from '../../support/small-backtest.js';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The first executable Chromium on PATH, /usr/bin or /bin, or undefined. */
function findChromium(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''), '/usr/bin', '/bin'];
  for (const dir of dirs)
    for (const name of NAMES) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {}
    }
  return undefined;
}

const CHROMIUM = findChromium();
if (!CHROMIUM) console.log('report browser test skipped: no chromium on PATH, /usr/bin or /bin (apt-get install chromium)');
const cleanup = cleanups();

/** A DevTools protocol session on one page of a headless Chromium this test started. */
interface Page {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Console errors, uncaught exceptions, error log entries (CSP violations) and requests that left file:. */
  readonly problems: string[];
  loaded(): Promise<void>;
}

async function openPage(): Promise<Page> {
  const profile = mkdtempSync(join(tmpdir(), 'perpbot-chromium-'));
  const child = spawn(
    CHROMIUM!,
    ['--headless=new', '--disable-gpu', '--no-sandbox', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    // A process group of its own: the cleanup kills its helper processes too, which otherwise go on writing to the
    // profile for a moment after the browser's exit (rmSync then failed with ENOTEMPTY in a CI run).
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  cleanup.push(() => rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // ESRCH: every process of the group has ended
        }
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
      }),
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`chromium printed no DevTools endpoint in 30 s:\n${text}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      text += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}):\n${text}`)));
  });
  const ws = new WebSocket(endpoint);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  cleanup.push(() => ws.close());
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  const problems: string[] = [];
  let sessionId: string | undefined;
  let onLoad: (() => void) | undefined;
  ws.on('message', (raw: Buffer) => {
    const msg = JSON.parse(raw.toString()) as { id?: number; result?: Record<string, unknown>; error?: { message: string }; method?: string; params?: any };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id)!;
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result ?? {});
      return;
    }
    const params = msg.params;
    if (msg.method === 'Runtime.consoleAPICalled' && (params.type === 'error' || params.type === 'assert'))
      problems.push(`console.${params.type}: ${params.args.map((a: { value?: unknown; description?: string }) => a.value ?? a.description).join(' ')}`);
    else if (msg.method === 'Runtime.exceptionThrown')
      problems.push(`exception: ${params.exceptionDetails.exception?.description ?? params.exceptionDetails.text}`);
    else if (msg.method === 'Log.entryAdded' && params.entry.level === 'error') problems.push(`log: ${params.entry.text}`);
    else if (msg.method === 'Network.requestWillBeSent' && !/^(file|data|about):/.test(params.request.url)) problems.push(`request: ${params.request.url}`);
    else if (msg.method === 'Page.loadEventFired') onLoad?.();
  });
  const call = (method: string, params: Record<string, unknown> = {}, session = sessionId) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params, ...(session ? { sessionId: session } : {}) }));
    });
  const { targetId } = await call('Target.createTarget', { url: 'about:blank' });
  sessionId = (await call('Target.attachToTarget', { targetId, flatten: true })).sessionId as string;
  for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await call(`${domain}.enable`);
  return {
    send: call,
    problems,
    loaded: () => new Promise<void>((resolve) => (onLoad = resolve)),
  };
}

/** What the page shows: each SVG path's `d` length by class, the charts, and the hover read-out after a pointer move. */
const INSPECT = `(() => {
  const paths = [...document.querySelectorAll('svg path')].map((p) => ({ cls: p.getAttribute('class'), d: (p.getAttribute('d') || '').length }));
  const chart = document.querySelector('svg.chart[data-t0]');
  const box = chart.getBoundingClientRect();
  chart.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, bubbles: true }));
  const tip = document.querySelector('.tip');
  return JSON.stringify({
    paths,
    charts: document.querySelectorAll('svg.chart').length,
    empty: document.querySelectorAll('svg text.empty').length,
    sections: [...document.querySelectorAll('section h2')].map((h) => h.textContent),
    tip: tip.style.display === 'block' ? tip.textContent : '',
    width: box.width,
  });
})()`;

interface Inspection {
  paths: { cls: string; d: number }[];
  charts: number;
  empty: number;
  sections: string[];
  tip: string;
  width: number;
}

async function inspect(file: string): Promise<{ page: Inspection; problems: string[] }> {
  const page = await openPage();
  await page.send('Emulation.setDeviceMetricsOverride', { width: 1366, height: 768, deviceScaleFactor: 1, mobile: false });
  const loaded = page.loaded();
  await page.send('Page.navigate', { url: pathToFileURL(file).href });
  await loaded;
  const r = (await page.send('Runtime.evaluate', { expression: INSPECT, returnByValue: true })) as { result: { value: string } };
  return { page: JSON.parse(r.result.value) as Inspection, problems: page.problems };
}

const SECTIONS = ['Summary', 'Equity and drawdown', 'Position over time', 'Price and own fills', 'PnL split', 'Fill ratio', 'Per symbol'];

describe('the HTML report in a real browser', () => {
  it.skipIf(!CHROMIUM)(
    CHROMIUM ? 'a backtest report renders every chart, runs its script without errors and loads nothing from the network' : 'skipped: no chromium binary',
    async () => {
      const dir = await smallBacktest(3, 2_000, 20_000);
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'report.html');
      writeFileSync(file, renderReport(fromBacktest(dir)));
      const { page, problems } = await inspect(file);
      expect(problems).toEqual([]);
      expect(page.sections).toEqual(SECTIONS);
      expect(page.charts).toBe(6); // equity, drawdown, position, price, PnL split, fill ratio
      expect(page.empty).toBe(0);
      for (const cls of ['eq line', 'neg line', 'neg area', 'pos line', 'px line', 'buy marker', 'sell marker', 'pos', 'col'])
        expect(page.paths.find((p) => p.cls === cls)?.d ?? 0, cls).toBeGreaterThan(10);
      expect(page.tip).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · -?[\d.e+-]+ USD$/);
      expect(page.width).toBeGreaterThan(900);
    },
    120_000,
  );

  it.skipIf(!CHROMIUM)(
    CHROMIUM ? 'a journal report renders too' : 'skipped: no chromium binary',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'perpbot-report-browser-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const path = join(dir, 'journal.sqlite');
      const journal = Journal.open(path);
      const account = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
      for (let i = 0; i < 40; i++) {
        const side = i % 2 === 0 ? 'buy' : 'sell';
        const price = 100 + Math.sin(i / 5) * 3 + (side === 'buy' ? -0.1 : 0.1);
        const atNs = BigInt(1_767_225_600_000 + i * 60_000) * 1_000_000n;
        journal.recordOrder({ account, strategy: 'mm', symbol: 'ETH-USD', orderId: `o${i}`, side, price, size: 1, filledSize: 0, status: 'placed', atNs });
        if (i % 4 !== 3)
          journal.recordFill({
            account,
            strategy: 'mm',
            symbol: 'ETH-USD',
            orderId: `o${i}`,
            side,
            price,
            size: 1,
            feeUsd: 0.01,
            maker: true,
            timeNs: atNs + 1_000n,
          });
      }
      journal.close();
      const file = join(dir, 'report.html');
      writeFileSync(file, renderReport(fromJournal(path)));
      const { page, problems } = await inspect(file);
      expect(problems).toEqual([]);
      expect(page.sections).toEqual(SECTIONS);
      for (const cls of ['eq line', 'pos line', 'px line', 'buy marker', 'sell marker', 'col'])
        expect(page.paths.find((p) => p.cls === cls)?.d ?? 0, cls).toBeGreaterThan(10);
    },
    60_000,
  );
});
