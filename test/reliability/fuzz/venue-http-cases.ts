// Malformed HTTP requests against the local venue, by class: request line, method, target, headers, lengths, chunked
// framing, bodies (broken JSON, wrong types, huge numbers, deep nesting, unknown fields) and signed actions mutated
// after signing (or replayed). Invariant: a case is a pure function of the Prng and the valid bases it is given.

import { JSON_MUTATIONS, mutateJson } from './mutate.js';
import type { Prng } from './prng.js';

export const HTTP_CLASSES = ['requestLine', 'method', 'target', 'headers', 'length', 'chunked', 'body', 'signedAction'] as const;
export type HttpClass = (typeof HTTP_CLASSES)[number];

export interface HttpCase {
  cls: HttpClass;
  /** Written one after the other (a pause between them is not needed: the server must cope with any split). */
  chunks: Buffer[];
}

/** Valid requests the cases are mutated from. */
export interface HttpBases {
  /** POST bodies of /account queries. */
  accountQueries: string[];
  /** Signed action bodies already applied by the venue (a replay must be refused), or signed by a signer without authority. */
  signedActions: { path: string; body: string }[];
}

const PATHS = [
  '/api/v1/account',
  '/api/v1/order',
  '/api/v1/exchangeInfo',
  '/api/v1/l2book?symbol=BTC-USD&nlevels=5',
  '/api/v1/user-settings',
  '/api/v1/agent-wallet',
  '/api/v1/private/faucet',
  '/api/v1/private/oracle',
  '/ws',
  '/',
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'PRI', 'SEARCH', 'PROPFIND'];
const TOKEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~";
const NASTY = '\u0000\u0001\r\n\t "<>\\^`{|}\u007f\u00ff\u0100\ud800';

