// Bench `venue-http`: signed single-order actions accepted per second over loopback HTTP (load from
// another process) beside raw node:crypto Ed25519 verify in the same run; WebSocket fan-out to 10.

import { spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startVenue } from '../src/venue-sim/server/index.js';
import { compareRates, median, report } from './lib.js';
import { keyForConnection } from './support/keys.js';

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = 5;
const ORDERS = 16_000;
const CONNECTIONS = 4;
const FANOUT_CLIENTS = 10;
const FANOUT_MESSAGES = 20_000;

/** Runs a support script, resolving with its parsed JSON line; `onReady` runs when it prints "ready". */
function child(script: string, args: string[], onReady?: () => Promise<void>): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(here, 'support', script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: p.stdout });
    lines.on('line', (line) => {
      if (line === 'ready') onReady?.().catch(reject);
      else resolve(JSON.parse(line) as Record<string, number>);
    });
    p.on('exit', (code) => code !== 0 && reject(new Error(`${script} exited with ${code}`)));
  });
}

function nativeVerifyRate(): number {
  const seed = Buffer.alloc(32, 5);
  const privateKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const message = Buffer.alloc(140, 7);
  const signature = sign(null, message, privateKey);
  return compareRates({ verify: () => void verify(null, message, publicKey, signature) }, 3, 200).verify!;
}

async function ordersRun(seedHex: string): Promise<number> {
  const venue = await startVenue({ flow: false, seed: 1 });
  try {
    for (let i = 0; i < CONNECTIONS; i++) venue.engine.faucet(keyForConnection(seedHex, i).publicKey, 1e8);
    const r = await child('http-load.js', [venue.url, seedHex, String(ORDERS), String(CONNECTIONS)]);
    if (r.accepted !== ORDERS) throw new Error(`only ${r.accepted} of ${ORDERS} orders were accepted`);
    return r.ordersPerS!;
  } finally {
    await venue.close();
  }
}

async function fanoutRun(): Promise<number> {
  const venue = await startVenue({ flow: false, seed: 1 });
  try {
    const data = {
      trades: [
        { s: 'ETH-USD', px: 2500.5, sz: 0.25, time: 1_763_770_000_000, side: true, maker: 'A'.repeat(44), taker: 'B'.repeat(44), reason: null, liq: false },
      ],
    };
    const publish = async () => {
      for (let i = 0; i < FANOUT_MESSAGES; i += 200) {
        for (let k = 0; k < 200; k++) venue.hub.publish('trades.ETH-USD', 'trades', data);
        await new Promise((r) => setImmediate(r));
      }
    };
    const r = await child('ws-clients.js', [venue.wsUrl, String(FANOUT_CLIENTS), String(FANOUT_MESSAGES)], publish);
    return r.received! / r.seconds!;
  } finally {
    await venue.close();
  }
}

/** One unreported run first: JIT warm-up of the venue path and the worker. */
await ordersRun(Buffer.alloc(32, 9).toString('hex'));
const verifyRates: number[] = [];
const orderRates: number[] = [];
const ratios: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const seedHex = Buffer.alloc(32, 10 + r).toString('hex');
  const before = nativeVerifyRate();
  const orders = await ordersRun(seedHex);
  const native = (before + nativeVerifyRate()) / 2;
  verifyRates.push(native);
  orderRates.push(orders);
  ratios.push(orders / native);
}
const fanout: number[] = [];
for (let r = 0; r < 3; r++) fanout.push(await fanoutRun());

report('venue-http', 'orders_per_s', median(orderRates), 'orders/s');
report('venue-http', 'native_verify_per_s', median(verifyRates), 'verifies/s');
report('venue-http', 'verify_ratio', median(ratios), 'ratio');
report('venue-http', 'ws_fanout_msgs_per_s', median(fanout), 'msgs/s');
