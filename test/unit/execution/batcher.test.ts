import { describe, expect, it } from 'vitest';
import type { OrderEvent, OrderSpec } from '../../../src/core/intent.js';
import { Batcher, type Batch, type BatchSink, type Command } from '../../../src/execution/batcher.js';
import { Execution } from '../../../src/execution/engine.js';
import { Tracker } from '../../../src/execution/tracker.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { base58Decode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { MessageSigner } from '../../../src/protocol/presigner.js';
import { signRequest } from '../../../src/protocol/sign.js';
import type { Dialect } from '../../../src/core/types.js';
import type { SubmitOutcome } from '../../../src/venue/port.js';
import { verify } from 'node:crypto';
import { accepted, fact, FakeQueries, FakeRisk, FakeSubmitter, ManualTimers, flushPromises, manualClock, openRow } from './fakes.js';

const key = Keypair.generate();
const spec = (over: Partial<OrderSpec> = {}): OrderSpec => ({ symbol: 'BTC-USD', side: 'buy', price: 100, size: 1, tif: 'GTC', reduceOnly: false, ...over });
const stamp = { dataTimeMs: 1, dataVersion: 1 };

function counterNonces(start = 1000n) {
  let n = start;
  const used: bigint[] = [];
  return { used, next: () => (used.push(++n), n) };
}

function batcherWith(submitter: FakeSubmitter, opts: { maxItems?: number; flush?: 'microtask' | 'immediate'; key?: MessageSigner; dialect?: Dialect } = {}) {
  const tracker = new Tracker({ nowMs: () => 0, onEvent: () => undefined });
  const batches: Batch[] = [];
  const settled: SubmitOutcome[] = [];
  const sink: BatchSink = {
    admit: () => true,
    signed: (b) => {
      batches.push(b);
      b.commands.forEach((c, i) => c.kind === 'place' && tracker.sent(c.order, b.request.encoded.orderIds[i]!));
    },
    written: () => undefined,
    settled: (_b, o) => settled.push(o),
    signFailed: () => undefined,
  };
  const nonces = counterNonces();
  const batcher = new Batcher({
    codec: codecFor(opts.dialect ?? 'v1'),
    key: opts.key ?? key,
    account: key.publicKey,
    network: 'mainnet',
    mode: 'raw',
    nonces,
    submitter,
    clock: manualClock(),
    sink,
    maxItems: opts.maxItems,
    flush: opts.flush,
  });
  /** A resting order of the tracker to cancel. */
  const live = (id: string) => {
    const o = tracker.create('mm', spec({ price: 90 }));
    tracker.sent(o, id);
    tracker.answered(o);
    return o;
  };
  const place = (s: OrderSpec): Command => ({ kind: 'place', order: tracker.create('mm', s), arrivalNs: undefined });
  return { batcher, batches, settled, nonces, tracker, live, place };
}

