import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import type { OrderEvent, OrderSpec, QuoteSpec } from '../../../src/core/intent.js';
import { systemClock } from '../../../src/core/clock.js';
import { Execution, type ExecutionOptions } from '../../../src/execution/engine.js';
import { MemoryCounter, SampleHistogram } from '../../../src/execution/metrics.js';
import { matchItems } from '../../../src/execution/outcome.js';
import { realTimers } from '../../../src/execution/ports.js';
import { RECONCILE_OWNER } from '../../../src/execution/reconcile.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { MessageSigner } from '../../../src/protocol/presigner.js';
import type { VenueOrderFact } from '../../../src/venue/port.js';
import { key as oid } from '../../support/loopback-venue.js';
import { accepted, fact, FakeQueries, FakeRisk, FakeSubmitter, flushPromises, historyRow, itemError, ManualTimers, manualClock, openRow } from './fakes.js';

const key = Keypair.generate();
const spec = (over: Partial<OrderSpec> = {}): OrderSpec => ({ symbol: 'BTC-USD', side: 'buy', price: 100, size: 1, tif: 'GTC', reduceOnly: false, ...over });
const stamp = { dataTimeMs: 1, dataVersion: 1 };
/** A bid at 99 and an ask at 101, 1 each. */
const TWO_SIDED: readonly QuoteSpec[] = [
  { side: 'buy', price: 99, size: 1 },
  { side: 'sell', price: 101, size: 1 },
];
const OTHER_ID = oid(9);

function setup(over: Partial<ExecutionOptions> = {}) {
  let n = 1000n;
  const submitter = (over.submitter as FakeSubmitter | undefined) ?? new FakeSubmitter();
  const queries = (over.queries as FakeQueries | undefined) ?? new FakeQueries();
  const risk = (over.risk as FakeRisk | undefined) ?? new FakeRisk();
  const timers = new ManualTimers();
  const exec = new Execution({ codec: codecFor('v1'), key, nonces: { next: () => ++n }, submitter, queries, risk, clock: manualClock(), timers, ...over });
  const events: OrderEvent[] = [];
  exec.events$().subscribe((e) => events.push(e));
  return { exec, submitter, queries, risk, timers, events };
}

describe('execution: the intent behind each order', () => {
  it("carries the intent's number, each order's leg among its market and side, and its data time on every event; none without a number", async () => {
    const { exec, events } = setup();
    await exec.start();
    const quotes = [
      { side: 'buy' as const, price: 99, size: 1 },
      { side: 'sell' as const, price: 101, size: 1 },
      { side: 'buy' as const, price: 98, size: 1 },
    ];
    exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes, dataTimeMs: 7, dataVersion: 1 }, 12);
    exec.submit('mm', { kind: 'place', order: spec({ price: 97 }), ...stamp });
    await flushPromises();
    const pending = events.filter((e) => e.status === 'pendingNew');
    expect(pending.map((e) => [e.side, e.price, e.intent])).toEqual([
      ['buy', 99, { seq: 12, leg: 0, dataTimeMs: 7 }],
      ['sell', 101, { seq: 12, leg: 0, dataTimeMs: 7 }],
      ['buy', 98, { seq: 12, leg: 1, dataTimeMs: 7 }],
      ['buy', 97, undefined],
    ]);
    expect(events.filter((e) => e.price === 98).every((e) => e.intent?.seq === 12)).toBe(true);
  });
});

