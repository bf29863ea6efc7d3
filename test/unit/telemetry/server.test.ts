import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { dataHeld, HOLD_MAX_MS } from '../../../src/core/command-hold.js';
import { createMetrics } from '../../../src/telemetry/metrics.js';
import { MAX_BODY_BYTES, startControlServer, type ControlServer, type ControlServerOptions } from '../../../src/telemetry/server.js';

const TOKEN = 'k3y-for-tests-0123456789';

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly reusedSocket: boolean;
}

/** One request with node:http (body written in `chunks` when given as an array, which sends it chunked). */
function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | string[]; agent?: Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: opts.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), reusedSocket: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    for (const chunk of typeof opts.body === 'string' ? [opts.body] : (opts.body ?? [])) req.write(chunk);
    req.end();
  });
}

interface Calls {
  kill: string[];
  resume: string[];
  warnings: Array<{ fields: object; msg: string }>;
}

const servers: ControlServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(overrides: Partial<ControlServerOptions> = {}) {
  const calls: Calls = { kill: [], resume: [], warnings: [] };
  const metrics = createMetrics();
  const server = await startControlServer({
    port: 0,
    token: TOKEN,
    metrics,
    ready: () => ({ ready: true, reasons: [] }),
    status: () => ({ state: 'ACTIVE', strategies: ['mm-btc'], openOrders: 2, lastNonceNs: 1_700_000_000_000_000_123n }),
    kill: (reason) => {
      calls.kill.push(reason);
      return { state: 'HALTED', reason: `kill switch (HTTP): ${reason}` };
    },
    resume: (reason) => {
      calls.resume.push(reason);
      return { state: 'ACTIVE', reason: `resume (HTTP): ${reason}` };
    },
    logger: { warn: (fields, msg) => calls.warnings.push({ fields, msg }) },
    ...overrides,
  });
  servers.push(server);
  return { server, calls, metrics };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('control server: GET endpoints', () => {
  it('listens on 127.0.0.1 by default and serves /metrics in the Prometheus text format', async () => {
    const { server, metrics } = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    metrics.submitOutcomes.inc({ outcome: 'accepted' }, 5);
    const r = await request(`${server.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(metrics.contentType);
    expect(r.body).toContain('perpbot_submits_total{outcome="accepted"} 5');
    expect(r.body).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('answers /livez with 200 alive, and HEAD with the same headers and no body', async () => {
    const { server } = await start();
    const get = await request(`${server.url}/livez`);
    expect(get).toMatchObject({ status: 200, body: '{"status":"alive"}' });
    expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(get.headers['cache-control']).toBe('no-store');
    const head = await request(`${server.url}/livez`, { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe(String(get.body.length));
  });

  it('answers /readyz 200 when ready and 503 with the reasons when not (query strings ignored)', async () => {
    let state = { ready: false, reasons: ['not connected', 'not reconciled'] };
    const { server } = await start({ ready: () => state });
    const down = await request(`${server.url}/readyz?verbose=1`);
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toEqual({ ready: false, reasons: ['not connected', 'not reconciled'] });
    state = { ready: true, reasons: [] };
    expect(await request(`${server.url}/readyz`)).toMatchObject({ status: 200, body: '{"ready":true}' });
  });

  it('answers /status with the status as JSON, bigints exact', async () => {
    const { server } = await start();
    const r = await request(`${server.url}/status`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.body).toBe('{"state":"ACTIVE","strategies":["mm-btc"],"openOrders":2,"lastNonceNs":1700000000000000123}');
  });

  it('answers 404 JSON for an unknown path and 405 with Allow for a wrong method', async () => {
    const { server, calls } = await start();
    const missing = await request(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ error: 'not found' });
    const postMetrics = await request(`${server.url}/metrics`, { method: 'POST' });
    expect(postMetrics.status).toBe(405);
    expect(postMetrics.headers.allow).toBe('GET, HEAD');
    const getKill = await request(`${server.url}/kill`, { headers: bearer(TOKEN) });
    expect(getKill.status).toBe(405);
    expect(getKill.headers.allow).toBe('POST');
    expect(JSON.parse(getKill.body)).toEqual({ error: 'method not allowed' });
    expect(calls.kill).toEqual([]);
  });

  it('answers 500 and logs when a provider throws or metrics fail', async () => {
    const { server, calls } = await start({
      status: () => {
        throw new Error('state store closed');
      },
      metrics: { contentType: 'text/plain', text: () => Promise.reject(new Error('collector failed')) },
    });
    for (const path of ['/status', '/metrics']) {
      const r = await request(`${server.url}${path}`);
      expect(r.status).toBe(500);
      expect(JSON.parse(r.body)).toEqual({ error: 'internal error' });
    }
    expect(calls.warnings.map((w) => (w.fields as { err: Error }).err.message)).toEqual(['state store closed', 'collector failed']);
  });
});

describe('control server: POST /kill and /resume', () => {
  it('are disabled with 403 naming telemetry.token when no token is configured', async () => {
    for (const token of [undefined, '']) {
      const { server, calls } = await start({ token });
      const r = await request(`${server.url}/kill`, { method: 'POST', headers: bearer('anything') });
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body).error).toContain('telemetry.token');
      expect(calls.kill).toEqual([]);
    }
  });

  it('answer 401 for a missing, wrong (equal or other length) or non-bearer token, and log the refusal', async () => {
    const { server, calls } = await start();
    const wrongSameLength = TOKEN.slice(0, -1) + (TOKEN.endsWith('9') ? '8' : '9');
    const headerSets: Array<Record<string, string>> = [
      {},
      bearer(wrongSameLength),
      bearer('short'),
      bearer(`${TOKEN}x`),
      { Authorization: TOKEN },
      { Authorization: `Basic ${TOKEN}` },
      bearer(''),
    ];
    for (const headers of headerSets) {
      const r = await request(`${server.url}/kill`, { method: 'POST', headers, body: '{"reason":"x"}' });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(JSON.parse(r.body)).toEqual({ error: 'missing or wrong bearer token' });
    }
    expect(calls.kill).toEqual([]);
    expect(calls.warnings).toHaveLength(headerSets.length);
    expect(JSON.stringify(calls.warnings)).not.toContain(TOKEN);
  });

  it('call kill / resume with the body reason and answer what they returned', async () => {
    const { server, calls } = await start();
    const kill = await request(`${server.url}/kill`, { method: 'POST', headers: bearer(TOKEN), body: '{"reason":"manual stop"}' });
    expect(kill.status).toBe(200);
    expect(JSON.parse(kill.body)).toEqual({ state: 'HALTED', reason: 'kill switch (HTTP): manual stop' });
    const resume = await request(`${server.url}/resume`, { method: 'POST', headers: bearer(TOKEN) });
    expect(JSON.parse(resume.body)).toEqual({ state: 'ACTIVE', reason: 'resume (HTTP): ' });
    await request(`${server.url}/kill`, { method: 'POST', headers: bearer(TOKEN), body: '{}' });
    expect(calls).toMatchObject({ kill: ['manual stop', ''], resume: [''] });
  });

  it('read a body sent with the head, or one that arrives later, and ignore a query string', async () => {
    const { server, calls } = await start();
    const body = '{"reason":"late body"}';
    const head =
      `POST /kill?from=test HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const answer = (parts: string[]) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
        socket.once('connect', async () => {
          for (const part of parts) {
            socket.write(part);
            await new Promise((r) => setTimeout(r, 30));
          }
        });
      });
    expect(await answer([head + body])).toMatch(/^HTTP\/1\.1 200 /);
    expect(await answer([head, body])).toMatch(/^HTTP\/1\.1 200 /);
    expect(calls.kill).toEqual(['late body', 'late body']);
  });

  it('answer 400 for a body that is not JSON, not an object, or has a non-string reason', async () => {
    const { server, calls } = await start();
    const cases: Array<[string, string]> = [
      ['{"reason":', 'body is not JSON'],
      ['["stop"]', 'body must be a JSON object'],
      ['"stop"', 'body must be a JSON object'],
      ['{"reason":42}', 'reason must be a string'],
    ];
    for (const [body, error] of cases) {
      const r = await request(`${server.url}/kill`, { method: 'POST', headers: bearer(TOKEN), body });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ error });
    }
    expect(calls.kill).toEqual([]);
  });

  it('answer 413 and close the connection for a body over 4 KiB, declared or chunked', async () => {
    const { server, calls } = await start();
    const big = JSON.stringify({ reason: 'x'.repeat(MAX_BODY_BYTES) });
    const declared = await request(`${server.url}/kill`, { method: 'POST', headers: bearer(TOKEN), body: big });
    const chunked = await request(`${server.url}/kill`, { method: 'POST', headers: bearer(TOKEN), body: [big.slice(0, 3000), big.slice(3000)] });
    for (const r of [declared, chunked]) {
      expect(r.status).toBe(413);
      expect(r.headers.connection).toBe('close');
      expect(JSON.parse(r.body)).toEqual({ error: `body over ${MAX_BODY_BYTES} bytes` });
    }
    const atLimit = JSON.stringify({ reason: 'y'.repeat(MAX_BODY_BYTES - 13) });
    expect(Buffer.byteLength(atLimit)).toBe(MAX_BODY_BYTES);
    expect((await request(`${server.url}/kill`, { method: 'POST', headers: bearer(TOKEN), body: atLimit })).status).toBe(200);
    expect(calls.kill).toHaveLength(1);
  });
});

