// A loopback fake venue for the daemon fuzz: it forwards the daemon's HTTP requests and WebSocket subscriptions to a
// real local venue and, while fuzzing, answers with mutated versions of the venue's valid answers and injects mutated
// copies of its valid frames (and copies of the account snapshot, each of which makes the daemon reconcile over HTTP).
// Invariant: for every mutated input it records what the daemon's own decoders make of it (the count it must show).

import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { outcomeOf } from '../../../src/client/submit.js';
import { ValidationError } from '../../../src/core/errors.js';
import { parseJson } from '../../../src/core/json.js';
import { parse } from '../../../src/core/schema.js';
import { inboundCodecFor } from '../../../src/protocol/inbound.js';
import type { SignedRequest } from '../../../src/protocol/sign.js';
import { actionTypeForPath } from '../../../src/protocol/v1/actions.js';
import { exchangeInfoSchema } from '../../../src/protocol/v1/exchange-info.js';
import { bookSchema, topicsOf, type Subscription } from '../../../src/protocol/v1/stream.js';
import { JSON_MUTATIONS, mutateJson, type JsonMutation } from './mutate.js';
import type { Prng } from './prng.js';

export const ANSWER_CLASSES = [...JSON_MUTATIONS, 'framing'] as const;
export type AnswerClass = (typeof ANSWER_CLASSES)[number];
export const FRAME_CLASSES = ['binary', ...JSON_MUTATIONS, 'wrongTopic', 'invalidUtf8'] as const;
export type FrameClass = (typeof FRAME_CLASSES)[number];
/** What the daemon's decoders make of a frame: one of its invalid-frame kinds, `reconnect` (the socket fails), or `used`. */
export type FrameVerdict = 'binary' | 'malformed' | 'schema' | 'unrouted' | 'reconnect' | 'used';

export interface AnswerRow {
  cls: AnswerClass;
  sent: number;
  /** Answers the daemon cannot use (framing broken, body not JSON or failing the schema): each must be counted. */
  invalid: number;
}

export interface FrameRow {
  cls: FrameClass;
  sent: number;
  verdicts: Record<FrameVerdict, number>;
}

const v1 = inboundCodecFor('v1');
/** Answers to the daemon's own requests (never routed to a topic): injecting one would answer a request it did not make. */
const CONTROL_TYPES: ReadonlySet<string> = new Set(['subscriptionResponse', 'unsubscribeResponse', 'error']);
const API = '/api/v1';

/** True when the daemon's HTTP client cannot use this 200 answer to `path` (with request body `requestBody`). */
function answerInvalid(path: string, requestBody: string, body: string): boolean {
  const route = path.slice(API.length).split('?')[0]!;
  if (actionTypeForPath(route) !== undefined) {
    const request = { encoded: { path: route } } as unknown as SignedRequest;
    return outcomeOf('v1', request, { status: 200, body, retryAfterMs: undefined }).outcome === 'unknown';
  }
  try {
    const json = parseJson(body);
    if (route === '/account') v1.parseAccountResponse((JSON.parse(requestBody) as { type: 'openOrders' }).type, json);
    else if (route === '/exchangeInfo') parse(exchangeInfoSchema, json);
    else if (route === '/l2book') parse(bookSchema, json);
    return false;
  } catch {
    return true;
  }
}