describe('execution: risk gate', () => {
  it('checks every primitive op; a denied place never reaches the submitter and reaches the strategy as an event', async () => {
    const risk = new FakeRisk((op) =>
      op.kind === 'place' && op.order.size > 5 ? { ok: false, reason: 'MAX_ORDER_SIZE', detail: 'size 10 > 5' } : { ok: true },
    );
    const denials = new MemoryCounter();
    const { exec, submitter, events } = setup({ risk, metrics: { denials } });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ size: 10, clientTag: 'big' }), ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(0);
    expect(events).toEqual([
      expect.objectContaining({ strategy: 'mm', clientTag: 'big', status: 'rejectedRiskLimit', reason: 'risk MAX_ORDER_SIZE: size 10 > 5' }),
    ]);
    expect(events[0]!.orderId).toMatch(/^local:/);
    expect(risk.checks).toEqual([{ kind: 'place', strategy: 'mm', order: spec({ size: 10, clientTag: 'big' }), stamp }]);
    expect(denials.get('MAX_ORDER_SIZE')).toBe(1);
  });

  it('a refused cancel keeps the order and, in a replace, stops the new order too', async () => {
    const risk = new FakeRisk((op) => (op.kind === 'cancel' ? { ok: false, reason: 'CANCEL_RATE', detail: 'too many' } : { ok: true }));
    const { exec, submitter, events } = setup({ risk });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a' }), ...stamp });
    await flushPromises();
    exec.submit('mm', { kind: 'replace', ref: { clientTag: 'a' }, order: spec({ clientTag: 'a', price: 99 }), ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(1);
    expect(events.slice(-2).map((e) => [e.status, e.reason])).toEqual([
      ['placed', 'cancel refused by risk CANCEL_RATE: too many'],
      ['rejectedRiskLimit', 'execution LINKED: not placed: the cancel it replaces was refused'],
    ]);
  });

  it('drops places still queued when trading is HALTED at the flush (cancels still go)', async () => {
    const { exec, submitter, risk, events } = setup();
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a' }), ...stamp });
    await flushPromises();
    exec.submit('mm', { kind: 'place', order: spec({ price: 98 }), ...stamp });
    exec.submit('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'a' }, ...stamp });
    risk.halt('kill switch');
    await flushPromises();
    expect(submitter.sent.map((s) => s.body.action.orders.map((i: object) => Object.keys(i)[0]))).toEqual([['order'], ['cancel']]);
    expect(events.find((e) => e.price === 98)).toMatchObject({ status: 'rejectedRiskLimit', reason: expect.stringMatching(/HALTED/) });
  });

  it('refuses malformed orders locally', async () => {
    const { exec, submitter, events } = setup();
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ size: Number.NaN }), ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(0);
    expect(events[0]).toMatchObject({ status: 'rejectedInvalid', reason: expect.stringMatching(/size/) });
    exec.submit('mm', { kind: 'place', order: spec({ trigger: { kind: 'stop', triggerPrice: 0 } }), ...stamp });
    exec.submit('mm', { kind: 'place', order: spec({ tif: 'IOC', trigger: { kind: 'stop', triggerPrice: 101 } }), ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(0);
    expect(events.slice(1).map((e) => e.reason)).toEqual([
      'execution INVALID: trigger.triggerPrice must be a finite number > 0, got 0',
      "execution INVALID: a trigger order's tif must be GTC, got IOC",
    ]);
  });
});

describe('execution: venue answers', () => {
  it('every item status reaches the owner; rejections are reported to risk', async () => {
    const submitter = new FakeSubmitter((request) => {
      const [a, b, c] = request.encoded.orderIds;
      return accepted([
        fact(a, 'rejectedCrossing'),
        fact(b, 'cancelledIOC', { filledSize: 0.5 }),
        fact(c, 'rejectedRiskLimit', { reason: 'insufficient margin' }),
      ]);
    });
    const { exec, risk, events } = setup({ submitter });
    await exec.start();
    exec.submit('a', { kind: 'place', order: spec({ tif: 'ALO' }), ...stamp });
    exec.submit('b', { kind: 'place', order: spec({ tif: 'IOC' }), ...stamp });
    exec.submit('a', { kind: 'place', order: spec({ size: 100 }), ...stamp });
    await flushPromises();
    const final = events.filter((e) => e.status !== 'pendingNew').map((e) => [e.strategy, e.status, e.filledSize, e.reason]);
    expect(final).toEqual([
      ['a', 'rejectedCrossing', 0, undefined],
      ['b', 'cancelledIOC', 0.5, undefined],
      ['a', 'rejectedRiskLimit', 0, 'insufficient margin'],
    ]);
    expect(risk.rejects).toEqual(['rejectedCrossing', 'rejectedRiskLimit']);
  });

  it('a request refused as a whole fails all its commands', async () => {
    const submitter = new FakeSubmitter(() => ({ outcome: 'rejected', reason: 'bad signature', httpStatus: 200, code: undefined, retryAfterMs: undefined }));
    const { exec, risk, events } = setup({ submitter });
    await exec.start();
    exec.submit('mm', {
      kind: 'quoteSet',
      symbol: 'BTC-USD',
      quotes: TWO_SIDED,
      ...stamp,
    });
    await flushPromises();
    expect(events.filter((e) => e.status === 'rejectedInvalid').map((e) => e.reason)).toEqual([
      'request rejected (HTTP 200): bad signature',
      'request rejected (HTTP 200): bad signature',
    ]);
    expect(risk.rejects).toEqual(['error']);
    expect(exec.openOrders()).toEqual([]);
  });

  /** An order resting at the venue (placed), then its cancel answered "order not found". */
  async function cancelNotFound() {
    const t = setup();
    await t.exec.start();
    t.exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a' }), ...stamp });
    await flushPromises();
    const id = t.submitter.sent[0]!.request.encoded.orderIds[0]!;
    t.submitter.answer = () => accepted([itemError('order not found')]);
    t.exec.submit('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'a' }, ...stamp });
    await flushPromises();
    t.submitter.answer = undefined;
    expect(t.events.at(-1)).toMatchObject({ status: 'pendingCancel', reason: 'cancel answered "order not found": asking the venue' });
    return { ...t, id };
  }

  it('a cancel answered "order not found" stays pendingCancel until a query says: done (history)', async () => {
    const { queries, timers, events, id } = await cancelNotFound();
    queries.history = [historyRow(id, 'filled', 1)];
    await timers.advance(100);
    expect(events.at(-1)).toMatchObject({ status: 'filled', filledSize: 1 });
  });

  it('a cancel answered "order not found" for an order that still rests reverts it with the reason', async () => {
    const { queries, timers, events, id } = await cancelNotFound();
    queries.open = [openRow(id)];
    await timers.advance(100);
    expect(events.at(-1)).toMatchObject({ status: 'placed', reason: 'cancel failed: order not found' });
  });

  it('an order the venue does not know (cancel "order not found", neither open nor in history) is concluded after one query, and not cancelled again', async () => {
    const { exec, submitter, queries, timers, events, id } = await cancelNotFound();
    exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: [{ side: 'buy', price: 99, size: 1 }], ...stamp });
    await flushPromises();
    expect(submitter.sent.at(-1)!.body.action.orders.map((i: object) => Object.keys(i)[0])).toEqual(['order']);
    const calls = queries.calls;
    await timers.advance(100);
    expect(queries.calls).toBe(calls + 1);
    expect(events.filter((e) => e.orderId === id).at(-1)).toMatchObject({
      status: 'cancelled',
      reason: expect.stringMatching(/^lost by the venue .*"order not found"/),
    });
    expect(exec.openOrders('mm').map((o) => o.spec.price)).toEqual([99]);
  });

  it('stream updates move orders; those of orders nobody here placed are ignored', async () => {
    const updates = new Subject<VenueOrderFact>();
    const { exec, submitter, events } = setup({ orderUpdates$: updates });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec(), ...stamp });
    await flushPromises();
    const id = submitter.sent[0]!.request.encoded.orderIds[0]!;
    updates.next({ orderId: id, status: 'working', filledSize: 0.4 });
    updates.next({ orderId: OTHER_ID, status: 'working', filledSize: 0.4 });
    updates.next({ orderId: id, status: 'placed', filledSize: 0 });
    expect(events.map((e) => [e.status, e.filledSize])).toEqual([
      ['pendingNew', 0],
      ['placed', 0],
      ['working', 0.4],
    ]);
  });

  it('matches item results by position when one per item, by order id otherwise', () => {
    expect(matchItems(['A', 'B'], [itemError('x'), fact('B', 'placed')]).answers).toEqual([
      { facts: [], error: 'x' },
      { facts: [{ orderId: 'B', status: 'placed' }], error: undefined },
    ]);
    expect(matchItems(['A', 'B'], [{ kind: 'done' }, fact('B', 'placed')]).answers.map((a) => a.facts.length)).toEqual([0, 1]);
    const m = matchItems(['A', 'B'], [fact('Z', 'filled', { filledSize: 1 }), fact('B', 'working', { filledSize: 1 }), fact('A', 'placed')]);
    expect(m.answers.map((a) => a.facts.map((f) => f.status))).toEqual([['placed'], ['working']]);
    expect(m.others).toEqual([{ orderId: 'Z', status: 'filled', filledSize: 1 }]);
  });
});