describe('control server: connections', () => {
  it('a new connection holds market data back while its request is read: a GET lets it go before it is served, a kill once answered', async () => {
    await new Promise((r) => setTimeout(r, 3 * HOLD_MAX_MS)); // no window of the earlier tests' connections in the way
    let heldAtKill: boolean | undefined;
    let heldAtReady: boolean | undefined;
    const { server } = await start({
      kill: () => {
        heldAtKill = dataHeld();
        return { state: 'HALTED' };
      },
      ready: () => {
        heldAtReady = dataHeld();
        return { ready: true, reasons: [] };
      },
    });
    const body = JSON.stringify({ reason: 'test' });
    expect((await request(`${server.url}/kill`, { method: 'POST', headers: { ...bearer(TOKEN), 'Content-Type': 'application/json' }, body })).status).toBe(200);
    expect(heldAtKill).toBe(true);
    expect(dataHeld()).toBe(false);
    await new Promise((r) => setTimeout(r, 3 * HOLD_MAX_MS));
    expect((await request(`${server.url}/readyz`)).status).toBe(200);
    expect(heldAtReady).toBe(false);
  });

  it('keeps connections alive, and close() ends idle keep-alive connections at once', async () => {
    const { server } = await start();
    const agent = new Agent({ keepAlive: true });
    const first = await request(`${server.url}/livez`, { agent });
    const second = await request(`${server.url}/readyz`, { agent });
    expect(first.headers.connection).toBe('keep-alive');
    expect([first.reusedSocket, second.reusedSocket]).toEqual([false, true]);
    const idle = Object.values(agent.freeSockets).flat();
    expect(idle).toHaveLength(1);
    const closed = new Promise<void>((resolve) => idle[0]!.once('close', () => resolve()));
    await servers.splice(0)[0]!.close();
    await closed;
    await expect(request(`${server.url}/livez`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    agent.destroy();
  });

  it('rejects when the port is taken', async () => {
    const { server } = await start();
    await expect(startControlServer({ ...minimalOptions(), port: server.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

function minimalOptions(): ControlServerOptions {
  return {
    port: 0,
    metrics: createMetrics(),
    ready: () => ({ ready: true, reasons: [] }),
    status: () => ({}),
    kill: () => undefined,
    resume: () => undefined,
  };
}
