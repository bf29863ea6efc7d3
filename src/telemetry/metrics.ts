// The daemon's Prometheus metrics: a private Registry with Node's default process metrics (unprefixed) and perpbot_*.
// Invariants: base units (seconds, USD, base size, items); every label value comes from a fixed set or the configuration
// (`account` is a config account name: state of one account is never summed with another's).

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { NON_TERMINAL_ORDER_STATUSES, TERMINAL_ORDER_STATUSES, type LocalOrderStatus } from '../core/intent.js';

/** Seconds: 25 µs … 100 ms. */
export const TICK_TO_TRADE_BUCKETS = [25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3];
/** Seconds: 100 µs … 10 s. */
export const ACK_BUCKETS = [1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Items per signed batch (the batcher packs at most 100 by default). */
export const BATCH_ITEM_BUCKETS = [1, 2, 5, 10, 20, 50, 100];

export const TRADING_STATES = ['ACTIVE', 'REDUCING', 'HALTED'] as const;
export type TelemetryTradingState = (typeof TRADING_STATES)[number];

const ORDER_STATUSES: readonly LocalOrderStatus[] = [
  ...NON_TERMINAL_ORDER_STATUSES,
  ...TERMINAL_ORDER_STATUSES,
  'pendingNew',
  'pendingCancel',
  'unknown',
  'untriggered',
];
const SUBMIT_OUTCOMES = ['accepted', 'rejected', 'unknown', 'rate_limited'] as const;
const SIGNING_PATHS = ['precomputed', 'deterministic'] as const;

/**
 * Every metric as a prom-client object. The six execution hooks (`orderEvents`, `submitOutcomes`, `denials`,
 * `batchItems`, `ackLatencySeconds`, `tickToTradeSeconds`) carry execution's names and label names, so this
 * object can be passed where execution expects its metric hooks.
 */
export interface PerpbotMetrics {
  readonly registry: Registry;
  /** The Content-Type of `text()`. */
  readonly contentType: string;
  /** Runs the `onCollect` callbacks, then renders the registry in the Prometheus text format. */
  text(): Promise<string>;
  /** Registers `fn` to run before every scrape (refresh gauges from state there, off the hot path). */
  onCollect(fn: () => void): void;
  readonly tickToTradeSeconds: Histogram;
  readonly ackLatencySeconds: Histogram;
  readonly orderEvents: Counter<'status'>;
  readonly submitOutcomes: Counter<'outcome'>;
  readonly batchItems: Histogram;
  readonly denials: Counter<'reason'>;
  readonly wsReconnects: Counter;
  readonly framesInvalid: Counter<'kind'>;
  readonly topicsRefused: Counter;
  readonly staleTopics: Gauge;
  readonly httpRateLimited: Counter;
  readonly httpAnswersInvalid: Counter;
  readonly streamDataAgeSeconds: Gauge<'topic'>;
  readonly bookUpdates: Counter<'symbol'>;
  readonly positionBase: Gauge<'account' | 'symbol'>;
  readonly positionNotionalUsd: Gauge<'account' | 'symbol'>;
  readonly pnlUsd: Gauge<'account' | 'symbol' | 'kind'>;
  readonly fills: Counter<'account' | 'symbol' | 'side'>;
  readonly openOrders: Gauge<'account'>;
  readonly equityUsd: Gauge<'account'>;
  readonly marginUsedUsd: Gauge<'account'>;
  readonly marginAvailableUsd: Gauge<'account'>;
  readonly dailyPnlUsd: Gauge<'account'>;
  readonly dailyLossLimitUsd: Gauge<'account'>;
  readonly tradingState: Gauge<'account' | 'state'>;
  /** Sets perpbot_trading_state of `account` to 1 for `state` and 0 for the other states. */
  setTradingState(account: string, state: TelemetryTradingState): void;
  readonly up: Gauge;
  readonly ready: Gauge;
  readonly strategyRunning: Gauge<'account' | 'strategy'>;
  readonly strategyFailures: Counter<'account' | 'strategy'>;
  readonly strategyAllDeniedSeconds: Gauge<'account' | 'strategy'>;
  readonly signatures: Counter<'path'>;
  readonly signingCommitments: Gauge;
}

export function createMetrics(): PerpbotMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const collectors: Array<() => void> = [];

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Gauge<L>({ name, help, labelNames, registers });
  const histogram = (name: string, help: string, buckets: number[]) => new Histogram({ name, help, buckets, registers });

  const orderEvents = counter('perpbot_order_events_total', 'Order events by order status (venue and local statuses).', ['status']);
  for (const status of ORDER_STATUSES) orderEvents.inc({ status }, 0);
  const submitOutcomes = counter(
    'perpbot_submits_total',
    'Signed batch submits by outcome (accepted, rejected, unknown; rate_limited: refused with HTTP 429 past http.rateLimitMaxWaitMs, never counted as a rejection).',
    ['outcome'],
  );
  for (const outcome of SUBMIT_OUTCOMES) submitOutcomes.inc({ outcome }, 0);
  const signatures = counter('perpbot_signatures_total', 'Batch signatures by path: precomputed commitment, or deterministic when none was ready (count).', [
    'path',
  ]);
  for (const path of SIGNING_PATHS) signatures.inc({ path }, 0);
  const tradingState = gauge('perpbot_trading_state', 'Trading state per account: 1 for the current state (ACTIVE, REDUCING, HALTED), 0 for the others.', [
    'account',
    'state',
  ]);
  const setTradingState = (account: string, current: TelemetryTradingState) => {
    for (const state of TRADING_STATES) tradingState.set({ account, state }, state === current ? 1 : 0);
  };

  return {
    registry,
    contentType: registry.contentType,
    async text() {
      for (const fn of collectors) fn();
      return registry.metrics();
    },
    onCollect(fn) {
      collectors.push(fn);
    },
    tickToTradeSeconds: histogram(
      'perpbot_tick_to_trade_seconds',
      'Arrival of the market frame an intent was computed from to its signed request written to the socket, seconds.',
      TICK_TO_TRADE_BUCKETS,
    ),
    ackLatencySeconds: histogram('perpbot_order_ack_seconds', 'Submit of a signed batch to the venue answer, seconds.', ACK_BUCKETS),
    orderEvents,
    submitOutcomes,
    batchItems: histogram('perpbot_batch_items', 'Items (orders and cancels) per signed batch; _count is batches sent.', BATCH_ITEM_BUCKETS),
    denials: counter('perpbot_risk_denials_total', 'Operations refused before signing, by risk reason (LOCAL_* for execution checks).', ['reason']),
    wsReconnects: counter('perpbot_ws_reconnects_total', 'WebSocket reconnects (count).'),
    framesInvalid: counter('perpbot_ws_frames_invalid_total', 'Inbound WebSocket frames that could not be used, by kind (count).', ['kind']),
    topicsRefused: counter('perpbot_ws_topics_refused_total', 'Stream topics the venue refused to subscribe (count).'),
    staleTopics: gauge('perpbot_stream_stale_topics', 'Stream topics without fresh data now: their markets are not quoted (count).'),
    httpRateLimited: counter('perpbot_http_rate_limited_total', 'HTTP answers 429 (rate limited); requests waited out Retry-After (count).'),
    httpAnswersInvalid: counter(
      'perpbot_http_answers_invalid_total',
      'HTTP answers that could not be used: broken HTTP framing, or a 200 whose body is not JSON or fails the schema (count).',
    ),
    streamDataAgeSeconds: gauge('perpbot_stream_data_age_seconds', 'Age of the latest data per stream topic (kind:symbol), seconds.', ['topic']),
    bookUpdates: counter('perpbot_book_updates_total', 'Order book updates applied, by symbol (count).', ['symbol']),
    positionBase: gauge('perpbot_position_base', 'Signed position size by account and symbol, base units (long > 0).', ['account', 'symbol']),
    positionNotionalUsd: gauge('perpbot_position_notional_usd', 'Signed position notional at the mark price by account and symbol, USD.', [
      'account',
      'symbol',
    ]),
    pnlUsd: gauge('perpbot_pnl_usd', 'PnL by account, symbol and kind (realized, unrealized), USD.', ['account', 'symbol', 'kind']),
    fills: counter('perpbot_fills_total', 'Own fills by account, symbol and side (count).', ['account', 'symbol', 'side']),
    openOrders: gauge('perpbot_open_orders', 'Open and pending orders of the bot per account, all symbols (count).', ['account']),
    equityUsd: gauge('perpbot_equity_usd', 'Account equity (collateral + unrealized PnL) as risk sees it, USD.', ['account']),
    marginUsedUsd: gauge('perpbot_margin_used_usd', 'Margin in use per account (venue margin update), USD.', ['account']),
    marginAvailableUsd: gauge('perpbot_margin_available_usd', 'Balance available for new positions per account (venue margin update), USD.', ['account']),
    dailyPnlUsd: gauge('perpbot_daily_pnl_usd', 'PnL since 00:00 UTC per account as the daily loss rule sees it, USD.', ['account']),
    dailyLossLimitUsd: gauge('perpbot_daily_loss_limit_usd', 'Loss since 00:00 UTC that switches the account to REDUCING (risk.dailyLossLimitUsd), USD.', [
      'account',
    ]),
    tradingState,
    setTradingState,
    up: gauge('perpbot_up', '1 while the daemon runs its trading loop, else 0.'),
    ready: gauge('perpbot_ready', '1 while the daemon is ready (connected, reconciled, trading), else 0.'),
    strategyRunning: gauge('perpbot_strategy_running', '1 while the configured strategy runs, else 0.', ['account', 'strategy']),
    strategyFailures: counter(
      'perpbot_strategy_failures_total',
      'Runs of a strategy that ended failed (threw, errored or emitted an invalid intent) (count).',
      ['account', 'strategy'],
    ),
    strategyAllDeniedSeconds: gauge(
      'perpbot_strategy_all_denied_seconds',
      'How long every order of a running strategy has been denied by risk, seconds (0 when its last order passed).',
      ['account', 'strategy'],
    ),
    signatures,
    signingCommitments: gauge('perpbot_signing_commitments', 'Precomputed Ed25519 commitments ready for batch signing (count).'),
  };
}