describe('execution: a codec without client order ids (current dialect)', () => {
  it("sends one transaction of l / cx actions; ids are the codec's; a live tag is refused locally", async () => {
    const { exec, submitter, events } = setup({ codec: codecFor('current') });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a', tif: 'ALO' }), ...stamp });
    exec.submit('mm', { kind: 'place', order: spec({ clientTag: 'a' }), ...stamp });
    await flushPromises();
    expect(submitter.sent[0]!.body.actions).toEqual([{ l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'ALO', r: false, i: false } }]);
    expect(events.find((e) => e.status === 'rejectedDuplicate')?.reason).toMatch(/client tag "a" is carried by live order/);
    const id = submitter.sent[0]!.request.encoded.orderIds[0]!;
    exec.submit('mm', { kind: 'replace', ref: { clientTag: 'a' }, order: spec({ clientTag: 'a', price: 99 }), ...stamp });
    await flushPromises();
    expect(submitter.sent[1]!.body.actions).toEqual([
      { cx: { c: 'BTC-USD', oid: id } },
      { l: { c: 'BTC-USD', b: true, px: 99, sz: 1, tif: 'GTC', r: false, i: false } },
    ]);
    expect(exec.openOrders('mm').map((o) => o.spec.price)).toEqual([99]);
  });

  it("sends a trigger order as st and tracks it under the id computed at signing (perpbot's conditional id rule)", async () => {
    const { exec, submitter } = setup({ codec: codecFor('current') });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ side: 'sell', reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 95 } }), ...stamp });
    await flushPromises();
    expect(submitter.sent[0]!.body.actions).toEqual([{ st: { c: 'BTC-USD', d: false, sz: 1, tr: 95, lim: 100, i: false } }]);
    const id = submitter.sent[0]!.request.encoded.orderIds[0];
    expect(typeof id).toBe('string');
    expect(exec.openOrders('mm').map((o) => o.orderId)).toEqual([id]);
  });

  it('refuses locally what the dialect cannot express: a trailing stop in v1, a trigger that is not reduce-only in current', async () => {
    const denials = new MemoryCounter();
    const trailing = spec({ side: 'sell', price: undefined, reduceOnly: true, trigger: { kind: 'trailing', trailBps: 100, stepBps: 0 } });
    const v1 = setup({ codec: codecFor('v1'), metrics: { denials } });
    const current = setup({ codec: codecFor('current'), metrics: { denials } });
    for (const { exec } of [v1, current]) await exec.start();
    v1.exec.submit('mm', { kind: 'place', order: trailing, ...stamp });
    current.exec.submit('mm', { kind: 'place', order: { ...trailing, reduceOnly: false }, ...stamp });
    current.exec.submit('mm', { kind: 'place', order: trailing, ...stamp });
    await flushPromises();
    expect(v1.submitter.sent).toHaveLength(0);
    expect(v1.events.map((e) => [e.status, e.reason])).toEqual([
      [
        'rejectedInvalid',
        'execution UNSUPPORTED: the v1 dialect: trigger.kind: the v1 dialect has no trailing orders (stop and takeProfit only); use the current dialect',
      ],
    ]);
    expect(current.events[0]).toMatchObject({
      status: 'rejectedInvalid',
      reason: expect.stringMatching(/^execution UNSUPPORTED: the current dialect: reduceOnly: /),
    });
    expect(denials.get('LOCAL_UNSUPPORTED')).toBe(2);
    expect(current.submitter.sent.map((s) => s.body.actions)).toEqual([[{ trl: { c: 'BTC-USD', b: true, sz: 1, trb: 100, stb: 0, i: false } }]]);
  });
});

