import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../../src/store/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
/** Committed ids the parent reads before it kills the writer. */
const KILL_AFTER = 300;

/** Records, commits and prints forever: a batch per iteration, a flushed fill, and a nonce mark every tenth. */
const CHILD = `
const [moduleUrl, path] = process.argv.slice(2);
const { Journal } = await import(moduleUrl);
const journal = Journal.open(path);
for (let i = 1; ; i++) {
  if (i % 10 === 1) journal.nonces.save('${SIGNER}', BigInt(i + 10));
  const id = journal.recordBatch({
    signer: '${SIGNER}', account: '${SIGNER}', nonceNs: BigInt(i), path: '/order', message: new Uint8Array([i & 255]),
    signature: 'sig' + i, body: '{"n":' + i + '}', orderIds: ['o' + i], atNs: BigInt(i),
  });
  journal.recordFill({
    account: '${SIGNER}', strategy: 'mm', symbol: 'BTC-USD', orderId: 'o' + i, side: 'buy', price: 100, size: 1, feeUsd: 0, maker: true,
    timeNs: BigInt(i),
  });
  journal.flush();
  process.stdout.write(i + ' ' + id + '\\n');
}
`;

let dir: string;
let moduleUrl: string;

/** Compiles the current store sources (no type check) next to a node_modules link, so the child runs this tree's code. */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perpbot-crash-'));
  const out = join(dir, 'build');
  const tsc = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '--noCheck',
      '--outDir',
      out,
      '--rootDir',
      ROOT,
      '--module',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--skipLibCheck',
      join(ROOT, 'src/store/index.ts'),
    ],
    { encoding: 'utf8' },
  );
  expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  writeFileSync(join(out, 'package.json'), '{"type":"module"}');
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'));
  moduleUrl = pathToFileURL(join(out, 'src/store/index.js')).href;
  writeFileSync(join(dir, 'child.mjs'), CHILD);
});

describe('Journal under kill -9', () => {
  it('keeps every row committed before the writer was killed mid-stream', async () => {
    const path = join(dir, 'data', 'j.sqlite');
    const child = spawn(process.execPath, [join(dir, 'child.mjs'), moduleUrl, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    const committed: [number, number][] = [];
    for await (const line of createInterface({ input: child.stdout })) {
      const [i, id] = line.split(' ').map(Number);
      committed.push([i!, id!]);
      if (committed.length === KILL_AFTER) child.kill('SIGKILL');
    }
    expect(await exited, stderr).toBe('SIGKILL');
    expect(committed.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(existsSync(`${path}-wal`)).toBe(true);

    const journal = Journal.open(path);
    try {
      const unresolved = new Map(journal.unresolvedBatches().map((b) => [b.id, b]));
      for (const [i, id] of committed) expect(unresolved.get(id), `batch ${id}`).toMatchObject({ nonceNs: BigInt(i), body: `{"n":${i}}`, orderIds: [`o${i}`] });
      const fills = new Set(journal.fills().map((f) => f.orderId));
      expect(committed.filter(([i]) => !fills.has(`o${i}`))).toEqual([]);
      const lastI = committed.at(-1)![0];
      expect(journal.nonces.load(SIGNER)!).toBeGreaterThan(BigInt(lastI));
    } finally {
      journal.close();
    }
  });
});