describe('batcher', () => {
  it('rehearse() runs the last batch again as a dry run: same message, a throwaway signature, no nonce, nothing sent', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, batches, nonces, live, place } = batcherWith(submitter);
    expect(batcher.rehearse()).toBeUndefined();
    batcher.enqueue(place(spec({ price: 99 })));
    batcher.enqueue({ kind: 'cancel', order: live('11111111111111111111111111111111'), arrivalNs: undefined });
    await Promise.resolve();
    const dry = batcher.rehearse()!;
    batcher.rehearse();
    await Promise.resolve();
    expect(submitter.sent).toHaveLength(1);
    expect(batches).toHaveLength(1);
    expect(nonces.used).toHaveLength(1);
    expect(batcher.queued).toBe(0);
    const real = submitter.sent[0]!.request;
    expect(Buffer.from(dry.encoded.message).equals(Buffer.from(real.encoded.message))).toBe(true);
    expect(JSON.parse(dry.bodyText).action).toEqual(submitter.sent[0]!.body.action);
    const publicKey = { key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key.publicKeyBytes]), format: 'der', type: 'spki' } as const;
    const verifies = (r: typeof real) => verify(null, r.encoded.message, publicKey, Buffer.from(base58Decode(r.signature)));
    expect(verifies(real)).toBe(true);
    expect(verifies(dry)).toBe(false);
  });

  it('rehearse() in the current dialect gives the same transaction (same order ids) under a throwaway signature', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, place } = batcherWith(submitter, { dialect: 'current' });
    batcher.enqueue(place(spec({ clientTag: 'a' })));
    await Promise.resolve();
    const dry = batcher.rehearse()!;
    const real = submitter.sent[0]!.request;
    expect(submitter.sent).toHaveLength(1);
    expect(dry.encoded.orderIds).toEqual(real.encoded.orderIds);
    expect(JSON.parse(dry.bodyText).actions).toEqual(submitter.sent[0]!.body.actions);
    expect(dry.signature).not.toBe(real.signature);
  });

  it('rehearse() does nothing for a signer without a warm path', async () => {
    const submitter = new FakeSubmitter();
    const plain: MessageSigner = { publicKey: key.publicKey, sign: (m) => key.sign(m) };
    const { batcher, place } = batcherWith(submitter, { key: plain });
    batcher.enqueue(place(spec()));
    await Promise.resolve();
    expect(batcher.rehearse()).toBeUndefined();
    expect(submitter.sent).toHaveLength(1);
  });

  it('packs the commands of one tick into one signed batch, cancels first, one nonce', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, batches, nonces, live, place } = batcherWith(submitter);
    const victim = live('11111111111111111111111111111111');
    batcher.enqueue(place(spec({ price: 99 })));
    batcher.enqueue({ kind: 'cancel', order: victim, arrivalNs: undefined });
    batcher.enqueue(place(spec({ price: 98 })));
    expect(submitter.sent).toHaveLength(0);
    await Promise.resolve();
    expect(submitter.sent).toHaveLength(1);
    const body = submitter.sent[0]!.body;
    expect(body.action.orders.map((i: object) => Object.keys(i)[0])).toEqual(['cancel', 'order', 'order']);
    expect(body.action.orders[1].order.px).toBe(99);
    expect(BigInt(body.action.nonce)).toBe(nonces.used[0]);
    expect(nonces.used).toHaveLength(1);
    expect(batches[0]!.commands[1]!.order.orderId).toBe(submitter.sent[0]!.request.encoded.orderIds[1]);
  });

  it('splits beyond maxItems, each batch with its own nonce, cancels still first', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, nonces, live, place } = batcherWith(submitter, { maxItems: 2 });
    const ids = ['11111111111111111111111111111112', '11111111111111111111111111111113'];
    for (let i = 0; i < 3; i++) batcher.enqueue(place(spec({ price: 90 + i })));
    for (const id of ids) batcher.enqueue({ kind: 'cancel', order: live(id), arrivalNs: undefined });
    await Promise.resolve();
    const kinds = submitter.sent.map((s) => s.body.action.orders.map((i: object) => Object.keys(i)[0]));
    expect(kinds).toEqual([['cancel', 'cancel'], ['order', 'order'], ['order']]);
    expect(new Set(submitter.sent.map((s) => BigInt(s.body.action.nonce)))).toEqual(new Set(nonces.used));
    expect(nonces.used).toHaveLength(3);
  });

  it('flushes on setImmediate when asked, so commands of several tasks share a batch', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, place } = batcherWith(submitter, { flush: 'immediate' });
    batcher.enqueue(place(spec({ price: 99 })));
    await Promise.resolve();
    batcher.enqueue(place(spec({ price: 98 })));
    await new Promise((r) => setImmediate(r));
    expect(submitter.sent.map((s) => s.body.action.orders.length)).toEqual([2]);
  });

  it('a withdrawn place is never sent', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, place } = batcherWith(submitter);
    const c = place(spec());
    batcher.enqueue(c);
    expect(batcher.withdraw(c.order)).toBe(true);
    await Promise.resolve();
    expect(submitter.sent).toHaveLength(0);
  });

  it('an item the codec refuses fails alone; the rest of the batch still goes', async () => {
    const submitter = new FakeSubmitter();
    const failed: string[] = [];
    const { batcher, place, live } = batcherWith(submitter);
    (batcher as unknown as { opts: { sink: BatchSink } }).opts.sink.signFailed = (c, e) => failed.push(`${c.kind}: ${e.message}`);
    batcher.enqueue({ kind: 'cancel', order: live('not base58: 0OIl'), arrivalNs: undefined });
    batcher.enqueue(place(spec()));
    await Promise.resolve();
    expect(failed).toEqual([expect.stringMatching(/^cancel: oid/)]);
    expect(submitter.sent.map((s) => s.body.action.orders.length)).toEqual([1]);
  });

  it('signs its batches without the schema pass, to the bytes the validating encode gives', async () => {
    const submitter = new FakeSubmitter();
    const { batcher, batches, nonces, place, live } = batcherWith(submitter);
    batcher.enqueue({ kind: 'cancel', order: live(key.publicKey), arrivalNs: undefined });
    batcher.enqueue(place(spec({ tif: 'ALO' })));
    batcher.enqueue(place(spec({ price: undefined, tif: 'IOC', side: 'sell' })));
    await Promise.resolve();
    const request = batches[0]!.request;
    const { nonce: _bodyNonce, ...actions } = submitter.sent[0]!.body.action;
    const validated = signRequest(codecFor('v1'), key, {
      actions,
      account: key.publicKey,
      signer: key.publicKey,
      nonce: nonces.used[0]!,
      network: 'mainnet',
      mode: 'raw',
    });
    expect(request.encoded.message).toEqual(validated.encoded.message);
    expect(request.bodyText).toBe(validated.bodyText);
    expect(request.encoded.orderIds).toEqual(validated.encoded.orderIds);
  });
});

