// Test harness for the local venue: real HTTP/WebSocket on loopback, requests signed with real keys.
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { systemClock } from '../../../src/core/clock.js';
import { parseJson } from '../../../src/core/json.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore, NonceSource } from '../../../src/protocol/nonce.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { v1Codec } from '../../../src/protocol/v1/codec.js';
import { startVenue, type Venue, type VenueOptions } from '../../../src/venue-sim/server/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** What a test request may carry. */
export interface RequestInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * One request on a connection of its own (no keep-alive: fetch's pool could reuse a socket of a venue that was just
 * closed and restarted on the same port, and fail with "other side closed").
 */
export function http(url: string, init: RequestInit = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
        resolve({ status: res.statusCode!, headers, body: text ? parseJson(text) : undefined, text });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

export function post(venue: Venue, path: string, body: unknown): Promise<Reply> {
  return http(`${venue.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A trader: a key, a nonce source and helpers to send signed v1 actions. */
export class Trader {
  readonly key: Keypair;
  readonly nonces: NonceSource;

  constructor(
    readonly venue: Venue,
    key = Keypair.generate(),
    readonly account = key.publicKey,
  ) {
    this.key = key;
    this.nonces = new NonceSource({ signer: key.publicKey, clock: systemClock(), store: new MemoryNonceStore() });
  }

  /** Signs `action` and returns the request's path, body text and predicted order ids. */
  sign(action: Record<string, unknown>, nonce = this.nonces.next()) {
    const signed = signRequest(v1Codec, this.key, {
      actions: action,
      account: this.account,
      signer: this.key.publicKey,
      nonce,
      network: 'mainnet',
      mode: 'raw',
    });
    return { path: signed.encoded.path, bodyText: signed.bodyText, orderIds: signed.encoded.orderIds };
  }

  async send(action: Record<string, unknown>, nonce?: bigint): Promise<Reply & { orderIds: (string | null)[] }> {
    const s = this.sign(action, nonce);
    return { ...(await post(this.venue, s.path, s.bodyText)), orderIds: s.orderIds };
  }

  faucet(amount?: number) {
    return this.send({ type: 'faucet', user: this.account, ...(amount === undefined ? {} : { amount }) });
  }

  limit(symbol: string, isBuy: boolean, px: number, sz: number, tif: 'GTC' | 'IOC' | 'ALO' = 'GTC', reduceOnly = false) {
    return { order: { c: symbol, b: isBuy, px, sz, r: reduceOnly, t: { limit: { tif } } } };
  }

  market(symbol: string, isBuy: boolean, sz: number, reduceOnly = false) {
    return { order: { c: symbol, b: isBuy, px: 0, sz, r: reduceOnly, t: { trigger: { is_market: true, triggerPx: 0 } } } };
  }

  orders(...items: unknown[]) {
    return this.send({ type: 'order', orders: items });
  }

  async query(type: string, user = this.account): Promise<any[]> {
    const r = await post(this.venue, '/account', { type, user });
    if (r.status !== 200) throw new Error(`query ${type}: ${r.status} ${r.text}`);
    return r.body;
  }
}

export function quietVenue(opts: VenueOptions = {}): Promise<Venue> {
  return startVenue({ flow: false, ...opts });
}

/** A WebSocket client that records parsed messages; `until` waits for a condition on them. */
export class WsClient {
  readonly messages: any[] = [];
  private waiters: Array<() => void> = [];
  readonly ws: WebSocket;

  private constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (d) => {
      this.messages.push(parseJson(String(d)));
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string): Promise<WsClient> {
    const c = new WsClient(url);
    await new Promise((resolve, reject) => c.ws.once('open', resolve).once('error', reject));
    return c;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Resolves with the first message (from index `from`) matching `pred`, or rejects after `timeoutMs`. */
  async until(pred: (m: any) => boolean, timeoutMs = 5000, from = 0): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(pred);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; last messages: ${JSON.stringify(this.messages.slice(-3)).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}
