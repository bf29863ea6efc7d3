// Malformed WebSocket input against the local venue, by class: opcodes, RSV bits, masking, lengths, fragmentation,
// invalid UTF-8, close frames, JSON garbage and subscribe/unsubscribe messages with mutated fields, plus broken upgrade
// requests. Invariant: a case is a pure function of the Prng; `frames` counts the frames it carries.

import { JSON_MUTATIONS, mutateJson } from './mutate.js';
import type { Prng } from './prng.js';
import { frame, upgradeRequest } from './raw-socket.js';

export const WS_CLASSES = ['opcode', 'rsv', 'mask', 'length', 'fragment', 'utf8', 'close', 'json', 'subscribe', 'handshake'] as const;
export type WsClass = (typeof WS_CLASSES)[number];

export interface WsCase {
  cls: WsClass;
  /** Upgrade request, then frames (a closing frame of ours last when the case leaves the connection usable). */
  chunks: Buffer[];
  /** Malformed frames in the case (0 for a broken upgrade request). */
  frames: number;
}

const TEXT = 0x1;
const BINARY = 0x2;
const CONT = 0x0;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

/** Valid subscribe messages the `subscribe` class mutates. */
export function validSubscribes(symbols: readonly string[], users: readonly string[]): string[] {
  const out: string[] = [];
  for (const symbol of symbols) {
    for (const type of ['ticker', 'trades', 'l2Delta', 'risk']) out.push(JSON.stringify({ method: 'subscribe', subscription: [{ type, symbol }] }));
    out.push(JSON.stringify({ method: 'subscribe', subscription: [{ type: 'l2Snapshot', symbol, nlevels: 5 }] }));
  }
  for (const user of users) out.push(JSON.stringify({ method: 'subscribe', subscription: [{ type: 'account', user }] }));
  out.push(JSON.stringify({ method: 'subscribe', subscription: [{ type: 'frontendContext' }] }));
  out.push(JSON.stringify({ method: 'unsubscribe', topic: `ticker.${symbols[0]}` }));
  return out;
}

function maskKey(prng: Prng): Buffer {
  return prng.bytes(4);
}

function text(prng: Prng, payload: Buffer | string, extra: Partial<Parameters<typeof frame>[0]> = {}): Buffer {
  return frame({ opcode: TEXT, mask: maskKey(prng), payload: typeof payload === 'string' ? Buffer.from(payload) : payload, ...extra });
}

function closeFrame(prng: Prng, code = 1000): Buffer {
  const p = Buffer.alloc(2);
  p.writeUInt16BE(code);
  return frame({ opcode: CLOSE, mask: maskKey(prng), payload: p });
}

const INVALID_UTF8 = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]].map((b) =>
  Buffer.from(b),
);