describe('unknown submit outcomes', () => {
  function engine(submitter: FakeSubmitter, queries: FakeQueries, timers: ManualTimers) {
    const nonces = counterNonces();
    const events: OrderEvent[] = [];
    const exec = new Execution({
      codec: codecFor('v1'),
      key,
      nonces,
      submitter,
      queries,
      risk: new FakeRisk(),
      clock: manualClock(),
      timers,
      resolveDelaysMs: [100, 200, 400],
    });
    exec.events$('mm').subscribe((e) => events.push(e));
    return { exec, events, nonces };
  }

  it('are never re-signed or re-sent: the order goes unknown, then the venue is queried and it resolves', async () => {
    const submitter = new FakeSubmitter((request) => ({ outcome: 'unknown', reason: 'timed out', request }));
    const queries = new FakeQueries();
    const timers = new ManualTimers();
    const { exec, events, nonces } = engine(submitter, queries, timers);
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a' }), ...stamp });
    await flushPromises();
    const id = submitter.sent[0]!.request.encoded.orderIds[0]!;
    expect(events.map((e) => e.status)).toEqual(['pendingNew', 'unknown']);
    const queriesBefore = queries.calls;
    await timers.advance(100);
    expect(queries.calls).toBe(queriesBefore + 1);
    expect(events.at(-1)!.status).toBe('unknown');
    queries.open = [openRow(id)];
    await timers.advance(200);
    expect(events.map((e) => e.status)).toEqual(['pendingNew', 'unknown', 'placed']);
    expect(submitter.sent).toHaveLength(1);
    expect(nonces.used).toHaveLength(1);
    await timers.advance(10_000);
    expect(submitter.sent).toHaveLength(1);
  });

  it('an order never found after every round is concluded locally; transport failures leave it unknown', async () => {
    const submitter = new FakeSubmitter((request) => ({ outcome: 'unknown', reason: 'HTTP 502', request }));
    const queries = new FakeQueries();
    const timers = new ManualTimers();
    const { exec, events } = engine(submitter, queries, timers);
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec(), ...stamp });
    exec.submit('mm', { kind: 'place', order: spec({ price: 99 }), ...stamp });
    await flushPromises();
    await timers.advance(1000);
    expect(events.filter((e) => e.status === 'rejectedInvalid')).toHaveLength(2);
    expect(events.at(-1)!.reason).toMatch(/not found at the venue after 3 queries/);
    exec.submit('mm', { kind: 'place', order: spec({ price: 97 }), ...stamp });
    await flushPromises();
    queries.fail = 10;
    await timers.advance(1000);
    expect(events.at(-1)!.status).toBe('unknown');
    expect(submitter.sent).toHaveLength(2);
  });

  it('an outage longer than every round never strands an order: the venue is asked at the last delay until it answers', async () => {
    const submitter = new FakeSubmitter((request) => ({ outcome: 'unknown', reason: 'timed out', request }));
    const queries = new FakeQueries();
    const timers = new ManualTimers();
    const { exec, events } = engine(submitter, queries, timers);
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec(), ...stamp });
    await flushPromises();
    const id = submitter.sent[0]!.request.encoded.orderIds[0]!;
    queries.fail = 20;
    const before = queries.calls;
    await timers.advance(100 + 200 + 18 * 400);
    expect(queries.calls - before).toBe(20);
    expect(events.at(-1)!.status).toBe('unknown');
    queries.open = [openRow(id)];
    await timers.advance(400);
    expect(events.at(-1)).toMatchObject({ orderId: id, status: 'placed' });
    expect(submitter.sent).toHaveLength(1);
  });

  it('a cancel asked while the order is in flight waits for its answer, then goes', async () => {
    const submitter = new FakeSubmitter();
    submitter.manual = true;
    const queries = new FakeQueries();
    const { exec, events } = engine(submitter, queries, new ManualTimers());
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a' }), ...stamp });
    await flushPromises();
    exec.submit('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'a' }, ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(1);
    expect(events.map((e) => e.status)).toEqual(['pendingNew', 'pendingCancel']);
    const first = submitter.sent[0]!;
    first.resolve(accepted([fact(first.request.encoded.orderIds[0], 'placed')]));
    await flushPromises();
    expect(submitter.sent).toHaveLength(2);
    expect(submitter.sent[1]!.body.action.orders).toEqual([{ cancel: { c: 'BTC-USD', oid: first.request.encoded.orderIds[0] } }]);
    submitter.sent[1]!.resolve(accepted([fact(first.request.encoded.orderIds[0], 'cancelled')]));
    await flushPromises();
    expect(events.map((e) => e.status)).toEqual(['pendingNew', 'pendingCancel', 'cancelled']);
  });
});