function request(method: string, target: string, headers: [string, string][], body: Buffer | string = '', version = 'HTTP/1.1', eol = '\r\n'): Buffer {
  const head = `${method} ${target} ${version}${eol}${headers.map(([k, v]) => `${k}: ${v}${eol}`).join('')}${eol}`;
  return Buffer.concat([Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

function jsonPost(path: string, body: Buffer | string, extra: [string, string][] = []): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return request('POST', path, [['host', 'venue'], ['content-type', 'application/json'], ['content-length', String(bytes.length)], ...extra], bytes);
}

function validRequest(prng: Prng, bases: HttpBases): { path: string; body: string } {
  if (prng.chance(0.5)) return { path: '/api/v1/account', body: prng.pick(bases.accountQueries) };
  return prng.pick(bases.signedActions);
}

function requestLine(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = validRequest(prng, bases);
  const headers: [string, string][] = [
    ['host', 'venue'],
    ['content-length', String(Buffer.byteLength(body))],
  ];
  return prng.pick([
    () =>
      request(
        'POST',
        path,
        headers,
        body,
        prng.pick(['HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'HTTP/1', 'HTTP/1.1.1', 'http/1.1', 'HTTP/11', 'HTCPCP/1.0', '', 'HTTP/1.1 extra']),
      ),
    () => request('POST', path, headers, body, 'HTTP/1.1', prng.pick(['\n', '\r', '\r\r\n', '\n\r'])),
    () => Buffer.concat([Buffer.from(`POST${prng.pick(['  ', '\t', ''])}${path}${prng.pick(['  ', '\t', ''])}HTTP/1.1\r\n\r\n`, 'latin1')]),
    () => Buffer.from(`${prng.pick(['', ' ', '\r\n', '\r\n\r\n'])}POST ${path} HTTP/1.1\r\nhost: v\r\n\r\n`, 'latin1'),
    () => prng.bytes(prng.range(1, 200)),
    () => Buffer.from(`${prng.text(prng.range(1, 40), TOKEN)}\r\n\r\n`, 'latin1'),
    () => Buffer.from(`POST ${path}\r\n\r\n`, 'latin1'),
    () => Buffer.from('\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003', 'latin1'),
    () => Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  ])();
}

function method(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = validRequest(prng, bases);
  const m = prng.pick([
    () => prng.pick(METHODS),
    () => prng.pick(METHODS).toLowerCase(),
    () => prng.text(prng.range(1, 20), TOKEN),
    () => 'P'.repeat(prng.pick([100, 20_000])),
    () => prng.text(prng.range(1, 5), NASTY),
    () => '',
  ])();
  return request(
    m,
    prng.chance(0.5) ? path : prng.pick(PATHS),
    [
      ['host', 'venue'],
      ['content-length', String(Buffer.byteLength(body))],
    ],
    body,
  );
}

function target(prng: Prng, bases: HttpBases): Buffer {
  const { body } = validRequest(prng, bases);
  const t = prng.pick([
    () => '*',
    () => 'api/v1/account',
    () => '//api/v1/account',
    () => '/api/v1/../v1/account',
    () => '/api/v1/%zz',
    () => '/api/v1/%00account',
    () => `/api/v1/${'a'.repeat(prng.pick([1_000, 9_000, 70_000]))}`,
    () =>
      `/api/v1/l2book?symbol=${prng.pick(['', 'BTC-USD&nlevels=0', 'BTC-USD&nlevels=1e9', 'BTC-USD&nlevels=-1', 'BTC-USD&nlevels=NaN', 'BTC-USD&nlevels=1.5', '%ff', 'x'.repeat(5000), 'BTC-USD&symbol=ETH-USD', '__proto__', 'constructor'])}`,
    () => `http://${prng.pick(['venue', '[::1', 'a:b@c', '', '%', 'x'.repeat(300)])}/api/v1/account`,
    () => `/api/v1/${prng.text(prng.range(1, 30), NASTY)}`,
    () => `${prng.pick(PATHS)}#${prng.text(10, TOKEN)}`,
    () => `${prng.pick(PATHS)}?${prng.text(prng.range(1, 200), TOKEN + '=&%')}`,
    () => '/api/v1/exchangeInfo/',
    () => '/API/V1/ACCOUNT',
    () => prng.text(prng.range(1, 60), TOKEN + '/?#%'),
  ])();
  return request(
    prng.pick(['GET', 'POST']),
    t,
    [
      ['host', 'venue'],
      ['content-length', String(Buffer.byteLength(body))],
    ],
    body,
  );
}

function headers(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = validRequest(prng, bases);
  const len = String(Buffer.byteLength(body));
  const base: [string, string][] = [
    ['host', 'venue'],
    ['content-type', 'application/json'],
    ['content-length', len],
  ];
  const raw = (text: string) => Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\n${text}\r\n\r\n`, 'latin1'), Buffer.from(body)]);
  return prng.pick([
    () => raw(`host: venue\r\ncontent-length: ${len}\r\nno-colon-here`),
    () => raw(`host: venue\r\ncontent-length : ${len}`),
    () => raw(`host: venue\r\ncontent-length: ${len}\r\n folded: continuation`),
    () => raw(`host: venue\r\n: empty-name\r\ncontent-length: ${len}`),
    () => raw(`host: venue\r\nx-nul: a\u0000b\r\ncontent-length: ${len}`),
    () => raw(`host: venue\r\nx-bin: ${prng.text(20, NASTY)}\r\ncontent-length: ${len}`),
    () => raw(`host: venue\r\ncontent-length: ${len}\r\nx-big: ${'v'.repeat(prng.pick([8_000, 17_000, 70_000]))}`),
    () => raw(`host: venue\r\ncontent-length: ${len}${Array.from({ length: prng.pick([200, 2_500]) }, (_, i) => `\r\nx-h${i}: ${i}`).join('')}`),
    () => raw(`content-length: ${len}`),
    () => raw(`host: a\r\nhost: b\r\ncontent-length: ${len}`),
    () => request('POST', path, [...base, ['expect', prng.pick(['100-continue', '200-ok', 'x', ''])]], body),
    () =>
      request(
        'POST',
        path,
        [...base, ['content-type', prng.pick(['text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', ''])]],
        body,
      ),
    () =>
      request(
        'POST',
        path,
        [...base, ['connection', prng.pick(['upgrade', 'keep-alive, close', 'x'])], ['upgrade', prng.pick(['h2c', 'websocket', 'x'])]],
        body,
      ),
    () => request('POST', path, [...base, ['content-encoding', prng.pick(['gzip', 'br', 'deflate', 'x'])]], body),
    () => request('POST', path, [...base, [prng.text(prng.range(1, 30), TOKEN), prng.text(prng.range(0, 60), TOKEN + ' ')]], body),
  ])();
}

function length(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = validRequest(prng, bases);
  const n = Buffer.byteLength(body);
  const cl = (v: string, extra: [string, string][] = []) => request('POST', path, [['host', 'venue'], ['content-length', v], ...extra], body);
  return prng.pick([
    () => cl(String(n + prng.range(1, 1000))),
    () => cl(String(Math.max(0, n - prng.range(1, n)))),
    () => cl(prng.pick(['-1', 'abc', '1e3', '0x10', ' ', '', '+5', '5.0', '99999999999999999999999', '18446744073709551616', '1048577', '2000000000'])),
    () =>
      request(
        'POST',
        path,
        [
          ['host', 'venue'],
          ['content-length', String(n)],
          ['content-length', String(n + 1)],
        ],
        body,
      ),
    () =>
      request(
        'POST',
        path,
        [
          ['host', 'venue'],
          ['content-length', `${n}, ${n}`],
        ],
        body,
      ),
    () =>
      request(
        'POST',
        path,
        [
          ['host', 'venue'],
          ['content-length', String(n)],
          ['transfer-encoding', 'chunked'],
        ],
        body,
      ),
    () => request('POST', path, [['host', 'venue']], body),
    () => jsonPost(path, Buffer.alloc(prng.pick([1_048_577, 1_200_000]), 0x20)),
    () => cl('0'),
  ])();
}

function chunk(data: Buffer | string): string {
  const b = typeof data === 'string' ? Buffer.from(data) : data;
  return `${b.length.toString(16)}\r\n${b.toString('latin1')}\r\n`;
}

function chunked(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = validRequest(prng, bases);
  const half = Math.floor(body.length / 2);
  const te = prng.pick(['chunked', 'Chunked', 'gzip, chunked', 'chunked, gzip', 'chunked, chunked', ' chunked', 'identity', 'x']);
  const head = `POST ${path} HTTP/1.1\r\nhost: venue\r\ntransfer-encoding: ${te}\r\n\r\n`;
  const good = chunk(body.slice(0, half)) + chunk(body.slice(half)) + '0\r\n\r\n';
  const bodyText = prng.pick([
    () => good,
    () => `${prng.pick(['zz', '-1', '', ' ', '0x10', 'fffffffffffffffff', '1;'.padEnd(prng.pick([10, 20_000]), 'e'), '10000000'])}\r\n${body}\r\n0\r\n\r\n`,
    () => `${(body.length + 5).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    () => `${Math.max(1, body.length - 3).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    () => chunk(body),
    () => `${chunk(body)}0\r\nx-trailer: ${'t'.repeat(prng.pick([10, 20_000]))}\r\n\r\n`,
    () => `${chunk(body)}0\r\nbad trailer\r\n\r\n`,
    () => `${body.length.toString(16)}\n${body}\n0\n\n`,
    () =>
      Array.from(body)
        .map((c) => chunk(c))
        .join('') + '0\r\n\r\n',
  ])();
  return Buffer.from(head + bodyText, 'latin1');
}

function bodyCase(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = validRequest(prng, bases);
  const mutated = prng.chance(0.15)
    ? prng.pick<string | Buffer>([
        '',
        'null',
        '[]',
        '{}',
        '"x"',
        '1e999',
        'true',
        '\ufeff{}',
        prng.bytes(prng.range(1, 100)),
        '{"type":"fullAccount","user":"' + 'A'.repeat(5000) + '"}',
      ])
    : mutateJson(prng, prng.pick(JSON_MUTATIONS), body);
  return jsonPost(path, mutated);
}

function signedAction(prng: Prng, bases: HttpBases): Buffer {
  const { path, body } = prng.pick(bases.signedActions);
  if (prng.chance(0.1)) return jsonPost(path, body);
  const doc = JSON.parse(body) as { action: Record<string, unknown>; account: string; signer: string; signature: string };
  const swapChar = (s: string) => {
    const i = prng.int(s.length);
    const c = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'.replace(s[i]!, '');
    return s.slice(0, i) + prng.pick(c.split('')) + s.slice(i + 1);
  };
  const fieldMutation = prng.pick([
    () => ({ ...doc, signature: swapChar(doc.signature) }),
    () => ({ ...doc, account: swapChar(doc.account) }),
    () => ({ ...doc, signer: prng.chance(0.5) ? doc.account : swapChar(doc.signer) }),
    () => ({
      ...doc,
      action: {
        ...doc.action,
        nonce: prng.pick([0, 1, '1', -1, '18446744073709551615', '18446744073709551616', String(BigInt(String(doc.action.nonce)) + 1n)]),
      },
    }),
    () => ({ ...doc, action: { ...doc.action, type: prng.pick(['order', 'faucet', 'oracle', 'updateUserSettings', 'agentWalletCreation', 'x']) } }),
    () => ({ ...doc, signature: doc.signature.slice(0, prng.range(0, doc.signature.length - 1)) }),
    () => ({ ...doc, signature: prng.pick(['1'.repeat(88), '1'.repeat(64), 'z'.repeat(88), '']) }),
  ]);
  const mutated = prng.chance(0.5) ? JSON.stringify(fieldMutation()) : mutateJson(prng, prng.pick(JSON_MUTATIONS), body);
  const otherPath = prng.chance(0.1)
    ? prng.pick(['/api/v1/order', '/api/v1/user-settings', '/api/v1/agent-wallet', '/api/v1/private/faucet', '/api/v1/private/oracle'])
    : path;
  return jsonPost(otherPath, mutated);
}

const MAKERS: Record<HttpClass, (prng: Prng, bases: HttpBases) => Buffer> = {
  requestLine,
  method,
  target,
  headers,
  length,
  chunked,
  body: bodyCase,
  signedAction,
};

/** The `i`-th case: classes in turn, the bytes sometimes split at a random point or followed by a second request. */
export function httpCase(prng: Prng, i: number, bases: HttpBases): HttpCase {
  const cls = HTTP_CLASSES[i % HTTP_CLASSES.length]!;
  const bytes = MAKERS[cls](prng, bases);
  if (bytes.length > 1 && prng.chance(0.2)) {
    const at = prng.range(1, bytes.length - 1);
    return { cls, chunks: [bytes.subarray(0, at), bytes.subarray(at)] };
  }
  if (prng.chance(0.1)) return { cls, chunks: [bytes, MAKERS[cls](prng, bases)] };
  return { cls, chunks: [bytes] };
}