function frames(prng: Prng, cls: WsClass, subs: readonly string[]): Buffer[] {
  const sub = () => Buffer.from(prng.pick(subs));
  switch (cls) {
    case 'opcode':
      return [
        frame({
          opcode: prng.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf]),
          mask: maskKey(prng),
          payload: prng.chance(0.5) ? sub() : prng.bytes(prng.range(0, 20)),
        }),
      ];
    case 'rsv':
      return [frame({ opcode: prng.pick([TEXT, BINARY, PING, CLOSE]), rsv: prng.range(1, 7), mask: maskKey(prng), payload: sub() })];
    case 'mask':
      return [frame({ opcode: prng.pick([TEXT, BINARY, PING]), mask: undefined, payload: sub() })];
    case 'length':
      return [
        prng.pick([
          () => frame({ opcode: TEXT, mask: maskKey(prng), payload: sub(), declaredLength: BigInt(prng.pick([2 ** 20 + 1, 2 ** 31, 2 ** 32 + 5])) }),
          () => frame({ opcode: TEXT, mask: maskKey(prng), payload: sub(), declaredLength: 0x8000000000000000n + BigInt(prng.range(0, 100)), lengthForm: 64 }),
          () => frame({ opcode: TEXT, mask: maskKey(prng), payload: sub(), lengthForm: prng.pick([16, 64] as const) }),
          () => frame({ opcode: prng.pick([PING, PONG, CLOSE]), mask: maskKey(prng), payload: prng.bytes(prng.range(126, 300)) }),
          () => frame({ opcode: TEXT, mask: maskKey(prng), payload: Buffer.alloc(prng.range(64 * 1024 + 1, 200_000), 0x20) }),
          () => frame({ opcode: TEXT, mask: maskKey(prng), payload: sub() }).subarray(0, prng.range(1, 6)),
        ])(),
      ];
    case 'fragment': {
      const payload = sub();
      const cut = prng.range(1, Math.max(1, payload.length - 1));
      return prng.pick([
        () => [frame({ opcode: CONT, mask: maskKey(prng), payload })],
        () => [frame({ opcode: PING, fin: false, mask: maskKey(prng), payload: Buffer.from('p') })],
        () => [
          frame({ opcode: TEXT, fin: false, mask: maskKey(prng), payload: payload.subarray(0, cut) }),
          frame({ opcode: TEXT, mask: maskKey(prng), payload: payload.subarray(cut) }),
        ],
        () => [
          frame({ opcode: TEXT, fin: false, mask: maskKey(prng), payload: payload.subarray(0, cut) }),
          frame({ opcode: BINARY, mask: maskKey(prng), payload: payload.subarray(cut) }),
        ],
        () => [
          frame({ opcode: TEXT, fin: false, mask: maskKey(prng), payload: payload.subarray(0, cut) }),
          frame({ opcode: PING, mask: maskKey(prng), payload: Buffer.from('x') }),
          frame({ opcode: CONT, mask: maskKey(prng), payload: payload.subarray(cut) }),
        ],
        () => [
          frame({ opcode: TEXT, fin: false, mask: maskKey(prng), payload: Buffer.alloc(0) }),
          ...Array.from({ length: prng.range(2, 12) }, () => frame({ opcode: CONT, fin: false, mask: maskKey(prng), payload: Buffer.from(' ') })),
        ],
        () => [
          frame({ opcode: BINARY, fin: false, mask: maskKey(prng), payload: payload.subarray(0, cut) }),
          frame({ opcode: CONT, mask: maskKey(prng), payload: payload.subarray(cut) }),
        ],
      ])();
    }
    case 'utf8': {
      const s = sub();
      const at = prng.int(s.length + 1);
      const bad = Buffer.concat([s.subarray(0, at), prng.pick(INVALID_UTF8), s.subarray(at)]);
      return prng.pick([
        () => [text(prng, bad)],
        () => [
          frame({ opcode: TEXT, fin: false, mask: maskKey(prng), payload: Buffer.from([0xe2, 0x82]) }),
          frame({ opcode: CONT, mask: maskKey(prng), payload: Buffer.from([0x28]) }),
        ],
        // A valid character split across fragments (the venue must join them before decoding).
        () => [
          frame({ opcode: TEXT, fin: false, mask: maskKey(prng), payload: Buffer.from([...Buffer.from('{"method":"ping","x":"'), 0xe2]) }),
          frame({ opcode: CONT, mask: maskKey(prng), payload: Buffer.from([0x82, 0xac, 0x22, 0x7d]) }),
        ],
        () => [frame({ opcode: CLOSE, mask: maskKey(prng), payload: Buffer.concat([Buffer.from([0x03, 0xe8]), prng.pick(INVALID_UTF8)]) })],
      ])();
    }
    case 'close': {
      const code = prng.pick([0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535]);
      const p = Buffer.alloc(2);
      p.writeUInt16BE(code);
      return [frame({ opcode: CLOSE, mask: maskKey(prng), payload: prng.chance(0.2) ? Buffer.from([0x03]) : p })];
    }
    case 'json':
      return Array.from({ length: prng.range(1, 8) }, () =>
        prng.pick([
          () =>
            text(
              prng,
              prng.pick([
                '',
                'null',
                '[]',
                '1',
                '"subscribe"',
                'true',
                '{"method":null}',
                '{"method":"SUBSCRIBE"}',
                '{"method":"ping","x":1e999}',
                '{"__proto__":{"method":"subscribe"}}',
                '{"method":"constructor"}',
              ]),
            ),
          () => text(prng, prng.bytes(prng.range(1, 80)).toString('latin1')),
          () => text(prng, '['.repeat(prng.pick([1_000, 60_000])) + ']'.repeat(10)),
          () => text(prng, mutateJson(prng, prng.pick(JSON_MUTATIONS), prng.pick(subs))),
          () => frame({ opcode: BINARY, mask: maskKey(prng), payload: prng.chance(0.5) ? sub() : prng.bytes(prng.range(0, 100)) }),
          () =>
            text(
              prng,
              `{"method":"subscribe","subscription":[${Array.from({ length: prng.pick([101, 5_000]) }, () => '{"type":"ticker","symbol":"BTC-USD"}').join(',')}]}`,
            ),
        ])(),
      );
    case 'subscribe':
      return Array.from({ length: prng.range(1, 8) }, () => {
        const base = JSON.parse(prng.pick(subs)) as { method: string; subscription?: Record<string, unknown>[]; topic?: string };
        if (prng.chance(0.5) || !base.subscription) return text(prng, mutateJson(prng, prng.pick(JSON_MUTATIONS), JSON.stringify(base)));
        const s = { ...base.subscription[0]! };
        const field = prng.pick(['type', 'symbol', 'user', 'nlevels', 'extra']);
        s[field] = prng.pick<unknown>([
          null,
          '',
          'BTC-usd',
          'FUZZ-USD',
          'x'.repeat(200),
          0,
          -1,
          1001,
          1.5,
          1e308,
          ['BTC-USD'],
          { symbol: 'BTC-USD' },
          '11111111111111111111111111111111',
          '1'.repeat(44),
          'ticker',
          'account',
          '__proto__',
        ]);
        return text(prng, JSON.stringify({ ...base, subscription: prng.chance(0.2) ? [s, ...base.subscription] : [s] }));
      });
    case 'handshake':
      return [];
  }
}