describe('execution: on-fill orders (current dialect)', () => {
  const child = spec({ side: 'sell', price: undefined, reduceOnly: true, clientTag: 'tp', trigger: { kind: 'takeProfit', triggerPrice: 110 } });
  const parent = spec({ clientTag: 'entry', onFill: [child] });

  it('tracks each child under its nested id: untriggered while held, then as the venue reports it; cancelled when the parent ends unfilled', async () => {
    const updates = new Subject<VenueOrderFact>();
    const submitter = new FakeSubmitter((request) => accepted([fact(request.encoded.orderIds[0], 'placed')]));
    const { exec, events, risk } = setup({ codec: codecFor('current'), submitter, orderUpdates$: updates });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: parent, ...stamp });
    exec.submit('mm', { kind: 'place', order: { ...parent, clientTag: 'other', onFill: [{ ...child, clientTag: 'tp2' }] }, ...stamp });
    await flushPromises();
    expect(risk.checks.map((c) => (c.kind === 'place' ? c.order.clientTag : c.kind))).toEqual(['entry', 'tp', 'other', 'tp2']);
    const encoded = submitter.sent[0]!.request.encoded;
    expect(submitter.sent[0]!.body.actions[0].of.actions).toEqual([{ tp: { c: 'BTC-USD', d: true, sz: 1, tr: 110, i: false } }]);
    const [childId, child2Id] = encoded.childOrderIds.map((ids) => ids[0]!);
    const [parentId, parent2Id] = encoded.orderIds;
    const of = (tag: string) => events.filter((e) => e.clientTag === tag).map((e) => [e.orderId, e.status, e.reason]);
    expect(of('tp')).toEqual([[childId, 'untriggered', undefined]]);

    exec.submit('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'tp' }, ...stamp });
    expect(of('tp')[1]).toEqual([childId, 'untriggered', `held until ${parentId} fills: cancel that order to cancel this one`]);
    updates.next({ orderId: parentId!, status: 'filled', filledSize: 1 });
    updates.next({ orderId: childId!, status: 'placed', filledSize: 0 });
    updates.next({ orderId: childId!, status: 'filled', filledSize: 1 });
    expect(
      of('tp')
        .slice(2)
        .map(([, status]) => status),
    ).toEqual(['filled']);

    updates.next({ orderId: parent2Id!, status: 'cancelled', filledSize: 0 });
    expect(of('tp2')).toEqual([
      [child2Id, 'untriggered', undefined],
      [child2Id, 'cancelled', `on-fill order not placed: ${parent2Id} ended cancelled without filling completely`],
    ]);
    expect(exec.openOrders('mm')).toEqual([]);
  });

  it('refuses locally an on-fill order the dialect or the checks refuse, with its children', async () => {
    const v1 = setup();
    const current = setup({ codec: codecFor('current') });
    for (const { exec } of [v1, current]) await exec.start();
    v1.exec.submit('mm', { kind: 'place', order: parent, ...stamp });
    current.exec.submit('mm', { kind: 'place', order: { ...parent, onFill: [{ ...child, size: -1 }] }, ...stamp });
    current.exec.submit('mm', { kind: 'place', order: { ...parent, onFill: [{ ...child, reduceOnly: false }] }, ...stamp });
    await flushPromises();
    for (const { submitter } of [v1, current]) expect(submitter.sent).toHaveLength(0);
    expect(v1.events.find((e) => e.clientTag === 'entry')?.reason).toMatch(/^execution UNSUPPORTED: the v1 dialect: onFill: /);
    expect(current.events.filter((e) => e.clientTag === 'entry').map((e) => e.reason)).toEqual([
      'execution INVALID: onFill[0]: size must be a finite number > 0, got -1',
      expect.stringMatching(/^execution UNSUPPORTED: the current dialect: reduceOnly: /),
    ]);
    expect(current.events.filter((e) => e.clientTag === 'tp').map((e) => e.status)).toEqual(['cancelled', 'cancelled']);
  });
});