/** Answers whose HTTP framing is broken beyond repair (both the daemon's HTTP parsers refuse them). */
function brokenFraming(prng: Prng, body: Buffer): Buffer {
  const head = prng.pick([
    `HTTP/1.1 2x0 OK\r\ncontent-length: ${body.length}\r\n\r\n`,
    `HTTP/1.1 200 OK\r\ncontent-length: ${prng.pick(['abc', '-1', '1e3', '0x10'])}\r\n\r\n`,
    `HTTP/1.1 200 OK\r\ncontent-type application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n`,
    `HTTX/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`,
  ]);
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

interface Link {
  readonly client: WebSocket;
  readonly upstream: WebSocket;
  /** Topics the daemon holds on this connection (from its subscribe and unsubscribe messages). */
  readonly held: Set<string>;
  /** Topics it ever held here: between its unsubscribe and subscribe of a resubscription it still routes them. */
  readonly everHeld: Set<string>;
  /** Recent data frames of the venue on this connection: what mutations start from. */
  readonly bases: string[];
  snapshot: string | undefined;
  /** An invalid UTF-8 frame was sent: the daemon drops this connection, nothing more goes on it. */
  dead: boolean;
}

export class MutatingProxy {
  /** While true, answers are mutated (with probability answerMutationRate) and frames injected by inject(). */
  fuzzing = false;
  answerMutationRate = 0.9;
  readonly answers = new Map<AnswerClass, AnswerRow>(ANSWER_CLASSES.map((cls) => [cls, { cls, sent: 0, invalid: 0 }]));
  readonly frames = new Map<FrameClass, FrameRow>(
    FRAME_CLASSES.map((cls) => [cls, { cls, sent: 0, verdicts: { binary: 0, malformed: 0, schema: 0, unrouted: 0, reconnect: 0, used: 0 } }]),
  );
  /** Requests the daemon made while fuzzing, and account snapshots injected to make it reconcile. */
  requestsWhileFuzzing = 0;
  snapshotsInjected = 0;
  /** Mutations dropped because they decoded to a control message or to data of a topic being resubscribed: never sent. */
  regenerated = 0;
  private readonly links = new Set<Link>();
  private readonly sockets = new Set<Socket>();
  private server!: Server;
  private wss!: WebSocketServer;
  port = 0;

  private constructor(
    private readonly venuePort: number,
    private readonly prng: Prng,
  ) {}

  static async start(venuePort: number, prng: Prng): Promise<MutatingProxy> {
    const p = new MutatingProxy(venuePort, prng);
    p.server = createServer((req, res) => {
      void p.onRequest(req).then(
        (answer) => {
          if (Buffer.isBuffer(answer)) req.socket.end(answer);
          else {
            res.writeHead(answer.status, answer.headers);
            res.end(answer.body);
          }
        },
        () => req.socket.destroy(),
      );
    });
    p.server.on('connection', (s: Socket) => {
      p.sockets.add(s);
      s.on('close', () => p.sockets.delete(s));
    });
    p.wss = new WebSocketServer({ server: p.server, path: '/ws', perMessageDeflate: false });
    p.wss.on('connection', (ws) => p.onConnection(ws));
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    p.port = (p.server.address() as AddressInfo).port;
    return p;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${API}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  async close(): Promise<void> {
    for (const l of this.links) {
      l.client.terminate();
      l.upstream.terminate();
    }
    for (const s of this.sockets) s.destroy();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sends `count` mutated frames on every usable connection, and one copy of its account snapshot when `snapshot`. */
  inject(count: number, snapshot: boolean): void {
    for (const link of this.links) {
      if (link.dead || link.client.readyState !== WebSocket.OPEN || link.bases.length === 0) continue;
      for (let i = 0; i < count && !link.dead; i++) this.injectOne(link);
      if (snapshot && link.snapshot !== undefined && !link.dead) {
        link.client.send(link.snapshot);
        this.snapshotsInjected++;
      }
    }
  }

  private async onRequest(req: IncomingMessage): Promise<Buffer | { status: number; headers: Record<string, string>; body: Buffer }> {
    const body = await readAll(req);
    const up = await this.forward(req, body);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...up.headers };
    const passThrough = { status: up.status, headers: { ...headers, 'content-length': String(up.body.length) }, body: up.body };
    if (!this.fuzzing) return passThrough;
    this.requestsWhileFuzzing++;
    if (up.status !== 200 || !this.prng.chance(this.answerMutationRate)) return passThrough;
    const cls = this.prng.pick(ANSWER_CLASSES);
    const row = this.answers.get(cls)!;
    row.sent++;
    if (cls === 'framing') {
      row.invalid++;
      return brokenFraming(this.prng, up.body);
    }
    const mutated = mutateJson(this.prng, cls as JsonMutation, up.body.toString('utf8'));
    const bytes = Buffer.isBuffer(mutated) ? mutated : Buffer.from(mutated, 'utf8');
    if (answerInvalid(req.url ?? '', body.toString('utf8'), bytes.toString('utf8'))) row.invalid++;
    return { status: 200, headers: { ...headers, 'content-length': String(bytes.length) }, body: bytes };
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<Upstream> {
    return new Promise((resolve, reject) => {
      const up = httpRequest(
        {
          host: '127.0.0.1',
          port: this.venuePort,
          path: req.url,
          method: req.method,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          void readAll(res).then((b) => {
            const retryAfter = res.headers['retry-after'];
            resolve({ status: res.statusCode ?? 0, headers: retryAfter ? { 'retry-after': String(retryAfter) } : {}, body: b });
          }, reject);
        },
      );
      up.on('error', reject);
      up.end(body);
    });
  }

  private onConnection(client: WebSocket): void {
    const upstream = new WebSocket(`ws://127.0.0.1:${this.venuePort}/ws`, { perMessageDeflate: false });
    const link: Link = { client, upstream, held: new Set(), everHeld: new Set(), bases: [], snapshot: undefined, dead: false };
    this.links.add(link);
    const pending: string[] = [];
    client.on('message', (data) => {
      const text = data.toString();
      this.track(link, text);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else pending.push(text);
    });
    upstream.on('open', () => {
      for (const t of pending.splice(0)) upstream.send(t);
    });
    upstream.on('message', (data) => {
      const text = data.toString();
      this.remember(link, text);
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    const end = () => {
      this.links.delete(link);
      client.terminate();
      upstream.terminate();
    };
    client.on('close', end);
    client.on('error', end);
    upstream.on('close', end);
    upstream.on('error', end);
  }

  /** Follows the topics the daemon holds on `link`. */
  private track(link: Link, text: string): void {
    let msg: { method?: string; subscription?: Subscription[]; topic?: string };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (msg.method === 'subscribe') {
      for (const s of msg.subscription ?? []) {
        for (const t of topicsOf(s)) {
          link.held.add(t);
          link.everHeld.add(t);
        }
      }
    }
    if (msg.method === 'unsubscribe' && typeof msg.topic === 'string') link.held.delete(msg.topic);
  }

  private remember(link: Link, text: string): void {
    if (!text.includes('"topic"')) return;
    if (text.includes('"accountSnapshot"')) link.snapshot = text;
    link.bases.push(text);
    if (link.bases.length > 64) link.bases.shift();
  }

  /**
   * What the daemon's connection makes of `text` (see WsConnection.onFrame / route); undefined for a control message, or
   * for data of a topic the daemon may be resubscribing (held before, not now: whether it routes it depends on timing).
   */
  private verdict(link: Link, text: string): FrameVerdict | undefined {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch {
      return 'malformed';
    }
    let decoded: ReturnType<typeof v1.decodeStream>;
    try {
      decoded = v1.decodeStream(value);
    } catch (e) {
      if (e instanceof ValidationError) return 'schema';
      throw e;
    }
    const messages = Array.isArray(decoded) ? decoded : [decoded];
    if (messages.some((m) => CONTROL_TYPES.has(m.type))) return undefined;
    const topics = messages.map((m) => (m as { topic: string }).topic);
    if (topics.every((t) => link.held.has(t))) return 'used';
    return topics.some((t) => link.everHeld.has(t)) ? undefined : 'unrouted';
  }

  private injectOne(link: Link): void {
    const prng = this.prng;
    const cls = prng.chance(0.005) ? 'invalidUtf8' : prng.pick(FRAME_CLASSES.filter((c) => c !== 'invalidUtf8'));
    const base = prng.pick(link.bases);
    const row = this.frames.get(cls)!;
    if (cls === 'binary') {
      link.client.send(Buffer.from(base), { binary: true });
      row.sent++;
      row.verdicts.binary++;
      return;
    }
    if (cls === 'invalidUtf8') {
      link.client.send(Buffer.concat([Buffer.from(base.slice(0, 10)), Buffer.from([0xff, 0xfe]), Buffer.from(base.slice(10))]), { binary: false });
      row.sent++;
      row.verdicts.reconnect++;
      link.dead = true;
      return;
    }
    for (let attempt = 0; attempt < 20; attempt++) {
      let text: string;
      if (cls === 'wrongTopic') {
        const doc = JSON.parse(base) as { topic: string };
        doc.topic = prng.pick([
          'ticker.FUZZ-USD',
          'l2delta.FUZZ-USD',
          `account.${'1'.repeat(44)}`,
          'x',
          '',
          'TICKER.BTC-USD',
          prng.text(prng.range(1, 40), 'abc.-_XYZ019'),
        ]);
        text = JSON.stringify(doc);
      } else {
        const m = mutateJson(prng, cls as JsonMutation, base);
        // A text frame carries UTF-8: bytes that are not are replaced here (the invalidUtf8 class sends them raw).
        text = Buffer.isBuffer(m) ? m.toString('utf8') : m;
      }
      const v = this.verdict(link, text);
      if (v === undefined) {
        this.regenerated++;
        continue;
      }
      link.client.send(text);
      row.sent++;
      row.verdicts[v]++;
      return;
    }
  }
}