function brokenUpgrade(prng: Prng): Buffer {
  return prng.pick([
    () => upgradeRequest('/ws', { 'sec-websocket-version': prng.pick(['12', '8', '', '13, 8', 'x']) }),
    () => upgradeRequest('/ws', { 'sec-websocket-key': prng.pick(['', 'short', '!!!!', 'x'.repeat(100), 'dGhlIHNhbXBsZSBub25jZQ']) }),
    () => upgradeRequest('/ws', { upgrade: prng.pick(['', 'h2c', 'WebSocket2', 'websocket, h2c']) }),
    () => upgradeRequest('/ws', { connection: prng.pick(['', 'keep-alive', 'close']) }),
    () => upgradeRequest(prng.pick(['/ws/', '/wss', '/api/v1/account', '/', '/ws?x=%zz', '*']), {}),
    () =>
      upgradeRequest('/ws', {
        'sec-websocket-extensions': prng.pick([
          'permessage-deflate; server_max_window_bits=7',
          'permessage-deflate; client_max_window_bits=99',
          'x-unknown',
          'permessage-deflate; permessage-deflate',
        ]),
      }),
    () => upgradeRequest('/ws', { 'sec-websocket-protocol': prng.pick(['', ',', 'a,,b', 'x'.repeat(5000)]) }),
    () =>
      Buffer.from(
        upgradeRequest('/ws')
          .toString('latin1')
          .replace('GET', prng.pick(['POST', 'PUT', 'get'])),
        'latin1',
      ),
    () => Buffer.from(upgradeRequest('/ws').toString('latin1').replace('HTTP/1.1', 'HTTP/1.0'), 'latin1'),
  ])();
}

/**
 * The `i`-th case: classes in turn. Frames that leave the connection open are followed by our close frame, so the
 * venue answers and closes at once.
 */
export function wsCase(prng: Prng, i: number, subs: readonly string[]): WsCase {
  const cls = WS_CLASSES[i % WS_CLASSES.length]!;
  if (cls === 'handshake') return { cls, chunks: [brokenUpgrade(prng), text(prng, prng.pick(subs))], frames: 0 };
  const fs = frames(prng, cls, subs);
  return { cls, chunks: [upgradeRequest('/ws'), ...fs, closeFrame(prng)], frames: fs.length };
}
