import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { componentLogger, createLogger, REDACTED, SECRET_KEYS, strategyLogger } from '../../../src/telemetry/logger.js';

const SECRET = '5KQwrPbwdL6PhXujxW37FSSQZ1JiwsST4cqQzDeyXtP79zkvFD3';

/** A logger writing into a stream; `lines()` parses what was written so far. */
function captured(level = 'info') {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const logger = createLogger({ level, destination: stream, name: 'perpbot' });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, text, lines };
}

describe('createLogger', () => {
  it('writes one JSON object a line with an ISO time, a string level, the name and no pid/hostname', () => {
    const { logger, lines } = captured();
    logger.info({ symbol: 'BTC-USD', sizeBase: 0.5 }, 'order placed');
    logger.debug('below the level');
    const [line, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(line).toMatchObject({ level: 'info', name: 'perpbot', symbol: 'BTC-USD', sizeBase: 0.5, msg: 'order placed' });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
    expect(line).not.toHaveProperty('pid');
    expect(line).not.toHaveProperty('hostname');
  });

  it('throws for an unknown level', () => {
    expect(() => createLogger({ level: 'loud', destination: new PassThrough() })).toThrow(/loud/);
  });

  it('child loggers carry component and strategy bindings', () => {
    const { logger, lines } = captured();
    const ws = componentLogger(logger, 'ws');
    strategyLogger(ws, 'mm-btc').warn({ n: 1 }, 'slow');
    ws.info('connected');
    expect(lines()).toEqual([
      expect.objectContaining({ component: 'ws', strategy: 'mm-btc', n: 1, level: 'warn', msg: 'slow' }),
      expect.objectContaining({ component: 'ws', msg: 'connected' }),
    ]);
    expect(lines()[1]).not.toHaveProperty('strategy');
  });
});

describe('createLogger redaction', () => {
  it('censors every secret key at the top level and nested up to three objects deep', () => {
    const { logger, lines, text } = captured();
    for (const key of SECRET_KEYS) {
      logger.info({ [key]: SECRET, a: { [key]: SECRET, b: { [key]: SECRET, c: { [key]: SECRET } } } }, key);
    }
    expect(text()).not.toContain(SECRET);
    for (const line of lines()) {
      const key = line.msg as string;
      expect(line[key]).toBe(REDACTED);
      expect(line.a).toEqual({ [key]: REDACTED, b: { [key]: REDACTED, c: { [key]: REDACTED } } });
    }
    expect(lines()).toHaveLength(SECRET_KEYS.length);
  });

  it('censors secrets in a child logger bindings', () => {
    const { logger, lines, text } = captured();
    componentLogger(logger.child({ secretKey: SECRET, wallet: { keypair: SECRET } }), 'signer').info('ready');
    expect(text()).not.toContain(SECRET);
    expect(lines()[0]).toMatchObject({ component: 'signer', secretKey: REDACTED, wallet: { keypair: REDACTED }, msg: 'ready' });
  });

  it('censors secrets inside an Error, an Error-like object and their causes', () => {
    const { logger, lines, text } = captured();
    const cause = Object.assign(new Error('bad key'), { privateKey: SECRET });
    const err = Object.assign(new Error('signing failed', { cause }), { request: { headers: { authorization: `Bearer ${SECRET}` } } });
    const errorLike = { name: 'VenueRejectError', code: 'REJECTED', cause: { config: { secretKey: SECRET } } };
    logger.error({ err, failure: errorLike }, 'submit failed');
    logger.error(err, 'as the first argument');
    expect(text()).not.toContain(SECRET);
    const [first, second] = lines();
    for (const line of [first, second]) {
      expect(line).toMatchObject({ err: { message: 'signing failed: bad key', request: { headers: { authorization: REDACTED } } } });
    }
    expect(first).toMatchObject({ failure: { code: 'REJECTED', cause: { config: { secretKey: REDACTED } } } });
  });

  it('leaves keys that only resemble secrets alone', () => {
    const { logger, lines } = captured();
    logger.info({ tokens: 3, publicKey: 'pk', nested: { secretKeyId: 'id' } }, 'm');
    expect(lines()[0]).toMatchObject({ tokens: 3, publicKey: 'pk', nested: { secretKeyId: 'id' } });
  });
});