describe('execution: orders parked in a trigger basket (whenMark, current dialect)', () => {
  it("is known by its own id and the basket's: untriggered while parked, the basket's fill ignored, cancelled by the basket's id", async () => {
    const updates = new Subject<VenueOrderFact>();
    const submitter = new FakeSubmitter((request, body) =>
      accepted(body.actions.map((a: any, i: number) => (a.cx ? fact(a.cx.oid, 'cancelled') : fact(request.encoded.orderIds[i], 'placed')))),
    );
    const { exec, events } = setup({ codec: codecFor('current'), submitter, orderUpdates$: updates });
    await exec.start();
    const parked = (clientTag: string) => spec({ clientTag, whenMark: { above: true, price: 105 } });
    exec.submit('mm', { kind: 'place', order: parked('a'), ...stamp });
    exec.submit('mm', { kind: 'place', order: parked('b'), ...stamp });
    await flushPromises();
    const [basketA, basketB] = submitter.sent[0]!.request.encoded.orderIds;
    const [idA, idB] = submitter.sent[0]!.request.encoded.childOrderIds.map((ids) => ids[0]!);
    const of = (tag: string) => events.filter((e) => e.clientTag === tag).map((e) => [e.orderId, e.status]);
    expect(of('a')).toEqual([
      [idA, 'pendingNew'],
      [idA, 'untriggered'],
    ]);
    updates.next({ orderId: basketA!, status: 'placed', parked: false }); // triggered: the basket fired
    updates.next({ orderId: basketA!, status: 'filled', filledSize: 0 });
    expect(of('a').slice(2)).toEqual([[idA, 'placed']]);
    updates.next({ orderId: idA!, status: 'placed', filledSize: 0 });
    updates.next({ orderId: idA!, status: 'filled', filledSize: 1 });
    expect(
      of('a')
        .slice(2)
        .map(([, s]) => s),
    ).toEqual(['placed', 'filled']);

    exec.submit('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'b' }, ...stamp });
    await flushPromises();
    expect(submitter.sent[1]!.body.actions).toEqual([{ cx: { c: 'BTC-USD', oid: basketB } }]);
    expect(of('b').map(([, s]) => s)).toEqual(['pendingNew', 'untriggered', 'pendingCancel', 'cancelled']);
    expect(of('b').every(([id]) => id === idB)).toBe(true);
  });
  it('stays parked while its basket rests: the answer naming the basket settles the order (no resolution by query)', async () => {
    const submitter = new FakeSubmitter((request) => accepted([fact(request.encoded.orderIds[0]!, 'placed')]));
    const queries = new FakeQueries();
    const { exec, events, timers } = setup({ codec: codecFor('current'), submitter, queries });
    await exec.start();
    exec.submit('mm', { kind: 'place', order: spec({ whenMark: { above: true, price: 105 } }), ...stamp });
    await flushPromises();
    queries.open = [openRow(submitter.sent[0]!.request.encoded.orderIds[0]!, { price: 0, size: 0 })];
    await timers.advance(60_000);
    expect(events.map((e) => e.status)).toEqual(['pendingNew', 'untriggered']);
  });
});

describe('execution: a basket of several orders (a basket intent, current dialect)', () => {
  const basket = (orders: OrderSpec[]) => ({ kind: 'basket', symbol: 'BTC-USD', whenMark: { above: true, price: 105 }, orders, ...stamp }) as const;

  it('signs one trig; each order is tracked under its nested id: untriggered while parked, its own statuses once fired', async () => {
    const updates = new Subject<VenueOrderFact>();
    const submitter = new FakeSubmitter((request, body) =>
      accepted(body.actions.map((a: any, i: number) => (a.cx ? fact(a.cx.oid, 'cancelled') : fact(request.encoded.orderIds[i], 'placed')))),
    );
    const { exec, events } = setup({ codec: codecFor('current'), submitter, orderUpdates$: updates });
    await exec.start();
    exec.submit('mm', basket([spec({ clientTag: 'a' }), spec({ clientTag: 'b', side: 'sell', price: 110 })]), 7);
    await flushPromises();
    expect(submitter.sent).toHaveLength(1);
    const sent = submitter.sent[0]!;
    expect(sent.body.actions).toHaveLength(1);
    expect(sent.body.actions[0].trig.actions.map((a: any) => a.l.px)).toEqual([100, 110]);
    const [basketId] = sent.request.encoded.orderIds;
    const [idA, idB] = sent.request.encoded.childOrderIds[0]!;
    const of = (tag: string) => events.filter((e) => e.clientTag === tag).map((e) => [e.orderId, e.status]);
    expect(of('a')).toEqual([
      [idA, 'pendingNew'],
      [idA, 'untriggered'],
    ]);
    expect(of('b')).toEqual([
      [idB, 'pendingNew'],
      [idB, 'untriggered'],
    ]);
    expect(events.find((e) => e.clientTag === 'b')!.intent).toEqual({ seq: 7, leg: 0, dataTimeMs: 1 });
    updates.next({ orderId: basketId!, status: 'placed', parked: false });
    updates.next({ orderId: idA!, status: 'filled', filledSize: 1 });
    updates.next({ orderId: idB!, status: 'placed', filledSize: 0 });
    updates.next({ orderId: basketId!, status: 'filled', filledSize: 0 });
    expect(
      of('a')
        .slice(2)
        .map(([, s]) => s),
    ).toEqual(['placed', 'filled']);
    expect(
      of('b')
        .slice(2)
        .map(([, s]) => s),
    ).toEqual(['placed']);

    exec.submit('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'b' }, ...stamp });
    await flushPromises();
    expect(submitter.sent[1]!.body.actions).toEqual([{ cx: { c: 'BTC-USD', oid: idB } }]);
    expect(
      of('b')
        .slice(3)
        .map(([, s]) => s),
    ).toEqual(['pendingCancel', 'cancelled']);
  });

  it('a cancel of any order while parked cancels the basket once (one cx naming it); every order ends cancelled', async () => {
    const submitter = new FakeSubmitter((request, body) =>
      accepted(body.actions.map((a: any, i: number) => (a.cx ? fact(a.cx.oid, 'cancelled') : fact(request.encoded.orderIds[i], 'placed')))),
    );
    const { exec, events } = setup({ codec: codecFor('current'), submitter });
    await exec.start();
    exec.submit('mm', basket([spec({ clientTag: 'a' }), spec({ clientTag: 'b' }), spec({ clientTag: 'c' })]));
    await flushPromises();
    const [basketId] = submitter.sent[0]!.request.encoded.orderIds;
    exec.submit('mm', { kind: 'cancelAll', ...stamp });
    await flushPromises();
    expect(submitter.sent.map((b) => b.body.actions)).toEqual([expect.anything(), [{ cx: { c: 'BTC-USD', oid: basketId } }]]);
    for (const tag of ['a', 'b', 'c'])
      expect(events.filter((e) => e.clientTag === tag).map((e) => e.status)).toEqual(['pendingNew', 'untriggered', 'pendingCancel', 'cancelled']);
    expect(exec.openOrders()).toEqual([]);
  });

  it("risk checks each order before any of the basket's orders counts as open; a tag twice in the basket refuses it", async () => {
    const seen: number[] = [];
    let exec: Execution | undefined;
    const risk = new FakeRisk(() => {
      seen.push(exec!.openOrderCount());
      return { ok: true };
    });
    const s = setup({ codec: codecFor('current'), risk });
    exec = s.exec;
    await exec.start();
    exec.submit('mm', basket([spec({ clientTag: 'a' }), spec({ clientTag: 'b' })]));
    exec.submit('mm', basket([spec({ clientTag: 'c' }), spec({ clientTag: 'c' })]));
    await flushPromises();
    expect(seen).toEqual([0, 0]);
    expect(s.events.filter((e) => e.clientTag === 'c').map((e) => [e.status, e.reason])).toEqual([
      ['rejectedDuplicate', 'execution DUPLICATE_TAG: client tag "c" appears twice in the basket'],
      ['rejectedDuplicate', 'execution DUPLICATE_TAG: client tag "c" appears twice in the basket'],
    ]);
  });

  it('refused as a whole: every order rejected when risk denies one, when v1 cannot express it, when an order carries a trigger', async () => {
    const risk = new FakeRisk((op) => (op.kind === 'place' && op.order.price === 90 ? { ok: false, reason: 'PRICE_BAND', detail: 'far' } : { ok: true }));
    const current = setup({ codec: codecFor('current'), risk });
    await current.exec.start();
    current.exec.submit('mm', basket([spec({ clientTag: 'a' }), spec({ clientTag: 'b', price: 90 })]));
    current.exec.submit('mm', basket([spec({ clientTag: 'c' }), spec({ clientTag: 'd', reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 99 } })]));
    const v1 = setup();
    await v1.exec.start();
    v1.exec.submit('mm', basket([spec({ clientTag: 'e' })]));
    await flushPromises();
    expect(current.submitter.sent).toEqual([]);
    expect(v1.submitter.sent).toEqual([]);
    const last = (events: OrderEvent[], tag: string) => events.filter((e) => e.clientTag === tag).at(-1)!;
    for (const tag of ['a', 'b']) expect(last(current.events, tag)).toMatchObject({ status: 'rejectedRiskLimit', reason: 'risk PRICE_BAND: far' });
    for (const tag of ['c', 'd'])
      expect(last(current.events, tag)).toMatchObject({
        status: 'rejectedInvalid',
        reason: expect.stringMatching(/^execution INVALID: orders\[1\]: a basket's orders/),
      });
    expect(last(v1.events, 'e')).toMatchObject({
      status: 'rejectedInvalid',
      reason: expect.stringMatching(/^execution UNSUPPORTED: the v1 dialect: basket: the v1 dialect has no trigger baskets/),
    });
    expect([...current.exec.openOrders(), ...v1.exec.openOrders()]).toEqual([]);
  });
});

describe('execution: reconciliation and stop', () => {
  it('adopts unknown resting orders for the owner the policy names, cancels the rest, resolves vanished ones', async () => {
    const queries = new FakeQueries();
    const mine = oid(0x21);
    const theirs = oid(0x22);
    queries.open = [openRow(mine, { price: 99 }), openRow(theirs, { symbol: 'ETH-USD', price: 10 })];
    const warnings: [object, string][] = [];
    const { exec, submitter, events } = setup({
      queries,
      reconcile: { unknownOrders: 'adopt', adoptOwner: (o) => (o.symbol === 'BTC-USD' ? 'mm' : undefined) },
      logger: { info: () => {}, warn: (fields: object, msg: string) => void warnings.push([fields, msg]) },
    });
    const report = await exec.start();
    expect(report.adopted.map((o) => o.orderId)).toEqual([mine]);
    expect(report.toCancel.map((o) => o.orderId)).toEqual([theirs]);
    expect(warnings).toEqual([
      [
        {
          open: 2,
          adopted: 1,
          cancelling: 1,
          resolved: 0,
          missing: 0,
          unknownOrders: 'adopt',
          orders: [{ orderId: theirs, symbol: 'ETH-USD', side: 'buy', price: 10, size: 1 }],
        },
        'reconciled orders with the venue: cancelling open orders that no strategy of this bot owns',
      ],
    ]);
    await flushPromises();
    expect(submitter.sent[0]!.body.action.orders).toEqual([{ cancel: { c: 'ETH-USD', oid: theirs } }]);
    expect(events.filter((e) => e.strategy === RECONCILE_OWNER).map((e) => e.status)).toEqual(['placed', 'pendingCancel', 'cancelled']);
    exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: [{ side: 'buy', price: 99, size: 1 }], ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(1);
    queries.open = [];
    queries.history = [historyRow(mine, 'filled', 1)];
    await exec.reconcile();
    expect(exec.order(mine)?.status).toBe('filled');
  });

  it('holds intents until the first reconciliation is done', async () => {
    const { exec, submitter } = setup();
    exec.submit('mm', { kind: 'place', order: spec(), ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(0);
    await exec.start();
    await flushPromises();
    expect(submitter.sent).toHaveLength(1);
  });

  it("cancelStrategy cancels one strategy's orders and reports those risk would not let go", async () => {
    const risk = new FakeRisk();
    const { exec, submitter } = setup({ risk });
    await exec.start();
    exec.submit('a', { kind: 'place', order: spec(), ...stamp });
    exec.submit('a', { kind: 'place', order: spec({ price: 99 }), ...stamp });
    exec.submit('b', { kind: 'place', order: spec({ side: 'sell', price: 101 }), ...stamp });
    await flushPromises();
    let refuse = true;
    risk.decide = (op) => (op.kind === 'cancel' && refuse ? ((refuse = false), { ok: false, reason: 'CANCEL_RATE', detail: 'x' }) : { ok: true });
    const report = await exec.cancelStrategy('a', 1000);
    expect(report).toEqual({ cancelled: 1, open: [exec.openOrders('a')[0]!.orderId], timedOut: true });
    expect(submitter.sent).toHaveLength(2);
    expect(exec.openOrders('b')).toHaveLength(1);
  });

  it('stop cancels every order, waits for the confirmations and ignores later intents', async () => {
    const { exec, submitter } = setup();
    await exec.start();
    exec.submit('a', { kind: 'place', order: spec(), ...stamp });
    exec.submit('b', { kind: 'place', order: spec({ side: 'sell', price: 101 }), ...stamp });
    await flushPromises();
    const report = await exec.stop({ deadlineMs: 1000 });
    expect(report).toEqual({ cancelled: 2, open: [], timedOut: false });
    expect(submitter.sent[1]!.body.action.orders.map((i: object) => Object.keys(i)[0])).toEqual(['cancel', 'cancel']);
    exec.submit('a', { kind: 'place', order: spec(), ...stamp });
    await flushPromises();
    expect(submitter.sent).toHaveLength(2);
    expect(exec.state).toBe('stopped');
  });

  it("stop cancels an open order of the account the bot did not track, found by reading the venue's open orders last", async () => {
    const { exec, submitter, queries, events } = setup();
    await exec.start();
    exec.submit('a', { kind: 'place', order: spec(), ...stamp });
    await flushPromises();
    queries.open = [openRow(OTHER_ID, { symbol: 'ETH-USD', price: 2000 })];
    const callsBefore = queries.calls;
    const report = await exec.stop({ deadlineMs: 1000 });
    expect(queries.calls).toBeGreaterThan(callsBefore);
    expect(submitter.sent.map((b) => b.body.action.orders.map((i: object) => Object.keys(i)[0]))).toEqual([['order'], ['cancel'], ['cancel']]);
    expect(submitter.sent[2]!.body.action.orders).toEqual([{ cancel: { c: 'ETH-USD', oid: OTHER_ID } }]);
    expect(report).toEqual({ cancelled: 2, open: [], timedOut: false });
    expect(events.filter((e) => e.orderId === OTHER_ID).map((e) => e.status)).toEqual(['placed', 'pendingCancel', 'cancelled']);
  });

  it('stop reports timedOut and warns when the venue cannot be asked for its open orders, trying again once a pass', async () => {
    const warnings: [object, string][] = [];
    const { exec, queries } = setup({
      clock: systemClock(),
      timers: realTimers,
      logger: { info: () => {}, warn: (fields: object, msg: string) => void warnings.push([fields, msg]) },
    });
    await exec.start();
    queries.fail = 1_000;
    const callsBefore = queries.calls;
    const report = await exec.stop({ deadlineMs: 400 });
    expect(report).toEqual({ cancelled: 0, open: [], timedOut: true });
    expect(queries.calls - callsBefore).toBeGreaterThanOrEqual(2);
    expect(queries.calls - callsBefore).toBeLessThanOrEqual(5);
    expect(warnings.map(([, msg]) => msg)).toContain(
      "could not read the venue's open orders before the deadline: orders the bot does not track may still be open",
    );
  });
});

describe('execution: rehearsal', () => {
  /** The key, with every throwaway (warm) signature it makes recorded. */
  function recordingKey() {
    const warmed: Uint8Array[] = [];
    const signer: MessageSigner = { publicKey: key.publicKey, sign: (m) => key.sign(m), warm: (m) => (warmed.push(m), key.warm!(m)) };
    return { signer, warmed };
  }

  it('rehearse() runs the last tick again as a dry run: planned, risk asked without using its budget, batch signed with the throwaway key, nothing sent or changed; not right after the real run', async () => {
    const { signer, warmed } = recordingKey();
    const { exec, submitter, risk, events } = setup({ key: signer });
    exec.rehearse();
    expect(risk.dryChecks).toEqual([]);
    await exec.start();
    exec.rehearse();
    expect(risk.dryChecks).toEqual([]);
    expect(warmed).toHaveLength(0);
    const quotes = {
      kind: 'quoteSet',
      symbol: 'BTC-USD',
      quotes: TWO_SIDED,
      ...stamp,
    } as const;
    exec.submit('mm', quotes);
    await flushPromises();
    const before = { open: exec.openOrders().map((o) => [o.orderId, o.status]), events: events.length, checks: risk.checks.length };
    exec.rehearse();
    expect({ warmed: warmed.length, dryChecks: risk.dryChecks.length }).toEqual({ warmed: 0, dryChecks: 0 });
    exec.rehearse();
    exec.rehearse();
    await flushPromises();
    expect(submitter.sent).toHaveLength(1);
    expect(warmed).toEqual([submitter.sent[0]!.request.encoded.message, submitter.sent[0]!.request.encoded.message]);
    expect(risk.dryChecks).toEqual([risk.checks[1], risk.checks[1]]);
    expect(risk.dryChecks[0]).toEqual({ kind: 'place', strategy: 'mm', order: expect.objectContaining({ side: 'sell', price: 101 }), stamp });
    expect({ open: exec.openOrders().map((o) => [o.orderId, o.status]), events: events.length, checks: risk.checks.length }).toEqual(before);
    // The same quotes again: planned for real, nothing to place or send, so risk and the batch are still rehearsed.
    exec.submit('mm', quotes);
    await flushPromises();
    exec.rehearse();
    expect({ sent: submitter.sent.length, checks: risk.checks.length }).toEqual({ sent: 1, checks: before.checks });
    expect({ warmed: warmed.length, dryChecks: risk.dryChecks.length }).toEqual({ warmed: 3, dryChecks: 3 });
    await exec.stop({ cancelOrders: false });
    exec.rehearse();
    expect(warmed).toHaveLength(3);
  });
});

describe('tick-to-trade', () => {
  it("starts at the intent's arrivalNs and ends when the submitter reports the write, else at the hand-over", async () => {
    const clock = manualClock();
    const submitter = new FakeSubmitter();
    submitter.manual = true;
    const histogram = new SampleHistogram();
    const { exec } = setup({ clock, submitter, metrics: { tickToTradeSeconds: histogram } });
    await exec.start();
    const arrivalNs = clock.nowNs();
    clock.advanceMs(0.05);
    exec.submit('mm', {
      kind: 'quoteSet',
      symbol: 'BTC-USD',
      quotes: TWO_SIDED,
      ...stamp,
      arrivalNs,
    });
    await Promise.resolve();
    expect(histogram.count).toBe(1);
    expect(histogram.quantile(0.5)).toBeCloseTo(50e-6, 9);
    clock.advanceMs(0.1);
    submitter.sent[0]!.hooks!.onWritten!();
    expect(histogram.count).toBe(1);
    exec.submit('mm', { kind: 'place', order: spec({ price: 90 }), ...stamp, arrivalNs: clock.nowNs() });
    await Promise.resolve();
    expect(histogram.count).toBe(1);
    clock.advanceMs(0.2);
    submitter.sent[1]!.hooks!.onWritten!();
    expect(histogram.count).toBe(2);
    expect(histogram.quantile(1)).toBeCloseTo(200e-6, 9);
    exec.submit('mm', { kind: 'place', order: spec({ price: 89 }), ...stamp });
    await Promise.resolve();
    submitter.sent[2]!.hooks!.onWritten!();
    expect(histogram.count).toBe(2);
  });
});
